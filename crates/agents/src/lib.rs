//! Subagent definitions: what the `Agent` tool may start.
//!
//! An [`AgentSet`] holds the definitions visible in a session, by name,
//! lowest precedence first replaced by higher ones: the built-in types
//! ([`builtin`]: general-purpose, Explore, Plan), the user's
//! (`$CLAUDE_CONFIG_DIR/agents` else `~/.claude/agents`, then
//! `~/.orbit/agents`), the project's (`.claude/agents`, `.orbit/agents`;
//! only when the folder is trusted), then `--agents JSON` and the SDK's
//! `agents` ([`AgentSet::add_json`]). Every file is read through
//! `orbit_untrusted` ([`load`]); a file that cannot be used is skipped with
//! one warning. A definition's `tools` restricts the subagent's tool set;
//! [`ToolFilter::ReadOnly`] is decided later by the tools' own facts.

#![deny(missing_docs)]

pub mod builtin;
mod front;
pub mod load;

pub use load::AgentSources;

/// Which tools a subagent is offered (never `Agent` itself unless named).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolFilter {
    /// Every tool of the parent (except `Agent`).
    All,
    /// Only the tools the parent declares read-only (their facts decide).
    ReadOnly,
    /// Only these tool names (the `tools:` list).
    Only(Vec<String>),
}

/// Where a definition came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentSource {
    /// Shipped with orbit.
    BuiltIn,
    /// The user's agents folder.
    User,
    /// The project's agents folder.
    Project,
    /// `--agents JSON`.
    Flag,
    /// The SDK's `agents` in `initialize`.
    Sdk,
}

/// One subagent type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDefinition {
    /// Its name (`subagent_type`).
    pub name: String,
    /// When to use it (listed to the model in the `Agent` tool).
    pub description: String,
    /// Its system prompt.
    pub prompt: String,
    /// Its tools.
    pub tools: ToolFilter,
    /// Its model: None or `inherit` = the parent's; else an alias or id.
    pub model: Option<String>,
    /// Where it came from.
    pub source: AgentSource,
}

impl AgentDefinition {
    /// A definition a program makes (source [`AgentSource::Sdk`]): every
    /// tool of the parent but `Agent`, the parent's model. Narrow it with
    /// struct update syntax:
    /// `AgentDefinition { tools: ToolFilter::ReadOnly, ..AgentDefinition::new(..) }`.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        prompt: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            prompt: prompt.into(),
            tools: ToolFilter::All,
            model: None,
            source: AgentSource::Sdk,
        }
    }

    /// The model to run it with: None = the parent's (`inherit` too).
    pub fn model(&self) -> Option<&str> {
        self.model.as_deref().filter(|m| *m != "inherit")
    }
}

/// Why `--agents` JSON was refused.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// Not JSON.
    #[error("--agents is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Not an object of definitions.
    #[error("--agents must be a JSON object of agent definitions")]
    NotObject,
    /// A definition without its `description` or `prompt`.
    #[error("agent {0}: needs a string \"description\" and \"prompt\"")]
    Incomplete(String),
}

/// The definitions of a session, by name.
#[derive(Debug, Clone, Default)]
pub struct AgentSet {
    agents: Vec<AgentDefinition>,
    /// One line per file that was skipped.
    pub warnings: Vec<String>,
}

impl AgentSet {
    /// The built-in types alone.
    pub fn builtin() -> Self {
        Self {
            agents: builtin::definitions(),
            warnings: Vec::new(),
        }
    }

    /// The built-in types, then the user's and (when trusted) the
    /// project's files.
    pub fn load(sources: &AgentSources) -> Self {
        let mut set = Self::builtin();
        let (found, warnings) = load::read_all(sources);
        for definition in found {
            set.insert(definition);
        }
        set.warnings = warnings;
        set
    }

    /// Adds (or replaces by name) one definition.
    pub fn insert(&mut self, definition: AgentDefinition) {
        self.agents.retain(|a| a.name != definition.name);
        self.agents.push(definition);
    }

    /// Adds `--agents` / the SDK's `agents`: `{"name": {"description",
    /// "prompt", "tools"?, "model"?}}`.
    pub fn add_json(&mut self, text: &str, source: AgentSource) -> Result<(), AgentError> {
        let value: serde_json::Value = serde_json::from_str(text)?;
        self.add_value(&value, source)
    }

    /// [`Self::add_json`] for an already parsed value.
    pub fn add_value(
        &mut self,
        value: &serde_json::Value,
        source: AgentSource,
    ) -> Result<(), AgentError> {
        let map = value.as_object().ok_or(AgentError::NotObject)?;
        for (name, def) in map {
            let text = |key: &str| def.get(key).and_then(|v| v.as_str()).map(str::to_string);
            let (Some(description), Some(prompt)) = (text("description"), text("prompt")) else {
                return Err(AgentError::Incomplete(name.clone()));
            };
            let tools = match def.get("tools") {
                Some(serde_json::Value::Array(items)) => ToolFilter::Only(
                    items
                        .iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect(),
                ),
                Some(serde_json::Value::String(list)) => ToolFilter::Only(front::split_list(list)),
                _ => ToolFilter::All,
            };
            self.insert(AgentDefinition {
                name: name.clone(),
                description,
                prompt,
                tools,
                model: text("model"),
                source,
            });
        }
        Ok(())
    }

    /// The definition named `name`.
    pub fn find(&self, name: &str) -> Option<&AgentDefinition> {
        self.agents.iter().find(|a| a.name == name)
    }

    /// Every definition, built-in ones first.
    pub fn all(&self) -> &[AgentDefinition] {
        &self.agents
    }

    /// The names, in order.
    pub fn names(&self) -> Vec<String> {
        self.agents.iter().map(|a| a.name.clone()).collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn json_definitions_add_and_replace() {
        let mut set = AgentSet::builtin();
        set.add_json(
            r#"{"reviewer": {"description": "Reviews", "prompt": "You review.", "tools": ["Read", "Grep"], "model": "inherit"},
                "Explore": {"description": "mine", "prompt": "p"}}"#,
            AgentSource::Flag,
        )
        .unwrap();
        let reviewer = set.find("reviewer").unwrap();
        assert_eq!(
            reviewer.tools,
            ToolFilter::Only(vec!["Read".into(), "Grep".into()])
        );
        assert_eq!(reviewer.model(), None);
        assert_eq!(set.find("Explore").unwrap().description, "mine");
        assert!(set.add_json("[1]", AgentSource::Flag).is_err());
        assert!(
            set.add_json(r#"{"x": {"prompt": "p"}}"#, AgentSource::Flag)
                .is_err()
        );
    }
}
