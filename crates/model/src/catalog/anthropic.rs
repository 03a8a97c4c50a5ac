//! Claude models: their rows of the catalog and the parser that reads a
//! Claude id's line and version (`claude-opus-4-5-20251101` → Opus 4.5,
//! `claude-3-5-haiku-latest` → Haiku 3.5), which the catalog's family step
//! uses. Windows are the API's standard 200,000 tokens (1M with the
//! `[1m]` marker); output limits, prices and thinking support as Anthropic
//! documents them.

use super::{Entry, Family, ModelFacts, Pricing, Thinking};

/// What every Claude id contains.
pub(super) const ID_PREFIX: &str = "claude-";

/// The Anthropic provider's model when none is set.
pub(super) const DEFAULT_MODEL: &str = "claude-sonnet-4-5";

/// The model of the Anthropic provider's side requests (Claude Code's
/// haiku).
pub(super) const SMALL_FAST_MODEL: &str = "claude-haiku-4-5";

/// A Claude model line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Line {
    Opus,
    Sonnet,
    Haiku,
}

impl Line {
    const ALL: [Line; 3] = [Line::Opus, Line::Sonnet, Line::Haiku];

    fn name(self) -> &'static str {
        match self {
            Line::Opus => "opus",
            Line::Sonnet => "sonnet",
            Line::Haiku => "haiku",
        }
    }
}

/// The standard Claude context window, in tokens.
const WINDOW_TOKENS: u64 = 200_000;

/// Opus 4.5 and later.
const OPUS_NEW: Pricing = Pricing::new(5.0, 25.0);
/// Opus 3, 4 and 4.1.
const OPUS_OLD: Pricing = Pricing::new(15.0, 75.0);
/// Sonnet 3.5, 3.7 and 4.x.
const SONNET: Pricing = Pricing::new(3.0, 15.0);
const HAIKU_4_5: Pricing = Pricing::new(1.0, 5.0);
const HAIKU_3_5: Pricing = Pricing::new(0.8, 4.0);
const HAIKU_3: Pricing = Pricing::new(0.25, 1.25);

/// One Claude model: id, aliases, line, version, output limit in tokens,
/// price, thinking, effort.
type Row = (
    &'static str,
    &'static [&'static str],
    Line,
    (u32, u32),
    u32,
    Pricing,
    Thinking,
    bool,
);

use Line::{Haiku, Opus, Sonnet};
use Thinking::{Adaptive, Budget, None as NoThinking};

/// The Claude models, newest of each line first.
#[rustfmt::skip]
const ROWS: [Row; 12] = [
    ("claude-opus-4-6", &["opus"], Opus, (4, 6), 128_000, OPUS_NEW, Adaptive, true),
    ("claude-opus-4-5", &[], Opus, (4, 5), 64_000, OPUS_NEW, Budget, true),
    ("claude-opus-4-1", &[], Opus, (4, 1), 32_000, OPUS_OLD, Budget, false),
    ("claude-opus-4-0", &[], Opus, (4, 0), 32_000, OPUS_OLD, Budget, false),
    ("claude-3-opus", &[], Opus, (3, 0), 4_096, OPUS_OLD, NoThinking, false),
    ("claude-sonnet-4-5", &["sonnet"], Sonnet, (4, 5), 64_000, SONNET, Budget, false),
    ("claude-sonnet-4-0", &[], Sonnet, (4, 0), 64_000, SONNET, Budget, false),
    ("claude-3-7-sonnet", &[], Sonnet, (3, 7), 64_000, SONNET, Budget, false),
    ("claude-3-5-sonnet", &[], Sonnet, (3, 5), 8_192, SONNET, NoThinking, false),
    ("claude-haiku-4-5", &["haiku"], Haiku, (4, 5), 64_000, HAIKU_4_5, Budget, false),
    ("claude-3-5-haiku", &[], Haiku, (3, 5), 8_192, HAIKU_3_5, NoThinking, false),
    ("claude-3-haiku", &[], Haiku, (3, 0), 4_096, HAIKU_3, NoThinking, false),
];

/// A claude id naming no line orbit knows (`claude-instant-1`): the window
/// every Claude model has, no price, nothing else assumed.
const OTHER_CLAUDE: Entry = Entry {
    facts: ModelFacts {
        id: "claude",
        aliases: &[],
        context_window_tokens: WINDOW_TOKENS,
        max_output_tokens: 4_096,
        pricing: None,
        thinking: NoThinking,
        effort: false,
        images: false,
    },
    family: Family::OtherClaude,
};

/// The Claude rows of the catalog ([`ROWS`], then [`OTHER_CLAUDE`]); every
/// Claude model takes images.
pub(super) const MODELS: [Entry; ROWS.len() + 1] = {
    let mut out = [OTHER_CLAUDE; ROWS.len() + 1];
    let mut i = 0;
    while i < ROWS.len() {
        let (id, aliases, line, version, max_output_tokens, pricing, thinking, effort) = ROWS[i];
        out[i] = Entry {
            facts: ModelFacts {
                id,
                aliases,
                context_window_tokens: WINDOW_TOKENS,
                max_output_tokens,
                pricing: Some(pricing),
                thinking,
                effort,
                images: true,
            },
            family: Family::Claude(line, version),
        };
        i += 1;
    }
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
