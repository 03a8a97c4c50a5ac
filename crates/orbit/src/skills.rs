//! The session's skills as the `Skill` tool sees them: [`SessionSkills`]
//! implements `orbit_tool::SkillLibrary` over the `orbit_commands::SkillSet`
//! a front end found (`SessionSpec::offer_skills`), so the tool crate never
//! depends on the commands crate.
//!
//! Data flow: the front end loads the set (user skills, and the project's
//! in a trusted folder) → [`SessionSpec::offer_skills`] → `build` registers
//! the `Skill` tool (only when there is a skill) before the `Agent` tool, so
//! subagents get it too → a call loads one skill's text and its
//! `allowed-tools` (granted by the tool for the rest of the turn).

use std::sync::Arc;

use orbit_commands::{SKILL_LISTING_MAX_BYTES, SkillSet};
use orbit_tool::{SkillLibrary, SkillLoad, ToolRegistry};

use crate::SessionSpec;

/// A session's skills, for the `Skill` tool.
#[derive(Debug)]
pub(crate) struct SessionSkills(SkillSet);

impl SkillLibrary for SessionSkills {
    fn names(&self) -> Vec<String> {
        self.0.names()
    }

    fn listing(&self) -> String {
        self.0.listing(SKILL_LISTING_MAX_BYTES)
    }

    fn load(&self, name: &str, args: &str) -> Option<SkillLoad> {
        let skill = self.0.find(name)?;
        Some(SkillLoad {
            name: skill.name.clone(),
            text: skill.prompt(args),
            allowed_tools: skill.allowed_tools.clone(),
        })
    }
}

impl SessionSpec {
    /// Offers `skills` through the `Skill` tool (none: no tool). Load them
    /// with `orbit_commands::SkillSet::load`, which leaves an untrusted
    /// project's skills out.
    pub fn offer_skills(&mut self, skills: SkillSet) {
        self.skills = Some(skills);
    }
}

/// Registers the `Skill` tool for `skills` (nothing when there are none).
pub(crate) fn add_skill_tool(skills: Option<SkillSet>, tools: &mut ToolRegistry) {
    use orbit_tools::builtin::skill::{SKILL_TOOL_NAME, SkillTool};
    tools.retain(|t| t.name() != SKILL_TOOL_NAME);
    let Some(skills) = skills.filter(|s| !s.is_empty()) else {
        return;
    };
    let library: Arc<dyn SkillLibrary> = Arc::new(SessionSkills(skills));
    tools.register(orbit_tool::typed(SkillTool::new(library)));
}

/// The tools that put something to the person: `AskUserQuestion` and
/// `ExitPlanMode` (the plan workflow).
const ASKING_TOOLS: [&str; 2] = [
    orbit_tools::builtin::ask_user::ASK_USER_TOOL_NAME,
    orbit_tools::builtin::exit_plan_mode::EXIT_PLAN_MODE_TOOL_NAME,
];

/// Registers `AskUserQuestion` and `ExitPlanMode` in `tools` (a front end
/// with someone to ask calls it before `--tools` and `--disallowedTools`
/// filter the set). A session without an approver drops them again
/// (headless they are not offered, as in Claude Code 2.1.332).
pub fn offer_asking_tools(tools: &mut ToolRegistry) {
    use orbit_tools::builtin::ask_user::AskUserQuestionTool;
    use orbit_tools::builtin::exit_plan_mode::ExitPlanModeTool;
    tools.retain(|t| !ASKING_TOOLS.contains(&t.name()));
    tools.register(orbit_tool::typed(AskUserQuestionTool));
    tools.register(orbit_tool::typed(ExitPlanModeTool));
}

/// Takes the asking tools out of `tools` (subagents never get them: only
/// the session's own turn puts something to the person).
pub(crate) fn take_asking_tools(tools: &mut ToolRegistry) -> Vec<Arc<dyn orbit_tool::Tool>> {
    let taken = ASKING_TOOLS
        .iter()
        .filter_map(|name| tools.find(name))
        .collect();
    tools.retain(|t| !ASKING_TOOLS.contains(&t.name()));
    taken
}
