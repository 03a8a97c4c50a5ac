//! One module per view area.

mod views;
