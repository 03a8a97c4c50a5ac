//! Deferred tools and `ToolSearch`: the tools that may be deferred
//! ([`Tool::should_defer`] and not [`Tool::always_load`]: MCP tools) are
//! deferred by default, as Claude Code 2.1.332 does (the small-model
//! profile defers them only past a share of its small window): the
//! request carries only their names — one compact block in the
//! `ToolSearch` tool's description, an MCP server's tools on one line
//! after their shared `mcp__SERVER__` prefix — and the model loads full
//! definitions with
//! `ToolSearch` (keywords, or `select:NAME,NAME`). Loaded tools are sent
//! in `tools` from the next request on and stay for the session (the
//! prompt prefix stays stable for caching); a resume finds them again in
//! the history (the first line of each `ToolSearch` result names them) and,
//! for those loaded before a compaction dropped that history, in the
//! compaction boundary's record (`loaded_tools`).
//!
//! While MCP servers are still connecting, `ToolSearch` is offered too (its
//! description says so) and a search waits for them.
//!
//! The engine decides (`ENABLE_TOOL_SEARCH`: on — the default —, off, or
//! auto at a percentage, 10% unless given); tools only declare whether
//! they may be deferred. A deferred tool the model calls without loading
//! it still runs.
//!
//! Data flow: `tool_specs` (per request) → `DeferredTools::plan` → the
//! specs of every tool but the unloaded deferred ones, and `ToolSearch`
//! described with the deferred names; a `ToolSearch` call → `search` over
//! the registry's deferred tools → names added to the shared loaded set →
//! the definitions as the result text.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use orbit_model::ToolSpec;
use orbit_protocol::{ContentBlock, Message, ToolResultContent};
use orbit_tool::{
    CallContext, CallFacts, Tool, ToolError, ToolInfo, ToolOutput, ToolRegistry, ToolUseContext,
    TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;

/// The tool's name, as the model calls it.
pub const TOOL_SEARCH_NAME: &str = "ToolSearch";
/// Auto mode's threshold unless one is given (`auto`, and the small-model
/// profile's default): defer when deferrable definitions pass this
/// percentage of the context window.
pub(crate) const TOOL_SEARCH_DEFAULT_PCT: f64 = 10.0;
/// Chars per token when sizing definitions against the window: JSON
/// schemas are token-dense (quotes, braces, short keys), about 3 chars per
/// token rather than prose's 4.
const SCHEMA_CHARS_PER_TOKEN: usize = 3;
/// How many tools a keyword search loads by default.
const DEFAULT_MAX_RESULTS: usize = 5;
/// The first line of a result, before the names it loaded.
const LOADED_PREFIX: &str = "Loaded tools: ";

const TOOL_SEARCH_DESCRIPTION: &str = "Loads the full definitions of deferred tools so they can be called. \
Query by keywords (matched against names and descriptions; `+word` requires the word in the name) or load exact tools with `select:NAME,NAME`. \
Loaded tools can be called from the next turn on. Deferred tools (names only; \
`mcp__SERVER__: a, b` lists the tools `mcp__SERVER__a` and `mcp__SERVER__b`):";

/// The last line of a result: small models otherwise answer from the
/// definitions instead of calling the tool.
const AFTER_LOADING: &str = "These tools are now available: call the one that fits (with its input) to get the real answer.";
/// The last line of the deferred names while MCP servers connect.
const STILL_CONNECTING: &str = "(more MCP tools are connecting: a search waits for them)";

/// `ENABLE_TOOL_SEARCH`: when deferrable tools are deferred.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum ToolSearchMode {
    /// Always (when there is a deferrable tool): the default, as in Claude
    /// Code 2.1.332.
    #[default]
    On,
    /// Never: every tool is sent in full.
    Off,
    /// When deferrable definitions pass this percentage of the window.
    Auto(f64),
}

impl ToolSearchMode {
    /// Auto at the default threshold (10% of the window).
    pub fn auto() -> Self {
        ToolSearchMode::Auto(TOOL_SEARCH_DEFAULT_PCT)
    }

    /// The mode when `ENABLE_TOOL_SEARCH` is not set: on, except for the
    /// small-model profile (`small`), whose few tools and small window
    /// keep the auto threshold.
    pub fn profile_default(small: bool) -> Self {
        if small { Self::auto() } else { Self::On }
    }

