//! One module per area of the `orbit` binary's behaviour.

mod common;

mod faults;
mod formats;
mod interrupt;
mod local_model;
mod local_profile;
mod max_turns;
mod openai_provider;
mod permissions;
mod session;
mod startup_errors;
mod system_prompt;
