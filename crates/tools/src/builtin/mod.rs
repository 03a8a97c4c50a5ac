//! orbit's built-in tools, each in its own module, and the default set.
//!
//! Each tool module exports one tool type (a unit struct, except WebFetch's,
//! which holds its HTTP client); [`default_tools`] registers the set a
//! session starts with, in the order the model sees them. A module holds
//! the tool's input, the tool, its plan and helpers, then its `impl TypedTool`:
//! facts (built with `CallFacts::about` and its builders, or the shared
//! `read_facts` of a call that only reads one path) → validate → call, and
//! last `info`: name, description, search hint, and a result limit where it
//! differs from the default. `blocking` runs file and search work off the
//! runtime; `atomic_write` puts a file-changing tool's bytes on disk;
//! `paths` holds the search tools' path rules.

pub mod agent;
pub mod ask_user;
mod atomic_write;
pub mod bash;
mod blocking;
pub mod edit;
pub mod exit_plan_mode;
pub mod glob;
pub mod grep;
pub mod ls;
pub mod notebook;
mod patch;
mod paths;
pub mod read;
pub mod skill;
pub mod task_stop;
pub mod todo;
pub mod web_fetch;
pub mod web_search;
pub mod write;
mod write_echo;

use orbit_tool::typed;

use crate::registry::ToolRegistry;

/// The built-in tool set. Tools are added here as they land.
pub fn default_tools() -> ToolRegistry {
    let mut registry = ToolRegistry::new();
    registry.register(typed(read::ReadTool));
    registry.register(typed(write::WriteTool));
    registry.register(typed(edit::EditTool));
    registry.register(typed(notebook::NotebookEditTool));
    registry.register(typed(bash::BashTool));
    registry.register(typed(bash::BashOutputTool));
    registry.register(typed(bash::KillShellTool));
    registry.register(typed(glob::GlobTool));
    registry.register(typed(grep::GrepTool));
    registry.register(typed(ls::LsTool));
    registry.register(typed(todo::TodoWriteTool));
    registry.register(typed(web_fetch::WebFetchTool::new()));
    registry.register(typed(web_search::WebSearchTool::new()));
    registry
}
