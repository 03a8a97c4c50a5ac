//! [`ContextUsage`]: how full the context window is, by category — what
//! an SDK's `get_context_usage` and a `/context` view report. Estimated
//! by size as automatic compaction does (`crate::compact`'s estimate),
//! except the total, which is the API's own count of the last request when
//! one was made (its usage anchor).

use serde::Serialize;

use crate::compact::{Limits, fixed_tokens, messages_tokens, request_tokens};
use crate::config::EngineConfig;
use crate::session::Session;
use orbit_tool::ToolRegistry;

/// The context window's use, in tokens.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextUsage {
    /// The model the window is that of.
    pub model: String,
    /// The system prompt.
    pub system_prompt_tokens: u64,
    /// Built-in tool definitions sent with each request.
    pub system_tools_tokens: u64,
    /// Deferrable tool definitions (MCP) sent with each request.
    pub mcp_tools_tokens: u64,
    /// Every tool sent (name, tokens, deferrable), in request order.
    pub tools: Vec<(String, u64, bool)>,
    /// Deferred tools not sent (name, tokens their definition would take):
    /// only their names reach the model, in ToolSearch's description.
    pub deferred_tools: Vec<(String, u64)>,
    /// The history.
    pub messages_tokens: u64,
    /// What the next request holds (the API's count of the last one plus
    /// what came after it, else the sum of the categories).
    pub total_tokens: u64,
    /// The model's whole context window.
    pub raw_max_tokens: u64,
    /// The window less the output reserved for a summary.
    pub max_tokens: u64,
    /// A request estimated above this is compacted first.
    pub auto_compact_threshold: u64,
    /// Whether automatic compaction is on.
    pub auto_compact_enabled: bool,
}

/// The usage of `session`'s next request under `config` with `tools`.
pub(crate) fn measure(
    config: &EngineConfig,
    session: &Session,
    tools: &ToolRegistry,
) -> ContextUsage {
    let model = session.model(config).to_string();
    let limits = Limits::for_model(config, &model);
    let registered = tools.tools();
    let deferrable: Vec<String> = registered
        .iter()
        .filter(|t| t.should_defer())
        .map(|t| t.name().to_string())
        .collect();
    let specs = session.tool_specs(tools);
    let per_tool: Vec<(String, u64, bool)> = specs
        .iter()
        .map(|spec| {
            let tokens = fixed_tokens("", std::slice::from_ref(spec));
            (spec.name.clone(), tokens, deferrable.contains(&spec.name))
        })
        .collect();
    let deferred_tools = registered
        .iter()
        .filter(|t| t.should_defer() && !specs.iter().any(|s| s.name == t.name()))
        .map(|t| {
            let spec = crate::deferred::spec(t.as_ref());
            (
                spec.name.clone(),
                fixed_tokens("", std::slice::from_ref(&spec)),
            )
        })
        .collect();
    let tokens_where = |deferred: bool| {
        per_tool
            .iter()
            .filter(|(_, _, d)| *d == deferred)
            .map(|(_, n, _)| n)
            .sum::<u64>()
    };
    let system_prompt_tokens = fixed_tokens(&config.system_prompt, &[]);
    let history = messages_tokens(session.messages());
    let total_tokens = request_tokens(
        &config.system_prompt,
        &specs,
        session.messages(),
        session.context_anchor,
    );
    ContextUsage {
        model,
        system_prompt_tokens,
        system_tools_tokens: tokens_where(false),
        mcp_tools_tokens: tokens_where(true),
        tools: per_tool,
        deferred_tools,
        messages_tokens: history,
        total_tokens,
        raw_max_tokens: limits.window,
        max_tokens: limits.window - limits.summary_output.min(limits.window - 1),
        auto_compact_threshold: limits.threshold,
        auto_compact_enabled: !config.compact.disable_auto,
    }
}
