//! One module per area of orbit-config.

mod common;

mod data_dir;
mod env_values;
mod model_choice;
mod precedence;
mod readme;
mod settings_files;
mod sources;
mod trust;
