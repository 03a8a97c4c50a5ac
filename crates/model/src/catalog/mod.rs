//! The model catalog: every fact orbit holds about a model, in one table —
//! id, aliases, context window, output limit, price, thinking / effort
//! support, whether it takes images — plus each provider's default model
//! and *small fast model*. Nothing else in orbit holds a model number: the
//! engine's window and compaction thresholds, `total_cost_usd`,
//! `modelUsage`, the default `max_tokens`, the config's aliases and
//! defaults and the local server's `-c` all read this module.
//!
//! Data flow: a model name (as the user, the config or a server spelled it)
//! → [`lookup`]: lowercased, a `[1m]` marker noted and removed, then
//! 1. the exact id of an entry (`claude-sonnet-4-5`, `gpt-4.1`),
//! 2. an alias (`sonnet`, `opus`, `haiku`; trimmed, any case; the config
//!    resolves them to ids for the Anthropic provider only, but a lookup
//!    takes them whatever the provider),
//! 3. the family: a Claude name anywhere in the id (`claude-…`, also
//!    dated, `anthropic/…`-prefixed and Bedrock / Vertex spellings such as
//!    `us.anthropic.claude-sonnet-4-5-20250929-v1:0`) resolves to the
//!    entry of its line (opus / sonnet / haiku) with the highest version
//!    not above the id's (`claude-opus-4-9` → Opus 4.8's facts,
//!    `claude-opus-4-2` → Opus 4.1's), else the line's oldest; other
//!    claude ids get the generic Claude entry; any other id is matched by
//!    the first family pattern it contains (`gpt-4.1-mini` → `gpt-4.1`),
//!    in table order;
//! 4. else [`FALLBACK`] (a 128,000-token window, no price: orbit cannot
//!    know the price of a model it does not know, and a budget limit must
//!    not fire on made-up numbers).
//!
//! The table is split by provider: `anthropic` (Claude), `openai`, `local`
//! (orbit's llama.cpp model and the open families an OpenAI-compatible
//! server runs). Each row says which [`Provider`]s can run it; `providers`
//! answers `/model`: what a provider lists and accepts ([`check_model`],
//! [`choices`]).

mod anthropic;
mod cloud;
mod effort;
mod local;
mod openai;
mod pricing;
mod providers;

use orbit_protocol::Usage;

pub use anthropic::{ClaudeLine, OPUSPLAN};
pub use cloud::{VERTEX_REGION_VARS, bedrock_model_id, vertex_model_id, vertex_region_var};
pub use effort::{Effort, EffortChoice, EffortSupport};
pub use local::{LOCAL_CONTEXT_WINDOW_TOKENS, LOCAL_MODEL_ID};
pub use pricing::{CACHE_READ_MULTIPLIER, CACHE_WRITE_5M_MULTIPLIER, Pricing};
pub use providers::{ModelRefused, check_model, choices};

/// orbit's `max_tokens` for a model the catalog does not know (Claude
/// Code's 32,000): the engine's `EngineConfig::max_tokens` starts here;
/// a session sets its model's [`ModelFacts::default_output_tokens`]
/// ([`default_output_tokens`]).
pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 32_000;

/// The `max_tokens` a client sends when a [`crate::ModelRequest`] leaves it
/// at 0 (a library caller building requests by hand; the engine always
/// sets one).
pub const CLIENT_DEFAULT_MAX_TOKENS: u32 = 8_192;

/// The marker asking for a Claude model's 1M-token context window
/// (Claude Code's `claude-sonnet-4-5[1m]` spelling).
pub const LONG_CONTEXT_MARKER: &str = "[1m]";

/// The window of a model named with [`LONG_CONTEXT_MARKER`], in tokens.
pub const LONG_CONTEXT_WINDOW_TOKENS: u64 = 1_000_000;

/// The window assumed for a model the catalog does not know, in tokens.
pub const FALLBACK_CONTEXT_WINDOW_TOKENS: u64 = 128_000;

/// The context size Claude Code's status-line JSON compares with
/// (`exceeds_200k_tokens`: the older models' window and the long-context
/// pricing threshold).
pub const STATUS_LINE_LARGE_CONTEXT_TOKENS: u64 = 200_000;

