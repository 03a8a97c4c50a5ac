//! One module per tool area.

mod edit;
mod glob;
mod grep;
mod ls;
mod read;
mod todo;
mod validation;
mod web_fetch;
mod write;