    /// `true`/`1` → on, `false`/`0` → off, `auto` → auto at 10%, `auto:N` →
    /// auto at N%; None for anything else.
    pub fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "on" => Some(Self::On),
            "false" | "0" | "off" => Some(Self::Off),
            "auto" => Some(Self::auto()),
            other => other
                .strip_prefix("auto:")
                .and_then(|n| n.parse::<f64>().ok())
                .filter(|n| (0.0..=100.0).contains(n))
                .map(Self::Auto),
        }
    }
}

/// The session's deferral state, shared with its `ToolSearch` tool.
#[derive(Debug, Clone)]
pub(crate) struct DeferredTools {
    mode: ToolSearchMode,
    window_tokens: u64,
    /// Deferred tools the model loaded, in load order.
    loaded: Arc<Mutex<Vec<String>>>,
}

impl Default for DeferredTools {
    fn default() -> Self {
        // Before the engine sets the model's: the default model's window.
        let window_tokens = orbit_model::catalog::context_window_tokens(
            orbit_model::catalog::default_model(orbit_model::catalog::Provider::Anthropic),
        );
        Self::new(ToolSearchMode::default(), window_tokens)
    }
}

impl DeferredTools {
    pub(crate) fn new(mode: ToolSearchMode, window_tokens: u64) -> Self {
        Self {
            mode,
            window_tokens,
            loaded: Arc::default(),
        }
    }

    /// Marks `names` loaded (a resume replays them from the history).
    pub(crate) fn load(&self, names: impl IntoIterator<Item = String>) {
        let mut loaded = lock(&self.loaded);
        for name in names {
            if !loaded.contains(&name) {
                loaded.push(name);
            }
        }
    }

    /// How many tools are loaded (grows when a ToolSearch call loads some).
    pub(crate) fn loaded_count(&self) -> usize {
        lock(&self.loaded).len()
    }

    /// The loaded tools, in load order (a compaction boundary keeps them).
    pub(crate) fn loaded(&self) -> Vec<String> {
        lock(&self.loaded).clone()
    }

    fn is_loaded(&self, name: &str) -> bool {
        lock(&self.loaded).iter().any(|n| n == name)
    }

    /// The `ToolSearch` tool of this session, searching `registry` (the
    /// session's other tools).
    pub(crate) fn tool(&self, registry: ToolRegistry) -> Arc<dyn Tool> {
        orbit_tool::typed(ToolSearchTool {
            registry,
            deferred: self.clone(),
        })
    }

    /// The specs of one request. While `pending` (MCP servers connecting)
    /// ToolSearch is offered too, unless deferral is off: it waits for them.
    pub(crate) fn plan(&self, tools: &[Arc<dyn Tool>], pending: bool) -> Vec<ToolSpec> {
        let deferrable = |t: &Arc<dyn Tool>| t.should_defer() && !t.always_load();
        let active = match self.mode {
            ToolSearchMode::Off => false,
            ToolSearchMode::On => tools.iter().any(deferrable),
            ToolSearchMode::Auto(pct) => {
                let chars: usize = tools
                    .iter()
                    .filter(|t| deferrable(t))
                    .map(|t| spec_chars(t.as_ref()))
                    .sum();
                let tokens = (chars / SCHEMA_CHARS_PER_TOKEN) as f64;
                tokens > self.window_tokens as f64 * pct / 100.0
            }
        };
        let offer_search = active || (pending && self.mode != ToolSearchMode::Off);
        let mut names = Vec::new();
        let mut specs = Vec::new();
        let mut search = None;
        for tool in tools {
            if tool.name() == TOOL_SEARCH_NAME {
                search = Some(tool);
            } else if active && deferrable(tool) && !self.is_loaded(tool.name()) {
                names.push(tool.name());
            } else {
                specs.push(spec(tool.as_ref()));
            }
        }
        if let Some(search) = search.filter(|_| offer_search) {
            let mut spec = spec(search.as_ref());
            let mut list = compact_names(&names);
            if pending {
                list.push(STILL_CONNECTING.to_string());
            }
            spec.description = format!("{TOOL_SEARCH_DESCRIPTION}\n{}", list.join("\n"));
            specs.push(spec);
        }
        specs
    }
}

