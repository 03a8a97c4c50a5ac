//! The session's [`SideQuery`]: one request outside the conversation on the
//! session's own provider client, with the small fast model.
//!
//! [`SessionSpec::build`](crate::SessionSpec::build) makes one
//! [`ProviderSideQuery`] per session (the client it built, the model
//! [`side_model`] picks) and installs it in the session's tool context
//! (`orbit_tool::side_query::install`), where WebFetch (its `prompt`),
//! WebSearch (the server-side search) and prompt hooks find it.
//!
//! Data flow: [`SideQuery::ask`] → a `ModelRequest` (the system text, one
//! user message, no tools, no thinking) → the client's event stream → the
//! text blocks' text; [`SideQuery::messages`] → `ModelClient::send_json`
//! (Anthropic only: a Messages body with server tools, not streamed) → the
//! response JSON. Cancellation drops the request.

use std::sync::Arc;

use futures::StreamExt;
use orbit_model::catalog::{self, Provider as CatalogProvider};
use orbit_model::{ModelClient, ModelRequest};
use orbit_protocol::{ContentBlock, Message, StreamEvent};
use orbit_tool::side_query::{SideQuery, SideQueryError};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::provider::LOCAL_PROVIDER;

/// A [`SideQuery`] on a session's provider client.
pub struct ProviderSideQuery {
    client: Arc<dyn ModelClient>,
    model: String,
}

impl ProviderSideQuery {
    /// Side requests through `client` with `model`.
    pub fn new(client: Arc<dyn ModelClient>, model: impl Into<String>) -> Self {
        Self {
            client,
            model: model.into(),
        }
    }
}

/// The model of a session's side requests: `configured` (the resolved
/// `ANTHROPIC_SMALL_FAST_MODEL`, …) for the Anthropic provider, else the
/// catalog's small fast model of the client's provider, else the session's
/// own model (OpenAI-compatible and local servers run one model).
pub fn side_model(
    client: &dyn ModelClient,
    session_model: &str,
    configured: Option<&str>,
) -> String {
    let provider = match client.provider() {
        // Claude on Bedrock and Vertex: the clients map the catalog's ids
        // to the cloud's (an inference profile, `@date`), so the same
        // small fast model serves, as in Claude Code.
        "anthropic" | "bedrock" | "vertex" => CatalogProvider::Anthropic,
        LOCAL_PROVIDER => CatalogProvider::Local,
        "openai" => CatalogProvider::OpenAi,
        // A client the catalog does not know (an embedder's): its own
        // model is the one it can run.
        _ => return session_model.to_string(),
    };
    let configured = configured.filter(|_| provider == CatalogProvider::Anthropic);
    catalog::small_fast_model(provider, session_model, configured).to_string()
}

/// The side query of a session on `client` whose model is `session_model`
/// (`configured`: see [`side_model`]).
pub fn session_side_query(
    client: &Arc<dyn ModelClient>,
    session_model: &str,
    configured: Option<&str>,
) -> orbit_tool::SharedSideQuery {
    let model = side_model(client.as_ref(), session_model, configured);
    Arc::new(ProviderSideQuery::new(Arc::clone(client), model))
}

#[async_trait::async_trait]
impl SideQuery for ProviderSideQuery {
    fn provider(&self) -> &str {
        self.client.provider()
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn has_server_tools(&self) -> bool {
        self.client.provider() == "anthropic"
    }

    async fn ask(
        &self,
        system: &str,
        user: &str,
        max_tokens: u32,
        cancel: &CancellationToken,
    ) -> Result<String, SideQueryError> {
        let request = ModelRequest {
            model: self.model.clone(),
            system: system.to_string(),
            messages: vec![Arc::new(Message::user_text(user))],
            max_tokens,
            ..ModelRequest::default()
        };
        let mut stream = self.client.stream(&request);
        let mut text = String::new();
        loop {
            let event = tokio::select! {
                event = stream.next() => event,
                () = cancel.cancelled() => return Err(SideQueryError::Cancelled),
            };
            match event {
                None | Some(Ok(StreamEvent::MessageStop)) => break,
                Some(Ok(StreamEvent::ContentBlockComplete {
                    block: ContentBlock::Text { text: t, .. },
                    ..
                })) => text.push_str(&t),
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(SideQueryError::Failed(e.to_string())),
            }
        }
        Ok(text)
    }

    async fn messages(
        &self,
        mut body: Value,
        cancel: &CancellationToken,
    ) -> Result<Value, SideQueryError> {
        if !self.has_server_tools() {
            return Err(SideQueryError::Unsupported(format!(
                "the {} provider has no server tools",
                self.provider()
            )));
        }
        if let Some(fields) = body.as_object_mut() {
            fields
                .entry("model")
                .or_insert_with(|| Value::String(self.model.clone()));
        }
        tokio::select! {
            answer = self.client.send_json(body) => {
                answer.map_err(|e| SideQueryError::Failed(e.to_string()))
            }
            () = cancel.cancelled() => Err(SideQueryError::Cancelled),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use orbit_model::EventStream;

    struct Named(&'static str);

    impl ModelClient for Named {
        fn stream(&self, _request: &ModelRequest) -> EventStream {
            futures::stream::empty().boxed()
        }
        fn provider(&self) -> &str {
            self.0
        }
    }

    #[test]
    fn side_model_is_the_small_fast_model_or_the_session_s_own() {
        let haiku = side_model(&Named("anthropic"), "claude-opus-5-5", None);
        assert!(haiku.contains("haiku"), "{haiku}");
        assert_eq!(
            side_model(&Named("anthropic"), "claude-opus-5-5", Some("my-small")),
            "my-small"
        );
        assert_eq!(side_model(&Named("openai"), "gpt-x", Some("no")), "gpt-x");
        assert_eq!(side_model(&Named("local"), "qwen", None), "qwen");
        let on_bedrock = side_model(&Named("bedrock"), "claude-opus-5-5", None);
        assert!(on_bedrock.contains("haiku"), "{on_bedrock}");
        let on_vertex = side_model(&Named("vertex"), "claude-opus-5-5", Some("my-small"));
        assert_eq!(on_vertex, "my-small");
        assert_eq!(side_model(&Named("embedder"), "x-1", None), "x-1");
    }

    #[tokio::test]
    async fn no_server_tools_outside_anthropic() {
        let q = ProviderSideQuery::new(Arc::new(Named("openai")), "gpt-x");
        let answer = q
            .messages(serde_json::json!({}), &CancellationToken::new())
            .await;
        assert!(matches!(answer, Err(SideQueryError::Unsupported(_))));
    }
}
