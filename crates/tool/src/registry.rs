//! The set of tools of a session: lookup by name, then by alias (T2).

use std::sync::Arc;

use crate::tool::Tool;

#[derive(Clone, Default)]
/// The tools of a session, in the order the model sees them.
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|t| t.name()))
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool; a later tool with the same name replaces the earlier one.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        self.tools.retain(|t| t.name() != tool.name());
        self.tools.push(tool);
    }

    /// Enabled tools, in registration order (the order the model sees).
    pub fn tools(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.iter().filter(|t| t.is_enabled())
    }

    /// The names of the enabled tools, in order.
    pub fn names(&self) -> Vec<String> {
        self.tools().map(|t| t.name().to_string()).collect()
    }

    /// Finds a tool by its name, then by any tool's alias.
    pub fn find(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools()
            .find(|t| t.name() == name)
            .or_else(|| self.tools().find(|t| t.aliases().contains(&name)))
    }

    /// Removes tools whose name is in `names` (e.g. `--disallowedTools`).
    pub fn retain(&mut self, mut keep: impl FnMut(&dyn Tool) -> bool) {
        self.tools.retain(|t| keep(t.as_ref()));
    }
}
