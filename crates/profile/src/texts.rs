//! The texts the small-model profile sends: its reminders (user messages
//! the engine appends when [`crate::SmallModelReplyCheck`] asks) and the
//! note the CLI prints when the profile's turn limit ends a run. orbit's
//! own wording; the model-facing ones are snapshotted with the tools'
//! texts (`crates/tools/tests/suite/texts.rs`).

/// The recovery turn: the user message sent when a final reply imitates a
/// tool exchange, echoes the harness's invitation to call a tool, or tells
/// the user what to run while no tool has run yet (issue 17).
pub const RECOVERY_REMINDER: &str =
    "Do it yourself with the tools; the user cannot run anything. Call a tool now.";

/// The recovery turn after a step that loaded deferred tools was answered
/// with text (issue 17).
pub const RECOVERY_AFTER_LOAD: &str = "You loaded a tool but did not call it. Call it now with its \
input to get the real answer; do not make the answer up.";

/// The reminder when the prompt asks for a change and the reply would end
/// it although no call of the prompt changed a file (each one only read
/// or printed, or reported that it changed nothing): issue 38's "a change claimed that did not
/// happen". It questions the reply: answered with text only, the reply
/// stands.
pub const RECOVERY_NOTHING_CHANGED: &str = "The file is unchanged: those commands only printed \
their output or changed nothing. Change the file itself now: Read it, then call Write with its \
path and its whole new content. Then answer.";

/// The reminder when the reply follows a step whose every call printed
/// nothing (issue 38: `python3 mystery.py 12` printed nothing, and the
/// model answered with a number it made up). It questions the reply.
pub const RECOVERY_NO_OUTPUT: &str = "That printed nothing, so it holds no answer. Run code that \
prints what you need (for a function: python3 -c 'from MODULE import NAME; print(NAME(ARGS))', \
MODULE being the file's name without .py), then answer from its output.";

/// The reminder when a question about what code returns or prints is
/// answered while no command ran in the prompt (issue 38: the model read
/// the function and answered from its name). It questions the reply.
pub const RECOVERY_RUN_IT: &str = "You have not run anything: answer this by running the code, \
not by reading it. Call Bash with python3 -c 'from MODULE import NAME; print(NAME(ARGS))', \
MODULE being the file's name without .py (or run the script), then answer from its output.";

/// The reminder when the prompt asks to change `original` and the calls
/// wrote `copy` beside it instead, never `original` (issue 38: a small
/// model asked to reverse a file's lines wrote them to a new file). It
/// questions the reply.
pub fn recovery_wrote_a_copy(copy: &str, original: &str) -> String {
    format!(
        "You wrote {copy}, but the request is about {original}: change {original} itself. Read \
it, then call Write with its path and its whole new content. Then answer."
    )
}

/// The reminder when the reply names a file that neither the request nor
/// any tool call or result of the prompt showed (issue 38: after a long
/// output a small model answered with a sentence from its prompt's worked
/// examples, about a file the task never had). `last_line`: the last
/// line the tools returned, quoted so the model looks at the real output.
/// The next reply is the answer.
pub fn recovery_unseen_name(name: &str, last_line: &str) -> String {
    format!(
        "Nothing in this task shows {name}: not the request, not any tool result. The last tool \
result ended with: {last_line}\nAnswer again from what the tools returned."
    )
}

/// The line printed (to stderr) when the profile's default turn limit of
/// `max` model calls ended a run.
pub fn max_turns_note(max: u32) -> String {
    format!(
        "the small-model profile stops after {max} model calls by default; pass --max-turns N to allow more"
    )
}
