//! Claude models: their rows of the catalog and the parser that reads a
//! Claude id's line and version (`claude-opus-4-5-20251101` → Opus 4.5,
//! `claude-3-5-haiku-latest` → Haiku 3.5), which the catalog's family step
//! uses. Ids, aliases, windows, output limits (default and upper), prices,
//! thinking, effort levels and context management as Claude Code 2.1.332's
//! built-in model table has them (its `--model` handling: `opus`, `best`,
//! `default` → Opus 5.5; `sonnet`, `opusplan` → Sonnet 5.5 (`opusplan` is
//! Opus in plan mode, [`OPUSPLAN`]); `haiku` → Haiku 5.5; `fable` → Fable
//! 5.2; any of them with `[1m]`). The 4.x and 3.x models stay: users pin them.

use super::effort::{Effort, EffortSupport};
use super::{Entry, Family, ModelFacts, Pricing, Thinking};

/// What every Claude id contains.
pub(super) const ID_PREFIX: &str = "claude-";

/// The Anthropic provider's model when none is set (Claude Code's default
/// for an API key).
pub(super) const DEFAULT_MODEL: &str = "claude-opus-5-5";

/// The model of the Anthropic provider's side requests (Claude Code's
/// haiku).
pub(super) const SMALL_FAST_MODEL: &str = "claude-haiku-5-5";

/// The alias that is Sonnet outside plan mode and Opus in it.
pub const OPUSPLAN: &str = "opusplan";

/// A Claude model line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaudeLine {
    /// Opus.
    Opus,
    /// Sonnet.
    Sonnet,
    /// Haiku.
    Haiku,
    /// Fable.
    Fable,
    /// Mythos.
    Mythos,
}

impl ClaudeLine {
    const ALL: [ClaudeLine; 5] = [
        ClaudeLine::Opus,
        ClaudeLine::Sonnet,
        ClaudeLine::Haiku,
        ClaudeLine::Fable,
        ClaudeLine::Mythos,
    ];

    /// The line's name as ids spell it (`opus`).
    pub fn name(self) -> &'static str {
        match self {
            ClaudeLine::Opus => "opus",
            ClaudeLine::Sonnet => "sonnet",
            ClaudeLine::Haiku => "haiku",
            ClaudeLine::Fable => "fable",
            ClaudeLine::Mythos => "mythos",
        }
    }
}

pub(super) type Line = ClaudeLine;

/// The standard Claude context window, in tokens.
const WINDOW_TOKENS: u64 = 200_000;
/// The window of models with a native 1M context, in tokens.
const WINDOW_1M_TOKENS: u64 = 1_000_000;

/// Claude Code's `tier_4_20_cache_read_0_20` (Opus 5.5).
const OPUS_5_5: Pricing = Pricing::new(4.0, 20.0).cache_read(0.2);
/// `tier_5_25`: Opus 4.5 to 5.
const OPUS_NEW: Pricing = Pricing::new(5.0, 25.0);
/// `tier_15_75`: Opus 3, 4 and 4.1.
const OPUS_OLD: Pricing = Pricing::new(15.0, 75.0);
/// `tier_2_10_cache_read_0_10` (Sonnet 5.5).
const SONNET_5_5: Pricing = Pricing::new(2.0, 10.0).cache_read(0.1);
/// `tier_2_10` (Sonnet 5).
const SONNET_5: Pricing = Pricing::new(2.0, 10.0);
/// `tier_3_15`: Sonnet 3.5 to 4.6.
const SONNET: Pricing = Pricing::new(3.0, 15.0);
/// `haiku_55` above 100,000 prompt tokens.
const HAIKU_5_5_LONG: Pricing = Pricing::new(0.5, 2.5);
/// `haiku_55`.
const HAIKU_5_5: Pricing = Pricing::new(0.1, 0.5).long_prompt(100_000, &HAIKU_5_5_LONG);
const HAIKU_4_5: Pricing = Pricing::new(1.0, 5.0);
const HAIKU_3_5: Pricing = Pricing::new(0.8, 4.0);
const HAIKU_3: Pricing = Pricing::new(0.25, 1.25);
/// `tier_8_40_cache_read_0_20` (Fable / Mythos 5.2).
const FABLE_5_2: Pricing = Pricing::new(8.0, 40.0).cache_read(0.2);
/// `tier_10_50_cache_read_0_25` (Fable / Mythos 5.1).
const FABLE_5_1: Pricing = Pricing::new(10.0, 50.0).cache_read(0.25);
/// `tier_10_50` (Fable / Mythos 5).
const FABLE_5: Pricing = Pricing::new(10.0, 50.0);

/// Output limits in tokens: (default `max_tokens`, upper limit).
type Output = (u32, u32);

