//! Every text the model can receive, in one home: tool results and errors,
//! refusals, notes and reminders, denial reasons, the engine's own
//! messages, and the tool descriptions. A producer (the engine, a built-in
//! tool, the permission gate) never spells a model-facing text itself; it
//! calls a constant or a small formatting `fn` from here.
//!
//! Why one home: models are trained on Claude Code's wording, so most of
//! these texts follow it byte for byte; a change to any of them changes
//! what the model reads. The snapshot test of the built-ins
//! (`crates/tools/tests/suite/texts.rs`) renders every item of this tree
//! (each formatted one with representative arguments) and fails when one
//! is missing from it, so every change shows up as a reviewed diff.
//!
//! Index (who sends what):
//!
//! | Module | Texts | Sent by |
//! |--------|-------|---------|
//! | [`tool_use_error`] (here) | the `<tool_use_error>` wrapper | engine, validation |
//! | [`engine`] | cancel/interrupt, stream cut, sibling abort, fatal and panic errors, `max_tokens` continuation, limits, empty results (R3), error truncation (R4), `<persisted-output>` (R1/R2), cwd reset note, the `StructuredOutput` tool and its retries, the runaway-loop guard | `orbit-engine`, [`crate::workspace`], Bash |
//! | [`compact`] | the summary request's instructions, the message that replaces a compacted history, cleared-result and dropped-turns notes | `orbit-engine` (`compact`) |
//! | [`validation`] | unknown tool, unparsable JSON, `InputValidationError` header and issue lines (T2/T3) | [`crate::validation`], [`crate::typed`] |
//! | [`permissions`] | denial and ask reasons (P1) | `orbit-permissions` |
//! | [`tools`] | each built-in's description, answers, refusals, notes and reminders; file and path texts several tools share | `orbit-tools` |
//! | [`units`] | sizes and durations as the texts print them | all of the above |
//!
//! Conventions: a fixed text is a `pub const NAME: &str`; a formatted one
//! is a `pub fn` returning `String` that takes the values the text shows
//! (paths already displayed, numbers raw). A doc comment says when the text
//! is sent and whether it is Claude Code's wording. Texts a tool returns as
//! a refusal (`ToolError::RespondToModel`) are unwrapped here: the engine
//! adds the `<tool_use_error>` tags.
//!
//! Not here: the JSON Schema parameter descriptions (doc comments on each
//! tool's input type, which `schemars` turns into the schema; the snapshot
//! covers them through the tool specs) and the CLI's system prompt (a
//! module of the `orbit` binary).

pub mod compact;
pub mod engine;
pub mod permissions;
pub mod tools;
pub mod units;
pub mod validation;

/// `<tool_use_error>MSG</tool_use_error>`: how a refusal, a validation
/// error or a fatal tool error reaches the model (Claude Code's tags).
pub fn tool_use_error(msg: &str) -> String {
    format!("<tool_use_error>{msg}</tool_use_error>")
}
