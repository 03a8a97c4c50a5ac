//! Step 1 of a tool call ([`prepare`], synchronous, at the tool_use's
//! `content_block_stop`): find the tool, check its input (JSON, schema
//! with coercion, T2–T3) and parse it once into the typed call with its
//! facts — or the exact text the call is refused with. Its result,
//! [`Prepared`], is what the executor schedules by and what step 2
//! (`orchestrator::run_tool_use`) starts from; `readiness` runs step 1
//! again once a tool that was not ready is, and a hook's or approver's
//! replacement input goes through it as the model's did.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use orbit_protocol::ToolUseBlock;
use orbit_tool::texts::engine::{PARSE_PANICKED_DETAIL, tool_fatal_error};
use orbit_tool::validation::{
    no_such_tool_error, unparsable_input_error, validate_tool_input, wrap_tool_use_error,
};
use orbit_tool::{CallFacts, Readiness, Tool, ToolCall, ToolError, ToolRegistry, ToolUseContext};

/// What step 2 starts from.
pub(crate) enum Staged {
    /// The parsed call.
    Call(Box<dyn ToolCall>),
    /// The tool is not ready yet: await it at most this long, then run
    /// step 1 again.
    AwaitReady(std::time::Duration),
}

/// A tool_use after the synchronous checks of step 1.
pub(crate) enum Prepared {
    /// Ready to run: the parsed call (taken when it starts) and its facts.
    Ready {
        /// The tool to run.
        tool: Arc<dyn Tool>,
        /// The parsed call (or the wait for the tool); `None` once taken.
        call: Option<Staged>,
        /// What the call declared it will do.
        facts: CallFacts,
    },
    /// Never runs; answered with this `is_error` text.
    Rejected(String),
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Prepared::Ready { tool, facts, .. } => f
                .debug_struct("Ready")
                .field("tool", &tool.name())
                .field("facts", facts)
                .finish(),
            Prepared::Rejected(text) => f.debug_tuple("Rejected").field(text).finish(),
        }
    }
}

/// Step 1 for one tool_use. `invalid_input` is the raw text when the
/// streamed input did not parse as JSON.
pub(crate) fn prepare(
    tools: &ToolRegistry,
    block: &ToolUseBlock,
    invalid_input: Option<&str>,
    ctx: &ToolUseContext,
) -> Prepared {
    let Some(tool) = tools.find(&block.name) else {
        return Prepared::Rejected(no_such_tool_error(&block.name));
    };
    if let Some(raw) = invalid_input {
        return Prepared::Rejected(unparsable_input_error(tool.name(), raw));
    }
    if let Readiness::NotYet { within } = tool.readiness() {
        return Prepared::Ready {
            facts: CallFacts::about(tool.name()),
            tool,
            call: Some(Staged::AwaitReady(within)),
        };
    }
    let input = match validate_tool_input(tool.as_ref(), &block.input) {
        Ok(input) => input,
        Err(text) => return Prepared::Rejected(text),
    };
    match catch_unwind(AssertUnwindSafe(|| tool.parse(input, ctx))) {
        Ok(Ok(call)) => Prepared::Ready {
            facts: call.facts().clone(),
            tool,
            call: Some(Staged::Call(call)),
        },
        Ok(Err(error)) => Prepared::Rejected(refusal_text(tool.name(), error)),
        Err(_) => Prepared::Rejected(tool_fatal_error(tool.name(), PARSE_PANICKED_DETAIL)),
    }
}

/// The text of a refused call: a refusal the model can act on is wrapped in
/// `<tool_use_error>`; a fatal error names the tool.
pub(crate) fn refusal_text(tool_name: &str, error: ToolError) -> String {
    match error {
        ToolError::RespondToModel(text) => wrap_tool_use_error(&text),
        ToolError::Fatal(text) => {
            tracing::error!(tool = tool_name, error = %text, "tool failed");
            tool_fatal_error(tool_name, &text)
        }
    }
}
