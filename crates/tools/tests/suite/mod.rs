//! One module per tool area.

mod bash;
mod bash_background;
mod bash_kill;
mod cancelled;
mod edit;
mod glob;
mod grep;
mod harness;
mod hostile_paths;
mod ls;
mod read;
mod registry;
mod texts;
mod todo;
mod validation;
mod web_fetch;
mod web_search;
mod write;
