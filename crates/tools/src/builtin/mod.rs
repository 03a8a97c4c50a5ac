//! orbit's built-in tools, each in its own module, and the default set.
//!
//! Each helper module exports one tool type; [`default_tools`] registers the
//! set a session starts with, in the order the model sees them. Each tool
//! module declares what the tool says about itself (name, description,
//! search hint, result limit) in one `const` `ToolInfo` next to its limits;
//! its `impl TypedTool` returns it from `info`, then reads facts → validate
//! → call. Facts are built with `CallFacts::about` and its builders.

pub mod bash;
mod blocking;
pub mod edit;
pub mod glob;
pub mod grep;
pub mod ls;
mod paths;
pub mod read;
pub mod todo;
pub mod web_fetch;
pub mod write;

use orbit_tool::typed;

use crate::registry::ToolRegistry;

/// The built-in tool set. Tools are added here as they land.
pub fn default_tools() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(typed(read::ReadTool));
    registry.register(typed(write::WriteTool));
    registry.register(typed(edit::EditTool));
    registry.register(typed(bash::BashTool));
    registry.register(typed(bash::BashOutputTool));
    registry.register(typed(bash::KillShellTool));
    registry.register(typed(glob::GlobTool));
    registry.register(typed(grep::GrepTool));
    registry.register(typed(ls::LsTool));
    registry.register(typed(todo::TodoWriteTool));
    registry.register(typed(web_fetch::WebFetchTool::new()));
    registry
}
