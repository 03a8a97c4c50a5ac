//! The hook events (Claude Code 2.1.332's names, all 34 of them) and what
//! each one's matcher is matched against. Every name is accepted in
//! settings files (no warning); [`HookEvent::fires`] says whether orbit
//! has the feature the event belongs to, and so ever runs its hooks.
//! The README's event table is generated from the same facts: name,
//! matcher, and when orbit fires it ([`HookEvent::when`]).

use std::fmt;

/// Declares the events: variant, name, whether a matcher applies, and
/// when orbit fires it (None: never, the feature is not in orbit).
macro_rules! events {
    ($($(#[$doc:meta])* $variant:ident, $matcher:expr, $when:expr;)*) => {
        /// A point in a session where hooks run.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum HookEvent {
            $($(#[$doc])* $variant,)*
        }

        impl HookEvent {
            /// Every event, in Claude Code's order.
            pub const ALL: [HookEvent; HOOK_EVENT_COUNT] = [$(HookEvent::$variant,)*];

            /// The name in settings files and in `hook_event_name`.
            pub fn name(self) -> &'static str {
                match self {
                    $(HookEvent::$variant => stringify!($variant),)*
                }
            }

            /// Whether a matcher applies (events without one run every group).
            pub fn has_matcher(self) -> bool {
                match self {
                    $(HookEvent::$variant => $matcher,)*
                }
            }

            /// When orbit fires it (None: never — the event belongs to a
            /// feature orbit does not have — and its hooks are accepted but
            /// never run).
            pub fn when(self) -> Option<&'static str> {
                match self {
                    $(HookEvent::$variant => $when,)*
                }
            }
        }
    };
}

/// How many events Claude Code 2.1.332 has.
pub const HOOK_EVENT_COUNT: usize = 34;

events! {
    /// Before a tool call runs (after its input validated); may deny,
    /// allow, ask or rewrite the input. Matcher: the tool name.
    PreToolUse, true, Some("before a tool call runs (may deny, allow, ask, rewrite the input)");
    /// After a tool call succeeded. Matcher: the tool name.
    PostToolUse, true, Some("after a tool call succeeded (`tool_response`)");
    /// After a tool call failed. Matcher: the tool name.
    PostToolUseFailure, true, Some("after a tool call failed (`error`, `is_interrupt`)");
    /// After every call of one model message resolved. No matcher.
    PostToolBatch, false, Some("after every tool call of one model message resolved, before the next request (`tool_calls`)");
    /// orbit tells the user something (a permission is needed).
    /// Matcher: the notification type.
    Notification, true, Some("a permission prompt is about to be shown (`permission_prompt`)");
    /// A prompt was submitted; may add context or block it. No matcher.
    UserPromptSubmit, false, Some("a prompt is submitted (may add context or block it)");
    /// A custom slash command or a skill expands into a prompt; may add
    /// context or block it. Matcher: the command's name.
    UserPromptExpansion, true, Some("a custom slash command or `/skill` expands (`command_name`, `command_args`, `command_source`; may add context or block it)");
    /// A session started. Matcher: `startup`, `resume`, `clear`, `compact`.
    SessionStart, true, Some("the first prompt of a session (`startup`, `resume`) and after a compaction (`compact`)");
    /// The session ends. Matcher: the reason.
    SessionEnd, true, Some("the session ends (`reason`: `prompt_input_exit`, `clear`, `other`)");
    /// The agent is about to end its answer; may make it go on. No matcher.
    Stop, false, Some("the agent is about to end its answer (exit 2 makes it go on)");
    /// An API error ended the turn (instead of Stop). Matcher: the error
    /// kind; output ignored.
    StopFailure, true, Some("an API error ended the turn, instead of Stop (`error`; output ignored)");
    /// A subagent starts (before its first request). No matcher.
    SubagentStart, false, Some("a subagent starts (`agent_id`, `agent_type`)");
    /// A subagent ended (fired by the `Agent` tool's session, orbit::subagent).
    SubagentStop, false, Some("a subagent ended (`agent_id`, `agent_type`, `agent_transcript_path`)");
    /// Before a compaction. Matcher: `manual` or `auto`.
    PreCompact, true, Some("before a compaction (`manual`, `auto`)");
    /// After a compaction. Matcher: `manual` or `auto`.
    PostCompact, true, Some("after a compaction (`trigger`, `compact_summary`)");
    /// Before a model switch: the SDK's `set_model`, the TUI's `/model`;
    /// a block or deny keeps the model.
    PreModelSwitch, true, Some("the SDK's `set_model` or the UI's `/model NAME` is about to apply (`from_model`, `to_model`, `source`; exit 2 or a deny keeps the model)");
    /// After a model switch (as PreModelSwitch; its output is not sent to
    /// the model yet).
    PostModelSwitch, true, Some("a model switch applied (same fields; its output is not sent to the model yet)");
    /// A permission would be asked; may answer it. Matcher: the tool name.
    PermissionRequest, true, Some("a permission would be asked (may allow or deny; `permission_suggestions`)");
    /// Auto mode denied a call (orbit has no auto mode: never).
    PermissionDenied, true, None;
    /// Repository setup (`--init`; orbit: never).
    Setup, true, None;
    /// Agent teams (orbit: never).
    TeammateIdle, false, None;
    /// Agent teams' tasks (orbit: never).
    TaskCreated, false, None;
    /// Agent teams' tasks (orbit: never).
    TaskCompleted, false, None;
    /// MCP elicitation (orbit: never).
    Elicitation, true, None;
    /// MCP elicitation (orbit: never).
    ElicitationResult, true, None;
    /// Settings files changed mid-session (orbit: never).
    ConfigChange, true, None;
    /// A custom worktree creator (orbit: never).
    WorktreeCreate, false, None;
    /// A custom worktree remover (orbit: never).
    WorktreeRemove, false, None;
    /// A CLAUDE.md or rule file loaded: the files of the session's start,
    /// run on its first prompt. Matcher: the load reason.
    InstructionsLoaded, true, Some("the memory files loaded at session start, on its first prompt (`file_path`, `memory_type`, `load_reason`: `session_start`; subfolders' files not yet)");
    /// The working directory changed (orbit: never).
    CwdChanged, false, None;
    /// A watched file changed (orbit: never).
    FileChanged, false, None;
    /// `/add-dir` mid-session (orbit: never).
    DirectoryAdded, true, None;
    /// Assistant text displayed (orbit: never).
    MessageDisplay, false, None;
    /// A skill's inline shell command (orbit: never).
    PreSkillShellCommand, true, None;
}

impl HookEvent {
    /// The event called `name` (exact spelling).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether orbit ever runs this event's hooks.
    pub fn fires(self) -> bool {
        self.when().is_some()
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name round-trips, none twice.
    #[test]
    fn names_are_unique_and_round_trip() {
        let mut names: Vec<&str> = HookEvent::ALL.iter().map(|e| e.name()).collect();
        for name in &names {
            assert_eq!(HookEvent::from_name(name).map(HookEvent::name), Some(*name));
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), HOOK_EVENT_COUNT);
    }
}
