//! orbit's small-model profile as data, in one place: what changes when
//! the model is a small local one (Qwen2.5-Coder-1.5B through llama.cpp,
//! or any model with `ORBIT_SMALL_MODEL=1`). docs/LOCAL.md describes it.
//!
//! - [`SMALL`]: the tools offered, the limits (turns per run, reply cap,
//!   repeat guard, instruction-file cut) and the one-call-per-reply flag.
//! - [`SMALL_PROMPT`]: the system prompt's fixed text with its worked
//!   examples (`assets/small-prompt.md`); orbit's `system_prompt` adds the
//!   working directory and the start of CLAUDE.md / AGENTS.md after it.
//! - [`CHAT_TEMPLATE`]: the llama.cpp chat template (`assets/qwen-tools.jinja`)
//!   that `orbit-local` writes next to the model. It renders tool calls in
//!   the form these models write and matches some of orbit's own texts by
//!   prefix (a test in `tests/template.rs` keeps those in step).
//! - [`texts`]: the reminders the profile sends; [`reply_check`]: when it
//!   sends them ([`SmallModelReplyCheck`], an `orbit_tool::ReplyCheck` the
//!   engine calls without knowing the profile).
//!
//! Data flow: `orbit::profile::ModelProfile` reads [`SMALL`] to filter the
//! tools and fill the engine's settings (its reply check included) and
//! builds the prompt from [`SMALL_PROMPT`]; `orbit-local` ships
//! [`CHAT_TEMPLATE`] to llama-server. Nothing here does I/O.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod reply_check;
pub mod texts;

pub use reply_check::{MAX_RECOVERY_REMINDERS, SmallModelReplyCheck};

/// The chat template orbit ships for Qwen2.5-Coder (ChatML with tools).
pub const CHAT_TEMPLATE: &str = include_str!("../assets/qwen-tools.jinja");

/// The small-model prompt's fixed text: a few plain sentences and one
/// concrete call per kind of everyday task, which a 1.5B model follows far
/// better than general rules (issue 17's evaluation, `bench/eval/`), then
/// worked examples of whole tasks in the exact form of [`CHAT_TEMPLATE`]
/// (the call as a fenced JSON block, the result in `<tool_response>`
/// followed by the line the template puts after a result that is no
/// refusal; a test keeps the two equal): a 1.5B model copies a shown
/// exchange far more reliably than it follows a rule. One question and
/// five changes, so the model sees that the line after a result invites an
/// answer to a question but the next call of a change (without the line in
/// the examples, it answered "is_even returns the wrong result" after
/// reading the file it was asked to fix). Other file names than the
/// evaluation's tasks. It comes before the working directory, so it stays
/// in llama.cpp's cached prefix. Sent as written, without the file's final
/// newline.
pub const SMALL_PROMPT: &str = include_str!("../assets/small-prompt.md").trim_ascii_end();

/// What a model profile sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    /// The tools offered (the others are dropped from the registry).
    pub tools: &'static [&'static str],
    /// `--max-turns` when none is given, as an allowance per run on top of
    /// the turns a resumed session already made.
    pub max_turns_per_run: u32,
    /// `--max-tokens` (the reply cap) when none is given.
    pub max_output_tokens: u32,
    /// The runaway-loop guard's limit: the same call (or cycle of up to
    /// three calls) repeated over this many model calls gets a reminder;
    /// twice as many model calls that are at most three different calls,
    /// each made twice, end the run.
    pub repeated_tool_call_limit: u32,
    /// One tool call per reply (`ModelRequest::one_tool_call`).
    pub one_tool_call_per_reply: bool,
    /// Read shows the empty line after a final newline
    /// (`orbit_tool::ReadView::final_empty_line`, Claude Code's way).
    pub read_final_empty_line: bool,
    /// Largest part of one instruction file (CLAUDE.md, AGENTS.md) sent, in
    /// bytes.
    pub max_instruction_file_bytes: usize,
}

/// The small-model profile.
///
/// - `tools`: a 1.5B model chooses well among a few, and every definition
///   costs prompt time. Grep and Glob are left out on purpose: given "what
///   is X in FILE", Qwen2.5-Coder-1.5B picks Grep with odd arguments and
///   then answers from its `files_with_matches` output without reading
///   the file; with these it Reads the file (and Bash still covers `grep` /
///   `find`). LS is left out too: the model called it on files ("Path is
///   not a directory") where the prompt's `ls` example via Bash does the
///   same job.
/// - `max_turns_per_run` 25: a small model that loops (repeating a finished
///   task's calls) stops here instead of running for minutes.
/// - `max_output_tokens` 1,024: one reply of a 1.5B model is a short answer
///   or a tool call; at ≈ 10 output tokens per second on two cores this
///   bounds a reply that copies a long tool result back (seen: 4,000
///   tokens, 6 minutes) to ≈ 100 s. The window's summary reserve follows it.
/// - `repeated_tool_call_limit` 3 (5 for other models): a 1.5B model that
///   repeats a call after a reminder keeps repeating it; each repeat costs
///   seconds on a CPU. The run ends after `2 × 3` = 6 model calls of a
///   loop of up to three different calls (≈ 60 s at ≈ 10 s a call, within
///   the 120 s a run should take at most).
/// - `one_tool_call_per_reply`: a small model otherwise writes a chain of
///   calls in one reply, each guessing the result of the one before.
/// - `read_final_empty_line` off: after Reading `steps.txt` (`one`, `two`,
///   `three` and a final newline), the 1.5B model wrote a made-up `four`
///   for Read's empty line 4 back into the file; other rewrites ended in a
///   stray `5` or `keep d`. It sees the lines `wc -l` counts instead.
/// - `max_instruction_file_bytes` 2 KiB: every 1k prompt tokens costs a
///   local model ≈ 10 s on two cores.
pub const SMALL: Profile = Profile {
    tools: &["Read", "Write", "Edit", "Bash"],
    max_turns_per_run: 25,
    max_output_tokens: 1_024,
    repeated_tool_call_limit: 3,
    one_tool_call_per_reply: true,
    read_final_empty_line: false,
    max_instruction_file_bytes: 2 * 1024,
};