/// The deferred names as the request lists them, compact: the tools of one
/// MCP server on one line after their shared prefix
/// (`mcp__SERVER__: a, b`, in first-seen order), any other name on a line
/// of its own. 156 tools of 12 servers take about 3 KB instead of 5.
fn compact_names(names: &[&str]) -> Vec<String> {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for name in names {
        match mcp_prefix(name) {
            Some((prefix, tool)) => match groups.iter_mut().find(|(p, _)| *p == prefix) {
                Some((_, tools)) => tools.push(tool),
                None => groups.push((prefix, vec![tool])),
            },
            None => groups.push((name, Vec::new())),
        }
    }
    groups
        .into_iter()
        .map(|(head, tools)| match tools.as_slice() {
            [] => head.to_string(),
            _ => format!("{head}: {}", tools.join(", ")),
        })
        .collect()
}

/// `mcp__SERVER__TOOL` split after its server prefix: (`mcp__SERVER__`,
/// `TOOL`); None for a name without one.
fn mcp_prefix(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("mcp__")?;
    let end = "mcp__".len() + rest.find("__")? + "__".len();
    let tool = &name[end..];
    (!tool.is_empty()).then(|| (&name[..end], tool))
}

/// A tool's spec as a request carries it.
pub(crate) fn spec(tool: &dyn Tool) -> ToolSpec {
    ToolSpec {
        name: tool.name().to_string(),
        description: tool.description().to_string(),
        input_schema: tool.input_schema().clone(),
    }
}

fn spec_chars(tool: &dyn Tool) -> usize {
    tool.name().len() + tool.description().len() + tool.input_schema().to_string().len()
}

/// Input of `ToolSearch`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ToolSearchInput {
    /// Keywords, or `select:NAME,NAME` for exact tools.
    query: String,
    /// At most this many tools for a keyword query (default 5).
    #[serde(default)]
    max_results: Option<usize>,
}

struct ToolSearchTool {
    registry: ToolRegistry,
    deferred: DeferredTools,
}

#[async_trait]
impl TypedTool for ToolSearchTool {
    type Input = ToolSearchInput;
    type Plan = ToolSearchInput;

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(TOOL_SEARCH_NAME, TOOL_SEARCH_DESCRIPTION)
    }

    fn facts(&self, input: &ToolSearchInput, _ctx: &ToolUseContext) -> CallFacts {
        CallFacts::about(input.query.clone()).only_reads()
    }

    async fn validate(
        &self,
        input: ToolSearchInput,
        _ctx: &ToolUseContext,
    ) -> Result<ToolSearchInput, ToolError> {
        Ok(input)
    }

    async fn call(
        &self,
        plan: ToolSearchInput,
        _ctx: &ToolUseContext,
        _call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        // Servers still connecting: their tools may be the ones asked for.
        self.registry.wait_ready().await;
        let tools: Vec<Arc<dyn Tool>> = self
            .registry
            .tools()
            .into_iter()
            .filter(|t| t.should_defer())
            .collect();
        let found = search(
            &tools,
            &plan.query,
            plan.max_results.unwrap_or(DEFAULT_MAX_RESULTS).max(1),
        );
        if found.is_empty() {
            return Ok(ToolOutput::text(format!(
                "No deferred tool matches \"{}\". Try other keywords.",
                plan.query
            )));
        }
        self.deferred
            .load(found.iter().map(|t| t.name().to_string()));
        let names: Vec<&str> = found.iter().map(|t| t.name()).collect();
        let mut text = format!("{LOADED_PREFIX}{}\n<functions>\n", names.join(", "));
        for tool in &found {
            let definition = serde_json::json!({
                "name": tool.name(),
                "description": tool.description(),
                "input_schema": tool.input_schema(),
            });
            text.push_str(&format!("<function>{definition}</function>\n"));
        }
        text.push_str("</functions>\n");
        text.push_str(AFTER_LOADING);
        Ok(ToolOutput::text(text))
    }
}

