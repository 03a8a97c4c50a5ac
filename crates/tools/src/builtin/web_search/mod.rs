//! The WebSearch tool: Claude Code's schema (`query`, `allowed_domains`,
//! `blocked_domains`) and result text (DESIGN §11), for every provider.
//!
//! Facts: read-only, concurrency-safe, reaches the network (the
//! permission gate asks for a `WebSearch` rule; plan mode allows it as it
//! allows WebFetch).
//!
//! Flow: `validate` (query of two characters or more; not both domain
//! filters — Claude Code's rule) → who searches: a backend the user
//! configured ([`backend::SearchBackend`], set by the session from
//! `ORBIT_WEBSEARCH_*`) wins; else, with the Anthropic provider, the
//! Messages API's server-side search through the session's side query
//! (`server`, as Claude Code does); else one line saying how to set a
//! backend → the `results::Part`s, domain filters applied again here →
//! `results::render`: Claude Code's framing, bounded in size.

pub mod backend;
mod results;
mod server;

use async_trait::async_trait;
use orbit_tool::side_query::side_query;
use orbit_tool::texts::tools::{self as tools_texts, web_search as texts};
use orbit_tool::{CallFacts, ResultLimit, ToolError, ToolInfo, ToolOutput, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;

use self::backend::SearchBackend;
use self::results::DomainFilter;
use crate::context::{CallContext, ToolUseContext};

/// The tool's name.
pub const WEB_SEARCH_TOOL_NAME: &str = "WebSearch";
/// Shortest query, in characters (Claude Code's `minLength`).
pub(crate) const MIN_QUERY_CHARS: usize = 2;
/// Claude Code's persistence threshold (R1); a rendered result stays
/// under it ([`results::MAX_RESULT_CHARS`]), so it is sent whole.
pub(crate) const WEB_SEARCH_MAX_RESULT_SIZE_CHARS: usize = 100_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSearchInput {
    /// The search query to use
    #[schemars(length(min = 2))]
    pub query: String,
    /// Only include search results from these domains
    #[serde(default)]
    pub allowed_domains: Option<Vec<String>>,
    /// Never include search results from these domains
    #[serde(default)]
    pub blocked_domains: Option<Vec<String>>,
}

/// The WebSearch tool (register it with `orbit_tool::typed`).
#[derive(Debug, Default)]
pub struct WebSearchTool;

impl WebSearchTool {
    /// The tool.
    pub fn new() -> Self {
        Self
    }
}

/// A checked call.
#[derive(Debug)]
pub struct WebSearchPlan {
    query: String,
    filter: DomainFilter,
}

#[async_trait]
impl TypedTool for WebSearchTool {
    type Input = WebSearchInput;
    type Plan = WebSearchPlan;

    fn facts(&self, input: &WebSearchInput, _ctx: &ToolUseContext) -> CallFacts {
        CallFacts::about(&input.query)
            .only_reads()
            .fetching(format!("websearch:{}", input.query))
    }

    async fn validate(
        &self,
        input: WebSearchInput,
        _ctx: &ToolUseContext,
    ) -> Result<WebSearchPlan, ToolError> {
        let query = input.query.trim().to_string();
        if query.chars().count() < MIN_QUERY_CHARS {
            return Err(ToolError::RespondToModel(texts::QUERY_TOO_SHORT.into()));
        }
        let allowed = input.allowed_domains.unwrap_or_default();
        let blocked = input.blocked_domains.unwrap_or_default();
        if !allowed.is_empty() && !blocked.is_empty() {
            return Err(ToolError::RespondToModel(texts::BOTH_DOMAIN_FILTERS.into()));
        }
        Ok(WebSearchPlan {
            query,
            filter: DomainFilter::new(&allowed, &blocked),
        })
    }

    async fn call(
        &self,
        plan: WebSearchPlan,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let WebSearchPlan { query, filter } = plan;
        let side = side_query(ctx);
        let search = async {
            match (SearchBackend::of(ctx), &side) {
                (Some(Err(reason)), _) => Err(reason),
                (Some(Ok(backend)), _) => backend.search(&query, &filter).await,
                (None, Some(side)) if side.has_server_tools() => {
                    server::search(side, &query, &filter, &call.cancel)
                        .await
                        .map_err(texts::search_failed)
                }
                (None, side) => Err(texts::no_backend(
                    side.as_ref().map_or("session's", |s| s.provider()),
                )),
            }
        };
        let parts = tokio::select! {
            parts = search => parts,
            () = call.cancel.cancelled() => {
                return Ok(ToolOutput::error(tools_texts::cancelled(WEB_SEARCH_TOOL_NAME)));
            }
        };
        Ok(match parts {
            Ok(parts) => ToolOutput::text(results::render(&query, &filter.apply(parts))),
            Err(reason) => ToolOutput::error(reason),
        })
    }

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(WEB_SEARCH_TOOL_NAME, texts::DESCRIPTION)
            .only_reads()
            .with_search_hint("search the web for current information")
            .with_result_limit(ResultLimit::PersistOver(WEB_SEARCH_MAX_RESULT_SIZE_CHARS))
    }
}
