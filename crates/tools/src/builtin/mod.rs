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
    registry.register(std::sync::Arc::new(read::ReadTool::new()));
    registry.register(std::sync::Arc::new(write::WriteTool::new()));
    registry.register(std::sync::Arc::new(edit::EditTool::new()));
    registry.register(std::sync::Arc::new(bash::BashTool::new()));
    registry.register(std::sync::Arc::new(bash::BashOutputTool::new()));
    registry.register(std::sync::Arc::new(bash::KillShellTool::new()));
    registry.register(std::sync::Arc::new(glob::GlobTool::new()));
    registry.register(std::sync::Arc::new(grep::GrepTool::new()));
    registry.register(std::sync::Arc::new(ls::LsTool::new()));
    registry.register(std::sync::Arc::new(todo::TodoWriteTool::new()));
    registry.register(std::sync::Arc::new(web_fetch::WebFetchTool::new()));
    registry
}
