//! One module per area.

mod custom;
mod editing;
mod fuzzy;
mod history;
mod mentions;
mod paste;
mod render;
mod support;
