//! What a call produces and how it fails: [`ToolOutput`] (the content the
//! model receives plus facts for the embedder), [`ToolError`] (refused or
//! broken) and [`ResultLimit`] (whether the engine's result pipeline may
//! persist or replace the output). A tool builds these; the orchestrator
//! reads them after the call.

use std::path::PathBuf;

use orbit_protocol::{ToolResultContent, ToolResultContentBlock};

use crate::detail::ToolDetail;
use crate::texts::engine::INTERRUPT_MESSAGE_FOR_TOOL_USE;

/// How a call is refused or fails outside its normal output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The call is refused (a business rule, a stale file, a bad path): the
    /// model receives `<tool_use_error>TEXT</tool_use_error>` (is_error) and
    /// can correct itself.
    #[error("{0}")]
    RespondToModel(String),
    /// The tool broke in a way the model cannot fix (an I/O error of orbit's
    /// own state, a bug). The model receives an error result naming the
    /// tool; the engine logs it at error level.
    #[error("{0}")]
    Fatal(String),
}

/// What a tool call produced, before the engine's result pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// What the model receives (after the pipeline: empty placeholder,
    /// persist-if-large, error format).
    pub content: ToolResultContent,
    /// The tool ran and failed (a command's non-zero exit): sent with
    /// `is_error` and what may cancel siblings
    /// ([`CallFacts::failure_cancels_siblings`](super::CallFacts::failure_cancels_siblings)).
    pub is_error: bool,
    /// The raw output when `content` was shaped for the model (Bash trims
    /// trailing whitespace). When the result is too large and persisted,
    /// this is what the saved file holds, byte-exact.
    pub full_text: Option<String>,
    /// The working directory the call ended in (a shell's `cd`). The
    /// orchestrator decides whether the session keeps it (workspace roots).
    pub cwd: Option<PathBuf>,
    /// Facts about what the call did, for the embedder only (never sent to
    /// the model): the file a Read showed, the patch an Edit made, a
    /// command's streams. Reaches `EngineEvent::ToolResult::detail` (as
    /// [`ToolDetail::to_value`]).
    pub detail: Option<ToolDetail>,
    /// The call is known to have changed no file although it could have
    /// (a command whose every written path the shell analysis names came
    /// out byte-identical). A fact for the engine's reply check (see
    /// `orbit_tool::reply_check`), never sent to the model.
    pub changed_nothing: bool,
}

impl ToolOutput {
    /// A successful text result.
    pub fn text(text: impl Into<String>) -> Self {
        Self::with_content(ToolResultContent::Text(text.into()), false)
    }

    /// A failed run (is_error) with this text.
    pub fn error(text: impl Into<String>) -> Self {
        Self::with_content(ToolResultContent::Text(text.into()), true)
    }

    /// The answer of a call that was cancelled before it acted
    /// ([`INTERRUPT_MESSAGE_FOR_TOOL_USE`]).
    pub fn interrupted() -> Self {
        Self::error(INTERRUPT_MESSAGE_FOR_TOOL_USE)
    }

    /// A successful result of several blocks (text and images).
    pub fn blocks(blocks: Vec<ToolResultContentBlock>) -> Self {
        Self::with_content(ToolResultContent::Blocks(blocks), false)
    }

    fn with_content(content: ToolResultContent, is_error: bool) -> Self {
        Self {
            content,
            is_error,
            full_text: None,
            cwd: None,
            detail: None,
            changed_nothing: false,
        }
    }

    /// Attaches facts for the embedder (see `detail`).
    pub fn with_detail(mut self, detail: ToolDetail) -> Self {
        self.detail = Some(detail);
        self
    }

    /// Attaches the raw output to persist instead of `content` (see `full_text`).
    pub fn with_full_text(mut self, raw: String) -> Self {
        self.full_text = Some(raw);
        self
    }

    /// Reports the working directory the call ended in (see `cwd`).
    pub fn with_cwd(mut self, cwd: PathBuf) -> Self {
        self.cwd = Some(cwd);
        self
    }
}

/// Whether and when a tool's results are saved to disk instead of being
/// sent whole (R1), and whether the per-message budget (R2) may replace
/// them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultLimit {
    /// A result longer than this many chars is persisted and replaced by a
    /// preview; the budget may replace it too.
    PersistOver(usize),
    /// Never persisted, never replaced by the budget: the tool bounds its
    /// own output (Read: persisting a file only for the model to Read the
    /// copy again would loop).
    NeverPersist,
}
