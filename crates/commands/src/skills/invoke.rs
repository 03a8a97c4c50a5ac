//! A skill the user typed (`/name args`): the prompt a custom command's
//! would be — the `<command-…>` lines, then [`Skill::prompt`] — with the
//! skill's `allowed-tools` granted while the plan lives (the prompt's
//! turn), through the same [`PromptSession::grant`] as a command's.

use super::Skill;
use crate::invoke::PromptPlan;
use crate::session::PromptSession;

/// The plan for `/name args` naming `skill`.
pub(crate) fn skill_plan<S: PromptSession + ?Sized>(
    engine: &S,
    skill: &Skill,
    args: &str,
) -> PromptPlan {
    let name = &skill.name;
    let mut notes = Vec::new();
    let grant = (!skill.allowed_tools.is_empty()).then(|| {
        let grant = engine.grant(&skill.allowed_tools);
        for err in &grant.errors {
            notes.push(format!("/{name}: allowed-tools rule ignored: {err}"));
        }
        grant
    });
    let prompt = format!(
        "<command-message>{name}</command-message>\n<command-name>/{name}</command-name>\n<command-args>{args}</command-args>\n\n{}",
        skill.prompt(args)
    );
    PromptPlan::with_grant(prompt, name.clone(), notes, grant)
}
