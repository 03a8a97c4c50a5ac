//! A tool's way to a model of its own: [`SideQuery`], one request to the
//! session's provider outside the conversation (Claude Code's "side
//! queries": WebFetch's `prompt` answered over the page, WebSearch's
//! request with the server-side search tool, a hook of type `prompt`).
//!
//! The session assembly (`orbit::SessionSpec`) implements the trait with
//! the session's provider client and the catalog's small fast model (the
//! session's own model for OpenAI-compatible and local servers) and puts
//! it in the session's tool context ([`install`]); a tool takes it from
//! there ([`side_query`]) — None when the session has none (a bare
//! `ToolRunner`, a test), and the tool does without.
//!
//! Data flow: tool → [`SideQuery::ask`] (system + one user message → the
//! reply's text) or [`SideQuery::messages`] (a raw Messages API body with
//! server tools → the response JSON, content blocks as the API returned
//! them) → provider → back to the tool, which frames its own result. A
//! side query is not part of the conversation: nothing of it reaches the
//! transcript except what the tool puts in its result.

use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::context::ToolUseContext;

/// Why a side query gave no answer; its text is one line for a tool result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SideQueryError {
    /// The call was cancelled (the user interrupted the tool).
    #[error("the side request was cancelled")]
    Cancelled,
    /// The provider cannot do this (e.g. server tools outside the
    /// Anthropic Messages API).
    #[error("{0}")]
    Unsupported(String),
    /// The request failed (the provider's error, one line).
    #[error("{0}")]
    Failed(String),
}

/// One model request outside the conversation, on the session's provider.
#[async_trait::async_trait]
pub trait SideQuery: Send + Sync {
    /// The provider's short name (`anthropic`, `openai`, `local`).
    fn provider(&self) -> &str;

    /// The model side requests use (the small fast model).
    fn model(&self) -> &str;

    /// Whether [`Self::messages`] can send server tools (the Anthropic
    /// Messages API).
    fn has_server_tools(&self) -> bool {
        false
    }

    /// Sends `system` and one user message `user`, at most `max_tokens`
    /// tokens of reply, without tools; returns the reply's text.
    async fn ask(
        &self,
        system: &str,
        user: &str,
        max_tokens: u32,
        cancel: &CancellationToken,
    ) -> Result<String, SideQueryError>;

    /// Sends one Messages API request body as given (its `model` filled in
    /// with [`Self::model`] when absent; never streamed) and returns the
    /// response JSON, server tool blocks included. Only where
    /// [`Self::has_server_tools`]; otherwise [`SideQueryError::Unsupported`].
    async fn messages(
        &self,
        body: Value,
        cancel: &CancellationToken,
    ) -> Result<Value, SideQueryError> {
        let _ = (body, cancel);
        Err(SideQueryError::Unsupported(format!(
            "the {} provider has no server tools",
            self.provider()
        )))
    }
}

/// A shared side query.
pub type SharedSideQuery = Arc<dyn SideQuery>;

/// Extension key of the session's side query.
const SIDE_QUERY_KEY: &str = "orbit.side_query";

type Slot = Mutex<Option<SharedSideQuery>>;

/// Makes `query` the side query of the session `ctx` belongs to (shared by
/// every clone of the context; replaces an earlier one).
pub fn install(ctx: &ToolUseContext, query: SharedSideQuery) {
    let slot = ctx.extension::<Slot>(SIDE_QUERY_KEY, || Mutex::new(None));
    *lock(&slot) = Some(query);
}

/// The session's side query, if it has one.
pub fn side_query(ctx: &ToolUseContext) -> Option<SharedSideQuery> {
    let slot = ctx.extension::<Slot>(SIDE_QUERY_KEY, || Mutex::new(None));
    lock(&slot).clone()
}

fn lock(m: &Slot) -> std::sync::MutexGuard<'_, Option<SharedSideQuery>> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;

    #[async_trait::async_trait]
    impl SideQuery for Echo {
        fn provider(&self) -> &str {
            "test"
        }
        fn model(&self) -> &str {
            "echo"
        }
        async fn ask(
            &self,
            system: &str,
            user: &str,
            _max_tokens: u32,
            _cancel: &CancellationToken,
        ) -> Result<String, SideQueryError> {
            Ok(format!("{system}|{user}"))
        }
    }

    #[tokio::test]
    async fn installed_query_is_shared_by_clones_and_server_tools_default_off() {
        let dir = std::env::temp_dir();
        let ctx = ToolUseContext::new("s", dir.clone(), dir);
        assert!(side_query(&ctx).is_none());
        install(&ctx.clone(), Arc::new(Echo));
        let Some(q) = side_query(&ctx) else {
            panic!("no side query after install");
        };
        let cancel = CancellationToken::new();
        assert_eq!(q.ask("s", "u", 10, &cancel).await, Ok("s|u".into()));
        assert!(!q.has_server_tools());
        let err = q.messages(Value::Null, &cancel).await;
        assert_eq!(
            err,
            Err(SideQueryError::Unsupported(
                "the test provider has no server tools".into()
            ))
        );
    }
}