/// The tools `query` finds: `select:A,B` by exact name (in that order; a
/// bare MCP tool name such as `echo` selects the one server's tool of that
/// name when only one has it), else by keywords — each term found in the
/// name scores 2, in the description 1, a `+word` must be in the name;
/// best first, ties in registry order.
pub(crate) fn search(tools: &[Arc<dyn Tool>], query: &str, max: usize) -> Vec<Arc<dyn Tool>> {
    if let Some(names) = query.trim().strip_prefix("select:") {
        return names
            .split(',')
            .filter_map(|n| select(tools, n.trim()))
            .collect();
    }
    let words: Vec<String> = query
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect();
    // `+word`: the word must be in the name (Claude Code's form); it
    // scores like any other term.
    let required: Vec<&str> = words.iter().filter_map(|w| w.strip_prefix('+')).collect();
    let terms: Vec<&str> = words
        .iter()
        .map(|w| w.trim_start_matches('+'))
        .filter(|t| !t.is_empty())
        .collect();
    let mut scored: Vec<(usize, usize)> = tools
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let name = t.name().to_lowercase();
            let description = t.description().to_lowercase();
            if !required.iter().all(|word| name.contains(word)) {
                return (0, i);
            }
            let score = terms
                .iter()
                .map(|term| {
                    2 * usize::from(name.contains(term)) + usize::from(description.contains(term))
                })
                .sum();
            (score, i)
        })
        .filter(|(score, _)| *score > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(max)
        .map(|(_, i)| Arc::clone(&tools[i]))
        .collect()
}

/// The tool named `name`, else the only MCP tool whose name after its
/// server prefix is `name`.
fn select(tools: &[Arc<dyn Tool>], name: &str) -> Option<Arc<dyn Tool>> {
    if let Some(tool) = tools.iter().find(|t| t.name() == name) {
        return Some(Arc::clone(tool));
    }
    let mut by_tool = tools
        .iter()
        .filter(|t| mcp_prefix(t.name()).is_some_and(|(_, tool)| tool == name));
    match (by_tool.next(), by_tool.next()) {
        (Some(tool), None) => Some(Arc::clone(tool)),
        _ => None,
    }
}

/// The tools earlier `ToolSearch` calls of `history` loaded (the first
/// line of each successful result names them).
pub(crate) fn loaded_in(history: &[Message]) -> Vec<String> {
    let mut search_ids = Vec::new();
    let mut names = Vec::new();
    for message in history {
        for block in &message.content {
            match block {
                ContentBlock::ToolUse(u) if u.name == TOOL_SEARCH_NAME => {
                    search_ids.push(u.id.clone());
                }
                ContentBlock::ToolResult(r) if search_ids.contains(&r.tool_use_id) => {
                    let text = match &r.content {
                        ToolResultContent::Text(t) => t.as_str(),
                        ToolResultContent::Blocks(_) => "",
                    };
                    if let Some(list) = text
                        .lines()
                        .next()
                        .and_then(|l| l.strip_prefix(LOADED_PREFIX))
                    {
                        names.extend(list.split(", ").map(str::to_string));
                    }
                }
                _ => {}
            }
        }
    }
    names
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_mcp_servers_tools_share_one_line() {
        let names = [
            "mcp__a__echo",
            "mcp__b__echo",
            "mcp__a__get-sum",
            "Plain",
            "mcp__x",
        ];
        assert_eq!(
            compact_names(&names),
            [
                "mcp__a__: echo, get-sum",
                "mcp__b__: echo",
                "Plain",
                "mcp__x"
            ]
        );
        assert_eq!(mcp_prefix("mcp__srv__t__u"), Some(("mcp__srv__", "t__u")));
        assert_eq!(mcp_prefix("mcp__srv__"), None);
    }

    #[test]
    fn the_default_defers_except_for_the_small_profile() {
        assert_eq!(ToolSearchMode::default(), ToolSearchMode::On);
        assert_eq!(
            ToolSearchMode::profile_default(true),
            ToolSearchMode::Auto(TOOL_SEARCH_DEFAULT_PCT)
        );
        assert_eq!(ToolSearchMode::profile_default(false), ToolSearchMode::On);
        assert_eq!(ToolSearchMode::parse("auto"), Some(ToolSearchMode::auto()));
        assert_eq!(
            ToolSearchMode::parse("auto:5"),
            Some(ToolSearchMode::Auto(5.0))
        );
        assert_eq!(ToolSearchMode::parse("false"), Some(ToolSearchMode::Off));
        assert_eq!(ToolSearchMode::parse("maybe"), None);
    }
}
