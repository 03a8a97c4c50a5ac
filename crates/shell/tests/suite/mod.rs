//! One module per area.

mod file_management;
mod fuzz;
