//! Bash tool (WIP)
pub mod background;
pub mod output;
pub mod process;
pub mod readonly;
