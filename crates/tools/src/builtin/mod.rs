//! orbit's built-in tools, each in its own module, and the default set.
//!
//! Each helper module exports one tool type; [`default_tools`] registers the
//! set a session starts with, in the order the model sees them.

pub mod bash;
pub mod edit;
pub mod glob;
pub mod grep;
pub mod ls;
pub mod read;
pub mod todo;
pub mod web_fetch;
pub mod write;

use crate::registry::ToolRegistry;

/// The built-in tool set. Tools are added here as they land.
pub fn default_tools() -> ToolRegistry {
    #[allow(unused_mut)]
    let mut registry = ToolRegistry::new();
    // REGISTER: one line per tool, e.g. registry.register(Arc::new(read::ReadTool::new()));
    registry
}
