//! One module per area.

mod listing;
mod repair;
mod support;
mod writer;
