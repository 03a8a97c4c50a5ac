//! The set of tools of a session: lookup by name, then by alias (T2).
//!
//! Tools are registered once ([`ToolRegistry::register`]) or come from a
//! [`ToolSource`] whose set changes while the session runs (an MCP client:
//! servers connect in the background, their tools join the next request).
//! Every lookup takes a snapshot: the registered tools first, then each
//! source's current tools; a registered tool wins over a source's tool of
//! the same name.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::tool::{Readiness, Tool};

/// Why [`ToolRegistry::ready_tool`] has no ready tool.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotReady {
    /// No tool (and no stand-in) has this name.
    #[error("no such tool")]
    Missing,
    /// The tool did not become ready within its own bound.
    #[error("it did not become ready within {} ms", .0.as_millis())]
    TimedOut(Duration),
    /// The tool will never be ready; why (e.g. its MCP server failed).
    #[error("{0}")]
    Failed(String),
    /// The caller cancelled the wait.
    #[error("the wait was cancelled")]
    Cancelled,
}

/// A boxed future that waits for a source (see [`ToolSource::wait_ready`]).
pub type ReadyFuture<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Tools that may change between requests (e.g. an MCP server's). Asked on
/// every request and every lookup, so it must be cheap (a lock and clones
/// of `Arc`s).
pub trait ToolSource: Send + Sync {
    /// The tools available now, in the order the model sees them.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;
    /// A tool for `name` that [`ToolSource::tools`] does not list yet (an
    /// MCP server still connecting): a stand-in that is not ready
    /// ([`Tool::readiness`]); the orchestrator
    /// awaits it, then looks the name up again.
    fn resolve(&self, _name: &str) -> Option<Arc<dyn Tool>> {
        None
    }
    /// More tools may still arrive (an MCP server is connecting).
    fn is_pending(&self) -> bool {
        false
    }
    /// Waits until the source is no longer pending (bounded by the source).
    fn wait_ready(&self) -> ReadyFuture<'_> {
        Box::pin(std::future::ready(()))
    }
}

#[derive(Clone, Default)]
/// The tools of a session, in the order the model sees them.
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
    sources: Vec<Arc<dyn ToolSource>>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.tools().iter().map(|t| t.name().to_string()))
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool; a later tool with the same name replaces the earlier one.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        self.tools.retain(|t| t.name() != tool.name());
        self.tools.push(tool);
    }

    /// Adds a source of tools that may change while the session runs.
    pub fn add_source(&mut self, source: Arc<dyn ToolSource>) {
        self.sources.push(source);
    }

    /// Enabled tools now, in order: registered ones, then each source's
    /// (a source's tool named like a registered one is left out).
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let mut all: Vec<Arc<dyn Tool>> = self
            .tools
            .iter()
            .filter(|t| t.is_enabled())
            .cloned()
            .collect();
        for source in &self.sources {
            for tool in source.tools() {
                if tool.is_enabled() && !all.iter().any(|t| t.name() == tool.name()) {
                    all.push(tool);
                }
            }
        }
        all
    }

    /// Whether a source may still add tools (see [`ToolSource::is_pending`]).
    pub fn is_pending(&self) -> bool {
        self.sources.iter().any(|s| s.is_pending())
    }

    /// Waits for every pending source.
    pub async fn wait_ready(&self) {
        for source in &self.sources {
            source.wait_ready().await;
        }
    }

    /// The names of the enabled tools, in order.
    pub fn names(&self) -> Vec<String> {
        self.tools().iter().map(|t| t.name().to_string()).collect()
    }

    /// Finds a tool by its name, then by any tool's alias.
    pub fn find(&self, name: &str) -> Option<Arc<dyn Tool>> {
        let tools = self.tools();
        let position = tools
            .iter()
            .position(|t| t.name() == name)
            .or_else(|| tools.iter().position(|t| t.aliases().contains(&name)));
        match position {
            Some(position) => tools.into_iter().nth(position),
            None => self.sources.iter().find_map(|s| s.resolve(name)),
        }
    }

    /// Tool `name`, ready to be called. A stand-in for a tool still
    /// arriving ([`Readiness::NotYet`], an MCP server connecting) is
    /// awaited within its own bound, or until `cancel` fires, and the name
    /// looked up again (the real tool replaces the stand-in). The tool
    /// contract's one readiness wait: the orchestrator's step 2 and
    /// callers outside it (the permission prompt tool) both use it.
    pub async fn ready_tool(
        &self,
        name: &str,
        cancel: &CancellationToken,
    ) -> Result<Arc<dyn Tool>, NotReady> {
        let tool = self.find(name).ok_or(NotReady::Missing)?;
        let Readiness::NotYet { within } = tool.readiness() else {
            return Ok(tool);
        };
        let ready = tokio::select! {
            () = cancel.cancelled() => return Err(NotReady::Cancelled),
            ready = tokio::time::timeout(within, tool.ready()) => ready,
        };
        match ready {
            Err(_elapsed) => return Err(NotReady::TimedOut(within)),
            Ok(Err(why)) => return Err(NotReady::Failed(why)),
            Ok(Ok(())) => {}
        }
        let tool = self.find(name).ok_or(NotReady::Missing)?;
        match tool.readiness() {
            Readiness::Ready => Ok(tool),
            Readiness::NotYet { .. } => Err(NotReady::TimedOut(within)),
        }
    }

    /// Keeps only the registered tools `keep` accepts (e.g. without
    /// `--disallowedTools`); sources are not filtered.
    pub fn retain(&mut self, mut keep: impl FnMut(&dyn Tool) -> bool) {
        self.tools.retain(|t| keep(t.as_ref()));
    }
}
