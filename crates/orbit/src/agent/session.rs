//! [`Agent`]: one built coding-agent session, as an embedder drives it.
//! [`Agent::run`] submits a prompt and returns the engine's event stream
//! (it ends with one `EngineEvent::Result`); [`Agent::ask`] drives that
//! stream to the end and returns the result; the rest reads the session
//! (messages, id, cost, MCP servers) or acts on it (compact, abort).
//! `super::AgentBuilder` makes it.

use std::sync::Arc;

use futures::StreamExt;
use futures::stream::BoxStream;
use orbit_engine::{AbortHandle, CompactError, CompactionBoundary, QueryEngine};
use orbit_protocol::{EngineEvent, Message, TerminalResult};

use super::AgentBuilder;
use crate::Error;
use crate::mcp::ServerStatus;

/// One coding-agent session. Prompts submitted one after another continue
/// the same conversation.
pub struct Agent {
    engine: QueryEngine,
    /// The session's MCP servers (also a source of the engine's tools).
    mcp: Option<Arc<orbit_mcp::McpManager>>,
}

impl Agent {
    /// The agent over a built session.
    pub(super) fn new(engine: QueryEngine, mcp: Option<Arc<orbit_mcp::McpManager>>) -> Self {
        Self { engine, mcp }
    }

    /// A builder with every default (see [`AgentBuilder`]).
    pub fn builder() -> AgentBuilder {
        AgentBuilder::default()
    }

    /// Submits a prompt; the stream yields the turn's events (model stream,
    /// tool starts and results, messages) and ends with one
    /// `EngineEvent::Result`.
    pub fn run(&mut self, prompt: impl Into<String>) -> BoxStream<'_, EngineEvent> {
        self.engine.submit_message(prompt.into())
    }

    /// Submits a prompt and waits for its result.
    pub async fn ask(&mut self, prompt: impl Into<String>) -> Result<TerminalResult, Error> {
        let mut events = self.run(prompt);
        while let Some(event) = events.next().await {
            if let EngineEvent::Result(result) = event {
                return Ok(result);
            }
        }
        Err(Error::NoResult)
    }

    /// Compacts the conversation now (`/compact [instructions]`): the
    /// history is replaced by a summary the model writes, following the
    /// standard instructions plus `instructions`. See
    /// [`QueryEngine::compact`].
    pub async fn compact(
        &mut self,
        instructions: Option<String>,
    ) -> Result<CompactionBoundary, CompactError> {
        self.engine.compact(instructions).await
    }

    /// Interrupts the running turn (like Ctrl-C); callable from another task.
    pub fn abort_handle(&self) -> AbortHandle {
        self.engine.abort_handle()
    }

    /// The conversation so far.
    pub fn messages(&self) -> &[Message] {
        self.engine.messages()
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        self.engine.session_id()
    }

    /// Cost of the session's model calls so far, in US dollars.
    pub fn total_cost_usd(&self) -> f64 {
        self.engine.total_cost_usd()
    }

    /// Each MCP server's name and state (`pending`, `connected`, `failed`),
    /// in the order they were given.
    pub fn mcp_servers(&self) -> Vec<ServerStatus> {
        self.mcp.as_ref().map(|m| m.statuses()).unwrap_or_default()
    }
}
