//! One module per area.

mod fuzz;