/// A model provider, as the catalog knows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// The Anthropic Messages API.
    Anthropic,
    /// An OpenAI-compatible chat-completions server.
    OpenAi,
    /// orbit's local llama.cpp model.
    Local,
}

/// How a model can be asked to think before answering (Anthropic's
/// `thinking` request field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thinking {
    /// No extended thinking orbit can ask for.
    None,
    /// `thinking: {type: enabled, budget_tokens}`.
    Budget,
    /// `thinking: {type: adaptive}` (the model picks its budget); a budget
    /// asked for is not sent (Claude Code 2.1.332 sends adaptive thinking
    /// whatever `MAX_THINKING_TOKENS` says).
    Adaptive,
}

/// What orbit knows about one model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelFacts {
    /// The id sent to the provider (for a family entry, its pattern).
    pub id: &'static str,
    /// Short names resolved to [`Self::id`] (`--model sonnet`).
    pub aliases: &'static [&'static str],
    /// The whole context window, in tokens.
    pub context_window_tokens: u64,
    /// The most output tokens one reply may have (the provider's limit;
    /// `CLAUDE_CODE_MAX_OUTPUT_TOKENS` and `--max-tokens` are capped here).
    pub max_output_tokens: u32,
    /// The `max_tokens` a request asks for unless told otherwise (Claude
    /// Code's per-model default: 128,000 for Opus 5.5, 32,000 for Sonnet
    /// 4.5).
    pub default_output_tokens: u32,
    /// The price; None when orbit does not price the model (cost 0).
    pub pricing: Option<Pricing>,
    /// Extended thinking the model supports.
    pub thinking: Thinking,
    /// Whether the model refuses thinking turned off (Claude Code's
    /// `rejects_disabled_thinking`): its requests carry thinking even with
    /// `--thinking disabled`.
    pub thinking_required: bool,
    /// Whether the model takes a reasoning-effort setting (Anthropic's
    /// `effort`, OpenAI's `reasoning_effort`).
    pub effort: bool,
    /// The Anthropic `output_config.effort` levels the model takes and its
    /// default; None = the request carries no effort.
    pub effort_levels: Option<EffortSupport>,
    /// Whether the Anthropic request carries Claude Code's
    /// `context_management` edits (clearing old thinking) when thinking is on.
    pub context_management: bool,
    /// Whether the model takes images.
    pub images: bool,
}

/// The facts of a model known only by its window and output limit: no
/// aliases, no price, no thinking or effort, no images; a request asks
/// for [`DEFAULT_MAX_OUTPUT_TOKENS`]. [`FALLBACK`], the open families and
/// the OpenAI rows start from it.
const fn plain(id: &'static str, window_tokens: u64, max_output_tokens: u32) -> ModelFacts {
    ModelFacts {
        id,
        aliases: &[],
        context_window_tokens: window_tokens,
        max_output_tokens,
        default_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
        pricing: None,
        thinking: Thinking::None,
        thinking_required: false,
        effort: false,
        effort_levels: None,
        context_management: false,
        images: false,
    }
}

/// The facts assumed for a model the catalog does not know.
pub const FALLBACK: ModelFacts = plain(
    "",
    FALLBACK_CONTEXT_WINDOW_TOKENS,
    DEFAULT_MAX_OUTPUT_TOKENS,
);

/// How an id names an entry in the family step of [`lookup`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    /// A Claude line and the version of this entry.
    Claude(anthropic::Line, (u32, u32)),
    /// A claude id naming no line orbit knows.
    OtherClaude,
    /// Ids containing this pattern.
    Contains(&'static str),
}

/// One row of the table.
#[derive(Debug)]
struct Entry {
    facts: ModelFacts,
    family: Family,
    /// The providers that can run the model (`providers`).
    runs_on: &'static [Provider],
    /// Whether `/model` lists it (false for a family-only row such as
    /// `claude` or `qwen`, which names no model one can ask for).
    listed: bool,
}

