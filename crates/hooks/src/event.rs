//! The hook events (Claude Code's names) and what each one's matcher is
//! matched against.

use std::fmt;

/// A point in a session where hooks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HookEvent {
    /// Before a tool call runs (after its input validated); may deny,
    /// allow, ask or rewrite the input. Matcher: the tool name.
    PreToolUse,
    /// After a tool call succeeded. Matcher: the tool name.
    PostToolUse,
    /// After a tool call failed. Matcher: the tool name.
    PostToolUseFailure,
    /// A prompt was submitted; may add context or block it. No matcher.
    UserPromptSubmit,
    /// The agent is about to end its answer; may make it go on. No matcher.
    Stop,
    /// A subagent ended (fired by the `Agent` tool's session, orbit::subagent).
    SubagentStop,
    /// A subagent starts (before its first request). No matcher.
    SubagentStart,
    /// A session started. Matcher: `startup`, `resume`, `clear`, `compact`.
    SessionStart,
    /// The session ends. Matcher: the reason.
    SessionEnd,
    /// Before a compaction. Matcher: `manual` or `auto`.
    PreCompact,
    /// orbit tells the user something (a permission is needed).
    /// Matcher: the notification type.
    Notification,
    /// A permission would be asked; may answer it. Matcher: the tool name.
    PermissionRequest,
}

impl HookEvent {
    /// Every event.
    pub const ALL: [HookEvent; 12] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::UserPromptSubmit,
        HookEvent::Stop,
        HookEvent::SubagentStop,
        HookEvent::SubagentStart,
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::PreCompact,
        HookEvent::Notification,
        HookEvent::PermissionRequest,
    ];

    /// The name in settings files and in `hook_event_name`.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::Stop => "Stop",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::SubagentStart => "SubagentStart",
            HookEvent::SessionStart => "SessionStart",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::Notification => "Notification",
            HookEvent::PermissionRequest => "PermissionRequest",
        }
    }

    /// The event called `name` (exact spelling).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether a matcher applies (events without one run every group).
    pub fn has_matcher(self) -> bool {
        !matches!(
            self,
            HookEvent::UserPromptSubmit
                | HookEvent::Stop
                | HookEvent::SubagentStop
                | HookEvent::SubagentStart
        )
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
