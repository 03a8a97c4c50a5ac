//! The Skill tool: loads one of the session's skills into the turn.
//!
//! Facts: read-only and concurrency-safe as far as the permission gate is
//! concerned (it loads text; what the skill then asks for goes through the
//! gate call by call).
//!
//! Flow: the input (Claude Code's schema: `skill`, `args`) → validate finds
//! the skill in the session's [`SkillLibrary`] (a leading `/` is ignored)
//! → call loads it: the model gets `Launching skill: NAME` and the skill's
//! folder and instructions (arguments filled); its `allowed-tools` are
//! granted until the user's turn ends ([`TurnGrants`]). A second call for
//! the same skill in one turn gets a short "already loaded" answer (a small
//! model otherwise loops on it). The description
//! lists the skills by name and description only (the library keeps the
//! listing within its size budget).

use std::sync::Arc;

use async_trait::async_trait;
use orbit_tool::{
    CallFacts, SkillLibrary, SkillLoad, ToolError, ToolInfo, ToolOutput, TurnGrants, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::{CallContext, ToolUseContext};

/// The tool's name.
pub const SKILL_TOOL_NAME: &str = "Skill";

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SkillInput {
    /// The skill's name, exactly as listed (no leading slash)
    pub skill: String,
    /// Optional arguments for the skill
    #[serde(default)]
    pub args: Option<String>,
}

/// The Skill tool, bound to the session's skills.
pub struct SkillTool {
    library: Arc<dyn SkillLibrary>,
    description: String,
}

impl SkillTool {
    /// The tool for a session whose skills `library` holds; its
    /// description lists them.
    pub fn new(library: Arc<dyn SkillLibrary>) -> Self {
        let description = format!(
            "Load a skill: a set of instructions (and often scripts) the user or project keeps \
             for one kind of task. When the task matches a listed skill, call this first and \
             then follow what it returns in place of your usual approach. The result names the \
             skill's folder: run its scripts from there. When the user types /<name> for a \
             listed skill, that is a request to use it; if its instructions are already in \
             this turn, follow them without calling again.\n\n\
             - skill: a name from the list below, nothing else\n\
             - args: optional arguments passed to the skill\n\n\
             Available skills:\n{}",
            library.listing()
        );
        Self {
            library,
            description,
        }
    }
}

#[async_trait]
impl TypedTool for SkillTool {
    type Input = SkillInput;
    type Plan = SkillLoad;

    fn facts(&self, input: &SkillInput, _ctx: &ToolUseContext) -> CallFacts {
        CallFacts::about(input.skill.clone()).only_reads()
    }

    async fn validate(
        &self,
        input: SkillInput,
        _ctx: &ToolUseContext,
    ) -> Result<SkillLoad, ToolError> {
        let name = input.skill.trim();
        let name = name.strip_prefix('/').unwrap_or(name);
        let args = input.args.unwrap_or_default();
        self.library.load(name, &args).ok_or_else(|| {
            ToolError::RespondToModel(format!(
                "Unknown skill: {name}. Available skills: {}",
                self.library.names().join(", ")
            ))
        })
    }

    async fn call(
        &self,
        load: SkillLoad,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        if call.cancel.is_cancelled() {
            return Ok(ToolOutput::interrupted());
        }
        let turn = TurnGrants::of(ctx);
        if !turn.first_load(&load.name) {
            return Ok(ToolOutput::text(format!(
                "The skill {} is already loaded in this turn: follow the instructions it gave above \
                 now, without calling Skill for it again.",
                load.name
            )));
        }
        let mut text = format!("Launching skill: {}\n\n{}", load.name, load.text);
        match turn.grant(&load.allowed_tools) {
            Ok(errors) => {
                for err in errors {
                    text.push_str(&format!("\n\n(allowed-tools rule ignored: {err})"));
                }
            }
            Err(why) => text.push_str(&format!("\n\n(allowed-tools not granted: {why})")),
        }
        Ok(ToolOutput::text(text))
    }

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(SKILL_TOOL_NAME, &self.description)
            .only_reads()
            .with_search_hint("load a skill's instructions")
    }
}