/// The table, in the order the family step tries it: orbit's local model
/// first, as its id names an open family too.
const TABLE: [&[Entry]; 4] = [
    &anthropic::MODELS,
    &local::MODELS,
    &openai::MODELS,
    &local::OPEN_FAMILIES,
];

/// Which step of [`lookup`] found the facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matched {
    /// The exact id of an entry.
    Id,
    /// An alias of an entry.
    Alias,
    /// The family of a dated, prefixed or newer id.
    Family,
    /// Nothing: [`FALLBACK`].
    Fallback,
}

/// What [`lookup`] found for a name.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lookup {
    /// The facts (the window is [`LONG_CONTEXT_WINDOW_TOKENS`] for a name
    /// with [`LONG_CONTEXT_MARKER`]).
    pub facts: ModelFacts,
    /// How they were found.
    pub matched: Matched,
}

/// Every model of the table (family entries included).
pub fn models() -> impl Iterator<Item = &'static ModelFacts> {
    TABLE
        .iter()
        .flat_map(|group| group.iter().map(|e| &e.facts))
}

/// The facts of `model`, by exact id, alias, family or fallback (see the
/// module docs).
pub fn lookup(model: &str) -> Lookup {
    let lower = model.trim().to_ascii_lowercase();
    let long_context = lower.contains(LONG_CONTEXT_MARKER);
    let name = lower.replace(LONG_CONTEXT_MARKER, "");
    let found = find(&name);
    let (mut facts, matched) =
        found.map_or((FALLBACK, Matched::Fallback), |(e, how)| (e.facts, how));
    if long_context {
        facts.context_window_tokens = LONG_CONTEXT_WINDOW_TOKENS;
    }
    Lookup { facts, matched }
}

/// The row a lowercased name without the long-context marker names: exact
/// id, alias, then family.
fn find(name: &str) -> Option<(&'static Entry, Matched)> {
    let entries = || TABLE.iter().flat_map(|group| group.iter());
    entries()
        .find(|e| e.facts.id == name)
        .map(|e| (e, Matched::Id))
        .or_else(|| {
            entries()
                .find(|e| e.facts.aliases.contains(&name))
                .map(|e| (e, Matched::Alias))
        })
        .or_else(|| by_family(name).map(|e| (e, Matched::Family)))
}

/// The family step of [`lookup`] for a lowercased name.
fn by_family(name: &str) -> Option<&'static Entry> {
    let entries = || TABLE.iter().flat_map(|group| group.iter());
    if name.contains(anthropic::ID_PREFIX) {
        let Some((line, version)) = anthropic::parse(name) else {
            return entries().find(|e| e.family == Family::OtherClaude);
        };
        let line_entries = || {
            entries().filter_map(move |e| match e.family {
                Family::Claude(l, v) if l == line => Some((e, v)),
                _ => None,
            })
        };
        return line_entries()
            .filter(|(_, v)| *v <= version)
            .max_by_key(|(_, v)| *v)
            .or_else(|| line_entries().min_by_key(|(_, v)| *v))
            .map(|(e, _)| e);
    }
    entries().find(|e| matches!(e.family, Family::Contains(p) if name.contains(p)))
}

/// The facts of `model` ([`lookup`] without how they were found).
pub fn facts(model: &str) -> ModelFacts {
    lookup(model).facts
}

/// The context window of `model`, in tokens.
pub fn context_window_tokens(model: &str) -> u64 {
    lookup(model).facts.context_window_tokens
}

/// The price of `model`, or None when orbit does not price it.
pub fn price(model: &str) -> Option<Pricing> {
    lookup(model).facts.pricing
}

/// What `usage` on `model` costs, in US dollars; 0 for a model orbit does
/// not price.
pub fn cost_usd(model: &str, usage: &Usage) -> f64 {
    price(model).map_or(0.0, |p| p.cost_usd(usage))
}

/// The number of aliases in the table.
const fn alias_count() -> usize {
    let mut count = 0;
    let mut g = 0;
    while g < TABLE.len() {
        let mut i = 0;
        while i < TABLE[g].len() {
            count += TABLE[g][i].facts.aliases.len();
            i += 1;
        }
        g += 1;
    }
    count
}