/// One Claude model: id, aliases, line, version, window in tokens, output
/// limits, price, thinking, effort, context management.
type Row = (
    &'static str,
    &'static [&'static str],
    Line,
    (u32, u32),
    u64,
    Output,
    Pricing,
    Thinking,
    Option<EffortSupport>,
    bool,
);

use ClaudeLine::{Fable, Haiku, Mythos, Opus, Sonnet};
use Effort::{High, Medium, XHigh};
use Thinking::{Adaptive, Budget, None as NoThinking};

const W: u64 = WINDOW_TOKENS;
const W1M: u64 = WINDOW_1M_TOKENS;
const ALL_MEDIUM: Option<EffortSupport> = Some(EffortSupport::all(Medium));
const ALL_HIGH: Option<EffortSupport> = Some(EffortSupport::all(High));
const NO_EFFORT: Option<EffortSupport> = None;

/// The Claude models, newest of each line first.
#[rustfmt::skip]
const ROWS: [Row; 25] = [
    ("claude-opus-5-5", &["opus", "best", "default"], Opus, (5, 5), W1M, (128_000, 128_000), OPUS_5_5, Adaptive, ALL_MEDIUM, true),
    ("claude-opus-5", &[], Opus, (5, 0), W1M, (64_000, 128_000), OPUS_NEW, Adaptive, ALL_HIGH, true),
    ("claude-opus-4-8", &[], Opus, (4, 8), W1M, (64_000, 128_000), OPUS_NEW, Adaptive, ALL_HIGH, true),
    ("claude-opus-4-7", &[], Opus, (4, 7), W1M, (64_000, 128_000), OPUS_NEW, Adaptive, Some(EffortSupport::all(XHigh)), true),
    ("claude-opus-4-6", &[], Opus, (4, 6), W, (64_000, 128_000), OPUS_NEW, Adaptive, Some(EffortSupport::WITH_MAX), true),
    ("claude-opus-4-5", &[], Opus, (4, 5), W, (32_000, 64_000), OPUS_NEW, Budget, Some(EffortSupport::BASIC), true),
    ("claude-opus-4-1", &[], Opus, (4, 1), W, (32_000, 32_000), OPUS_OLD, Budget, NO_EFFORT, true),
    ("claude-opus-4-0", &[], Opus, (4, 0), W, (32_000, 32_000), OPUS_OLD, Budget, NO_EFFORT, true),
    ("claude-3-opus", &[], Opus, (3, 0), W, (4_096, 4_096), OPUS_OLD, NoThinking, NO_EFFORT, false),
    ("claude-sonnet-5-5", &["sonnet", OPUSPLAN], Sonnet, (5, 5), W1M, (128_000, 128_000), SONNET_5_5, Adaptive, ALL_MEDIUM, true),
    ("claude-sonnet-5", &[], Sonnet, (5, 0), W1M, (64_000, 128_000), SONNET_5, Adaptive, ALL_HIGH, true),
    ("claude-sonnet-4-6", &[], Sonnet, (4, 6), W, (32_000, 128_000), SONNET, Adaptive, Some(EffortSupport::WITH_MAX), true),
    ("claude-sonnet-4-5", &[], Sonnet, (4, 5), W, (32_000, 64_000), SONNET, Budget, NO_EFFORT, true),
    ("claude-sonnet-4-0", &[], Sonnet, (4, 0), W, (32_000, 64_000), SONNET, Budget, NO_EFFORT, true),
    ("claude-3-7-sonnet", &[], Sonnet, (3, 7), W, (32_000, 64_000), SONNET, Budget, NO_EFFORT, false),
    ("claude-3-5-sonnet", &[], Sonnet, (3, 5), W, (8_192, 8_192), SONNET, NoThinking, NO_EFFORT, false),
    ("claude-haiku-5-5", &["haiku"], Haiku, (5, 5), W1M, (128_000, 128_000), HAIKU_5_5, Adaptive, ALL_MEDIUM, true),
    ("claude-haiku-4-5", &[], Haiku, (4, 5), W, (32_000, 64_000), HAIKU_4_5, Budget, NO_EFFORT, true),
    ("claude-3-5-haiku", &[], Haiku, (3, 5), W, (8_192, 8_192), HAIKU_3_5, NoThinking, NO_EFFORT, false),
    ("claude-3-haiku", &[], Haiku, (3, 0), W, (4_096, 4_096), HAIKU_3, NoThinking, NO_EFFORT, false),
    ("claude-fable-5-2", &["fable"], Fable, (5, 2), W1M, (128_000, 128_000), FABLE_5_2, Adaptive, ALL_MEDIUM, true),
    ("claude-fable-5-1", &[], Fable, (5, 1), W1M, (64_000, 128_000), FABLE_5_1, Adaptive, ALL_HIGH, true),
    ("claude-fable-5", &[], Fable, (5, 0), W1M, (64_000, 128_000), FABLE_5, Adaptive, ALL_HIGH, true),
    ("claude-mythos-5-2", &[], Mythos, (5, 2), W1M, (128_000, 128_000), FABLE_5_2, Adaptive, ALL_MEDIUM, true),
    ("claude-mythos-5-1", &[], Mythos, (5, 1), W1M, (64_000, 128_000), FABLE_5_1, Adaptive, ALL_HIGH, true),
];

