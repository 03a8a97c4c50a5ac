//! One module per area.

mod agent;
mod examples;
mod sessions;
