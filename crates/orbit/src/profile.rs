//! The model profile: what the small-model profile changes, decided in one
//! place for both front ends (the `orbit` binary's setup and
//! [`crate::AgentBuilder`]).
//!
//! The caller decides whether the profile is small (the CLI: on for the
//! local provider unless `ORBIT_SMALL_MODEL` says otherwise; the library:
//! on for the local provider). [`ModelProfile`] then filters the tools,
//! builds the system prompt and fills the engine settings the profile
//! owns; explicit values ([`ProfileOverrides`]) win over its defaults.
//! The small profile's values, prompt text, texts and reply check are data
//! in `orbit-profile` ([`orbit_profile::SMALL`]); this module only applies
//! them. docs/LOCAL.md describes the profile.

use std::path::Path;
use std::sync::Arc;

use orbit_engine::{DEFAULT_REPEATED_TOOL_CALL_LIMIT, EngineConfig, ReplyCheck};
use orbit_tool::ToolRegistry;

use orbit_profile::{SMALL, SmallModelReplyCheck};

use crate::system_prompt;

/// The default profile, or the small-model one (a lean prompt and few
/// tools, since prompt size is latency there; a reply cap, a turn limit
/// per run, recovery turns, one tool call per reply, a tighter repeat
/// guard).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelProfile {
    small: bool,
}

/// Values the user gave explicitly; they win over the profile's defaults.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProfileOverrides {
    /// `--max-turns`: counts the whole session, as Claude Code's does.
    pub max_turns: Option<u32>,
    /// `--max-tokens`: the reply cap.
    pub max_tokens: Option<u32>,
}

impl ModelProfile {
    /// The small-model profile when `small`, else the default one.
    pub fn new(small: bool) -> Self {
        Self { small }
    }

    /// Drops the tools the small profile does not offer.
    pub fn retain_tools(self, tools: &mut ToolRegistry) {
        if self.small {
            tools.retain(|t| SMALL.tools.contains(&t.name()));
        }
    }

    /// The system prompt for `cwd`; `replace` / `append` are
    /// `--system-prompt` / `--append-system-prompt`; `access` says how the
    /// project's instruction files may be read.
    pub fn system_prompt(
        self,
        cwd: &Path,
        replace: Option<&str>,
        append: Option<&str>,
        access: &mut system_prompt::InstructionAccess<'_>,
    ) -> String {
        if self.small {
            system_prompt::build_local(cwd, replace, append, access)
        } else {
            system_prompt::build(cwd, replace, append, access)
        }
    }

    /// Sets the engine settings the profile owns. `turns_done` are the
    /// turns a resumed session already made: the small profile's turn
    /// limit is an allowance per run on top of them, so a `--continue` of
    /// a long local session is not stopped at once.
    pub fn configure(self, config: &mut EngineConfig, explicit: ProfileOverrides, turns_done: u32) {
        config.max_turns = explicit.max_turns.or(self
            .small
            .then(|| turns_done.saturating_add(SMALL.max_turns_per_run)));
        // The default profile: the model's default output limit (Claude
        // Code's per-model `max_tokens`), from the catalog.
        config.max_tokens = explicit.max_tokens.unwrap_or(if self.small {
            SMALL.max_output_tokens
        } else {
            orbit_model::catalog::default_output_tokens(&config.model)
        });
        config.reply_check = self
            .small
            .then(|| Arc::new(SmallModelReplyCheck) as Arc<dyn ReplyCheck>);
        config.one_tool_call_per_reply = self.small && SMALL.one_tool_call_per_reply;
        config.read_view = orbit_tool::ReadView {
            final_empty_line: !self.small || SMALL.read_final_empty_line,
        };
        config.repeated_tool_call_limit = if self.small {
            SMALL.repeated_tool_call_limit
        } else {
            DEFAULT_REPEATED_TOOL_CALL_LIMIT
        };
    }

    /// The turn limit the profile sets when `--max-turns` is not given
    /// (per run), for the note printed when it ends a run.
    pub fn default_max_turns(self) -> Option<u32> {
        self.small.then_some(SMALL.max_turns_per_run)
    }
}

/// The line to print when the small profile's default turn limit of `max`
/// model calls ended a run ([`ModelProfile::default_max_turns`]).
pub fn max_turns_note(max: u32) -> String {
    orbit_profile::texts::max_turns_note(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_values_win_and_the_small_turn_limit_is_per_run() {
        let cases = [
            // (small, explicit, turns_done) → (max_turns, max_tokens, one call)
            (
                false,
                ProfileOverrides::default(),
                7,
                (None, orbit_engine::DEFAULT_MAX_OUTPUT_TOKENS, false),
            ),
            (
                true,
                ProfileOverrides::default(),
                7,
                (
                    Some(7 + SMALL.max_turns_per_run),
                    SMALL.max_output_tokens,
                    true,
                ),
            ),
            (
                true,
                ProfileOverrides {
                    max_turns: Some(3),
                    max_tokens: Some(99),
                },
                7,
                (Some(3), 99, true),
            ),
        ];
        for (small, explicit, done, expected) in cases {
            let mut config = EngineConfig::default();
            ModelProfile::new(small).configure(&mut config, explicit, done);
            assert_eq!(
                (
                    config.max_turns,
                    config.max_tokens,
                    config.one_tool_call_per_reply
                ),
                expected,
                "small={small}"
            );
            assert_eq!(config.reply_check.is_some(), small);
            assert_eq!(config.read_view.final_empty_line, !small, "small={small}");
        }
    }
}