/// Mythos 5: no thinking or effort orbit can ask for (Claude Code's table
/// gives it neither).
#[rustfmt::skip]
const MYTHOS_5: Row = ("claude-mythos-5", &[], Mythos, (5, 0), W1M, (64_000, 128_000), FABLE_5, NoThinking, NO_EFFORT, false);

/// A claude id naming no line orbit knows (`claude-instant-1`): the window
/// every Claude model has, no price, nothing else assumed.
const OTHER_CLAUDE: Entry = Entry {
    facts: ModelFacts {
        id: "claude",
        aliases: &[],
        context_window_tokens: WINDOW_TOKENS,
        max_output_tokens: 4_096,
        default_output_tokens: 4_096,
        pricing: None,
        thinking: NoThinking,
        thinking_required: false,
        effort: false,
        effort_levels: None,
        context_management: false,
        images: false,
    },
    family: Family::OtherClaude,
    runs_on: CLAUDE_PROVIDERS,
    listed: false,
};

/// Claude runs on the Anthropic provider (Bedrock and Vertex included).
const CLAUDE_PROVIDERS: &[super::Provider] = &[super::Provider::Anthropic];

/// The models whose thinking cannot be turned off (Claude Code's
/// `rejects_disabled_thinking`).
const THINKING_REQUIRED: [&str; 8] = [
    "claude-opus-5-5",
    "claude-sonnet-5-5",
    "claude-haiku-5-5",
    "claude-fable-5-2",
    "claude-fable-5-1",
    "claude-fable-5",
    "claude-mythos-5-2",
    "claude-mythos-5-1",
];

/// Whether `id` is in `ids` (a const fn: the table is built at compile time).
const fn listed(ids: &[&str], id: &str) -> bool {
    let mut i = 0;
    while i < ids.len() {
        let (a, b) = (ids[i].as_bytes(), id.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// One row as an entry; every Claude model takes images.
const fn entry(row: Row) -> Entry {
    let (id, aliases, line, version, window, output, pricing, thinking, effort, context) = row;
    Entry {
        facts: ModelFacts {
            id,
            aliases,
            context_window_tokens: window,
            max_output_tokens: output.1,
            default_output_tokens: output.0,
            pricing: Some(pricing),
            thinking,
            thinking_required: listed(&THINKING_REQUIRED, id),
            effort: effort.is_some(),
            effort_levels: effort,
            context_management: context,
            images: true,
        },
        family: Family::Claude(line, version),
        runs_on: CLAUDE_PROVIDERS,
        listed: true,
    }
}

/// The Claude rows of the catalog ([`ROWS`], Mythos 5, then
/// [`OTHER_CLAUDE`]).
pub(super) const MODELS: [Entry; ROWS.len() + 2] = {
    let mut out = [OTHER_CLAUDE; ROWS.len() + 2];
    let mut i = 0;
    while i < ROWS.len() {
        out[i] = entry(ROWS[i]);
        i += 1;
    }
    out[ROWS.len()] = entry(MYTHOS_5);
    out
};

/// The line and `(major, minor)` version a lowercased Claude id names, or
/// None. Claude 3 ids put the version first (`claude-3-5-haiku`,
/// `claude-3-opus`); later ones after the line (`claude-opus-4-5`,
/// `claude-opus-4-20250514`: an 8-digit date is not a minor).
pub(super) fn parse(name: &str) -> Option<(Line, (u32, u32))> {
    let old_style = format!("{ID_PREFIX}3");
    if let Some(at) = name.find(&old_style) {
        let line = Line::ALL.into_iter().find(|l| name.contains(l.name()))?;
        return Some((line, version(&name[at + ID_PREFIX.len()..])?));
    }
    Line::ALL.into_iter().find_map(|line| {
        let marker = format!("{}-", line.name());
        let rest = &name[name.find(&marker)? + marker.len()..];
        Some((line, version(rest)?))
    })
}

/// `(major, minor)` at the start of `rest` (`4-5-2025…` → (4, 5),
/// `4-20250514` → (4, 0), `4.5` → (4, 5)).
fn version(rest: &str) -> Option<(u32, u32)> {
    let mut parts = rest.split(['-', '.', '@', ':', '[']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts
        .next()
        .filter(|p| p.len() <= 2)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    Some((major, minor))
}