/// Every `(alias, id)` of the table, in table order.
pub const ALIASES: [(&str, &str); alias_count()] = {
    let mut out = [("", ""); alias_count()];
    let mut n = 0;
    let mut g = 0;
    while g < TABLE.len() {
        let mut i = 0;
        while i < TABLE[g].len() {
            let facts = &TABLE[g][i].facts;
            let mut a = 0;
            while a < facts.aliases.len() {
                out[n] = (facts.aliases[a], facts.id);
                n += 1;
                a += 1;
            }
            i += 1;
        }
        g += 1;
    }
    out
};

/// The model id an alias names (trimmed, ASCII case-insensitive, a
/// trailing [`LONG_CONTEXT_MARKER`] ignored: `sonnet[1m]` is Sonnet 5.5,
/// whose window is 1M anyway); any other name is returned as given.
pub fn resolve_alias(name: &str) -> &str {
    let trimmed = name.trim();
    let bare = strip_long_context(trimmed);
    ALIASES
        .iter()
        .find(|(alias, _)| bare.eq_ignore_ascii_case(alias))
        .map_or(name, |(_, id)| id)
}

/// `name` without a trailing [`LONG_CONTEXT_MARKER`] (any case).
pub fn strip_long_context(name: &str) -> &str {
    let at = name.len().saturating_sub(LONG_CONTEXT_MARKER.len());
    match name.get(at..) {
        Some(tail) if tail.eq_ignore_ascii_case(LONG_CONTEXT_MARKER) => &name[..at],
        _ => name,
    }
}

/// The Claude line an alias names (`opus`, `best` and `default` → Opus,
/// `sonnet` and `opusplan` → Sonnet, …), for the
/// `ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU}_MODEL` overrides; None for a
/// name that is no alias.
pub fn alias_line(name: &str) -> Option<ClaudeLine> {
    let id = resolve_alias(name);
    if id == name {
        return None;
    }
    anthropic::parse(id).map(|(line, _)| line)
}

/// The `max_tokens` a request for `model` asks for unless told otherwise
/// ([`ModelFacts::default_output_tokens`]).
pub fn default_output_tokens(model: &str) -> u32 {
    lookup(model).facts.default_output_tokens
}

/// What a provider uses when nothing else is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderDefaults {
    /// The provider.
    pub provider: Provider,
    /// Its model when none is set.
    pub default_model: &'static str,
    /// The model of its side requests (summaries, titles); None = the
    /// session's own model.
    pub small_fast_model: Option<&'static str>,
}

/// Each provider's defaults.
pub const PROVIDERS: [ProviderDefaults; 3] = [
    ProviderDefaults {
        provider: Provider::Anthropic,
        default_model: anthropic::DEFAULT_MODEL,
        small_fast_model: Some(anthropic::SMALL_FAST_MODEL),
    },
    ProviderDefaults {
        provider: Provider::OpenAi,
        default_model: openai::DEFAULT_MODEL,
        small_fast_model: None,
    },
    ProviderDefaults {
        provider: Provider::Local,
        default_model: LOCAL_MODEL_ID,
        small_fast_model: None,
    },
];

/// The defaults of `provider`.
pub const fn defaults(provider: Provider) -> ProviderDefaults {
    match provider {
        Provider::Anthropic => PROVIDERS[0],
        Provider::OpenAi => PROVIDERS[1],
        Provider::Local => PROVIDERS[2],
    }
}

/// The model `provider` uses when none is set.
pub const fn default_model(provider: Provider) -> &'static str {
    defaults(provider).default_model
}

/// The model of `provider`'s side requests: `configured` if set, else the
/// provider's small fast model (Claude Code's haiku for Anthropic), else
/// `main_model` (OpenAI-compatible and local servers: the one model they
/// run).
pub fn small_fast_model<'a>(
    provider: Provider,
    main_model: &'a str,
    configured: Option<&'a str>,
) -> &'a str {
    configured
        .or(defaults(provider).small_fast_model)
        .unwrap_or(main_model)
}
