//! The one builder of a model request: [`next_request`] turns a session
//! into what its next call sends — the model (the fallback once the main
//! one was overloaded, `Session::model`), the system prompt, R2's budgeted
//! view of the history, the tool specs (`Session::tool_specs`: deferred
//! tools by name only) and the sampling settings. The query loop sends it;
//! compaction derives its summary request from it (`compact::summary`), so
//! the two cannot drift apart.

use std::sync::Arc;

use orbit_model::ModelRequest;
use orbit_protocol::Message;

use crate::config::EngineConfig;
use crate::runtime::ToolRuntime;
use crate::session::Session;

/// The request the session's next model call sends.
pub(crate) async fn next_request(
    config: &EngineConfig,
    runtime: &ToolRuntime,
    session: &mut Session,
) -> ModelRequest {
    let messages = budgeted_view(config, runtime, session).await;
    ModelRequest {
        model: session.model(config).to_string(),
        system: config.system_prompt.clone(),
        messages,
        tools: session.tool_specs(&runtime.tools),
        max_tokens: config.max_tokens,
        temperature: config.temperature,
        seed: config.seed,
        thinking_budget: config.thinking_budget,
        one_tool_call: config.one_tool_call_per_reply,
    }
}

/// The history as a request sends it: R2's budgeted view, sharing the
/// messages of the previous request's view that did not change.
async fn budgeted_view(
    config: &EngineConfig,
    runtime: &ToolRuntime,
    session: &mut Session,
) -> Vec<Arc<Message>> {
    let never_persisted = &session.never_persisted_ids;
    let skip = |id: &str| never_persisted.contains(id);
    session
        .view
        .update(
            &session.messages,
            &mut session.replacement_state,
            config.tool_result_budget_chars,
            &runtime.storage,
            &skip,
        )
        .await
}
