//! The engine's hook on a finished tool call's result: a
//! [`ResultAttachments`] (set by the embedder in
//! `EngineConfig::result_attachments`; orbit's nested memory files) is shown
//! the call's facts ([`ResultFacts`]: tool name, the paths it read and
//! wrote, whether it failed) and may return text, which the orchestrator
//! appends to that call's tool_result after the result pipeline.
//!
//! Data flow: orchestrator (a call that ran) → [`ResultAttachments::attach`]
//! → the text pushed as the result's last line. Only the new result
//! changes, so the bytes of earlier requests stay as they were (the prompt
//! cache keeps hitting). The engine knows no file names and no texts: both
//! belong to the attachments.

use std::fmt;
use std::path::PathBuf;

/// Decides what, if anything, is added to a tool call's result.
pub trait ResultAttachments: Send + Sync + fmt::Debug {
    /// The text to append to this call's result, if any.
    fn attach(&self, facts: &ResultFacts<'_>) -> Option<String>;
}

/// What the engine knows about a call that ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResultFacts<'a> {
    /// The tool's name.
    pub tool_name: &'a str,
    /// Files or directories it read, resolved against the session's cwd.
    pub reads: &'a [PathBuf],
    /// Files it created or changed.
    pub writes: &'a [PathBuf],
    /// The tool reported an error.
    pub is_error: bool,
}

/// A call's paths kept for its attachments before the call consumes its
/// facts (nothing without attachments).
pub(crate) struct Pending(Option<(std::sync::Arc<dyn ResultAttachments>, CallPaths)>);

type CallPaths = (Vec<PathBuf>, Vec<PathBuf>);

impl Pending {
    /// Keeps what `attachments` will be shown about a call with `facts`.
    pub(crate) fn take(
        attachments: Option<&std::sync::Arc<dyn ResultAttachments>>,
        facts: &orbit_tool::CallFacts,
    ) -> Self {
        Self(attachments.map(|a| {
            (
                std::sync::Arc::clone(a),
                (facts.reads.clone(), facts.writes.clone()),
            )
        }))
    }

    /// Appends the attachments' text, if any, to the call's `result`.
    pub(crate) fn apply(
        self,
        tool_name: &str,
        is_error: bool,
        result: &mut orbit_protocol::ToolResultBlock,
    ) {
        let Some((attachments, (reads, writes))) = self.0 else {
            return;
        };
        let facts = ResultFacts {
            tool_name,
            reads: &reads,
            writes: &writes,
            is_error,
        };
        if let Some(text) = attachments.attach(&facts) {
            result.content.push_line(&text);
        }
    }
}
