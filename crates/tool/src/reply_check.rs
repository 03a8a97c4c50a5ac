//! The engine's hook on a reply that would end a prompt: a [`ReplyCheck`]
//! (set by a model profile, e.g. `orbit-profile`'s small-model check) is
//! shown the reply and the facts of the prompt so far ([`ReplyFacts`]) and
//! may answer with one [`Reminder`], which the query loop appends as a
//! user message before asking the model again.
//!
//! Data flow: the engine's query loop keeps the facts per prompt (the
//! prompt's text, whether a tool ran and whether one that may write
//! started, the last tool step's outcome until a reminder follows it,
//! how many reminders were sent) and asks the check once per reply that
//! would end the prompt; a reminder that [`Reminder::questions_reply`]
//! keeps the questioned reply, which becomes the prompt's answer when the
//! model replies to the reminder with text only. The engine knows no
//! phrases and no limits: both belong to the check.

use std::fmt;

/// Decides whether a reply that would end the prompt gets a reminder.
pub trait ReplyCheck: Send + Sync + fmt::Debug {
    /// The reminder to send instead of ending the prompt, if any.
    fn check(&self, facts: &ReplyFacts<'_>) -> Option<Reminder>;
}

/// What the engine knows when a reply would end the prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplyFacts<'a> {
    /// The reply's text (output-limit continuations joined).
    pub reply: &'a str,
    /// The prompt the reply answers, as the user wrote it.
    pub prompt: &'a str,
    /// A tool ran in this prompt.
    pub tool_ran: bool,
    /// A call that may change files (not read-only by its facts) started
    /// in this prompt and did not report that it changed none
    /// (`ToolOutput::changed_nothing`). `false` means no call of the
    /// prompt changed a file: each one only read or printed, or came out
    /// with every file it names byte-identical.
    pub may_have_written: bool,
    /// A call that runs a command (its facts name one: a shell command)
    /// started in this prompt.
    pub ran_command: bool,
    /// The names (last path part) of the files this prompt's started calls
    /// named as written (their facts' `writes`), once each, in order.
    pub written: &'a [String],
    /// What this prompt's tool steps showed the model: each call's input
    /// (JSON) and each result's text, one per line. None when that text
    /// grew too long to keep (nothing can be concluded from it then).
    pub shown: Option<&'a str>,
    /// The tool step the reply follows; None before any tool step and
    /// once a reminder was sent after it.
    pub last_step: Option<StepFacts>,
    /// Reminders already sent in this prompt.
    pub reminders_sent: u32,
    /// The reply answers a reminder that questioned the previous reply
    /// ([`Reminder::questions_reply`]), with no tool call in between.
    pub answers_question: bool,
}

/// The outcome of one tool step (a reply with tool calls and its results).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepFacts {
    /// Every result of the step was an error.
    pub all_failed: bool,
    /// The step loaded deferred tools (ToolSearch).
    pub loaded_tools: bool,
    /// Every call of the step ran and succeeded with no visible output
    /// (each result is the "completed with no output" placeholder).
    pub printed_nothing: bool,
}

/// A user message to send instead of ending the prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reminder {
    /// The message's text.
    pub text: String,
    /// The reminder questions a reply that may be right: when the model
    /// answers it with text only (no tool call), the questioned reply is
    /// the prompt's answer.
    pub questions_reply: bool,
}
