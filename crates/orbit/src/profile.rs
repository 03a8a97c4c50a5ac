//! The model profile: what the small-model profile changes, decided in one
//! place for both front ends (the `orbit` binary's setup and
//! [`crate::AgentBuilder`]).
//!
//! The caller decides whether the profile is small (the CLI: on for the
//! local provider unless `ORBIT_SMALL_MODEL` says otherwise; the library:
//! on for the local provider). [`ModelProfile`] then filters the tools,
//! builds the system prompt and fills the engine settings the profile
//! owns; explicit values ([`ProfileOverrides`]) win over its defaults.
//! docs/LOCAL.md describes the profile.

use std::path::Path;

use orbit_engine::{DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_REPEATED_TOOL_CALL_LIMIT, EngineConfig};
use orbit_tool::ToolRegistry;

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
            tools.retain(|t| orbit_local::LOCAL_TOOLS.contains(&t.name()));
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
            .then(|| turns_done.saturating_add(orbit_local::SMALL_PROFILE_MAX_TURNS)));
        config.max_tokens = explicit.max_tokens.unwrap_or(if self.small {
            orbit_local::SMALL_PROFILE_MAX_OUTPUT_TOKENS
        } else {
            DEFAULT_MAX_OUTPUT_TOKENS
        });
        config.recovery_reminders = self.small;
        config.one_tool_call_per_reply = self.small;
        config.repeated_tool_call_limit = if self.small {
            orbit_local::SMALL_PROFILE_REPEAT_LIMIT
        } else {
            DEFAULT_REPEATED_TOOL_CALL_LIMIT
        };
    }
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
                (None, DEFAULT_MAX_OUTPUT_TOKENS, false),
            ),
            (
                true,
                ProfileOverrides::default(),
                7,
                (
                    Some(7 + orbit_local::SMALL_PROFILE_MAX_TURNS),
                    orbit_local::SMALL_PROFILE_MAX_OUTPUT_TOKENS,
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
            assert_eq!(config.recovery_reminders, small);
        }
    }
}
