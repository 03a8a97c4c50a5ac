//! One module per view area.

mod control_bytes;
mod views;
