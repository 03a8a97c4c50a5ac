//! One module per area of the engine.

mod results_budget;
mod results_errors;
mod results_persist;
