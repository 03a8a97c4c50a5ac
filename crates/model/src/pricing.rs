//! Token prices of Claude models, turning [`Usage`] into US dollars
//! (`total_cost_usd` of the result, `--max-budget-usd`).
//!
//! Models are matched by family and version found in the name, so dated ids
//! (`claude-sonnet-4-5-20250929`), aliases (`claude-sonnet-4-5`) and
//! provider-prefixed ids (`anthropic/claude-…`, `us.anthropic.claude-…-v1:0`)
//! all resolve. Prompt-cache writes (5-minute TTL, what orbit requests) cost
//! 1.25× the input price, cache reads 0.1×. Unknown models (local models,
//! other providers) cost 0: orbit cannot know their price, and a budget
//! limit must not fire on made-up numbers. Long-context (>200k) surcharges
//! are not modelled.

use orbit_protocol::Usage;

/// Price per million tokens, in US dollars.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelPrice {
    /// Price of a million input tokens, in US dollars.
    pub input_per_mtok_usd: f64,
    /// Price of a million output tokens, in US dollars.
    pub output_per_mtok_usd: f64,
}

/// Cache write price as a multiple of the input price (5-minute TTL).
pub(crate) const CACHE_WRITE_MULTIPLIER: f64 = 1.25;
/// Cache read price as a multiple of the input price.
pub(crate) const CACHE_READ_MULTIPLIER: f64 = 0.1;

const TOKENS_PER_MTOK: f64 = 1_000_000.0;

const fn price(input: f64, output: f64) -> ModelPrice {
    ModelPrice {
        input_per_mtok_usd: input,
        output_per_mtok_usd: output,
    }
}

/// Opus 4.5 and later.
const OPUS_NEW: ModelPrice = price(5.0, 25.0);
/// Opus 3, 4 and 4.1.
const OPUS_OLD: ModelPrice = price(15.0, 75.0);
/// Sonnet 3.5, 3.7 and 4.x.
const SONNET: ModelPrice = price(3.0, 15.0);
const HAIKU_4_5: ModelPrice = price(1.0, 5.0);
const HAIKU_3_5: ModelPrice = price(0.8, 4.0);
const HAIKU_3: ModelPrice = price(0.25, 1.25);

/// `(major, minor)` of the version right after `family-` (`opus-4-5` →
/// (4, 5); `opus-4-20250514` → (4, 0): an 8-digit date is not a minor).
fn version_after(name: &str, family: &str) -> Option<(u32, u32)> {
    let rest = &name[name.find(&format!("{family}-"))? + family.len() + 1..];
    let mut parts = rest.split(['-', '.', '@', ':']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts
        .next()
        .filter(|p| p.len() <= 2)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    Some((major, minor))
}

/// The price of a model, or None when unknown.
pub fn model_price(model: &str) -> Option<ModelPrice> {
    let name = model.to_ascii_lowercase();
    if !name.contains("claude") {
        return None;
    }
    // Claude 3.x names put the version first: claude-3-5-haiku, claude-3-opus.
    if name.contains("claude-3") {
        return if name.contains("opus") {
            Some(OPUS_OLD)
        } else if name.contains("sonnet") {
            Some(SONNET)
        } else if name.contains("3-5-haiku") {
            Some(HAIKU_3_5)
        } else if name.contains("haiku") {
            Some(HAIKU_3)
        } else {
            None
        };
    }
    if let Some((major, minor)) = version_after(&name, "opus") {
        return Some(if (major, minor) >= (4, 5) {
            OPUS_NEW
        } else {
            OPUS_OLD
        });
    }
    if version_after(&name, "sonnet").is_some() {
        return Some(SONNET);
    }
    if let Some(version) = version_after(&name, "haiku") {
        return Some(if version >= (4, 5) {
            HAIKU_4_5
        } else {
            HAIKU_3_5
        });
    }
    None
}

/// Cost in US dollars of `usage` on `model`; 0 for unknown models.
pub fn cost_usd(model: &str, usage: &Usage) -> f64 {
    let Some(p) = model_price(model) else {
        return 0.0;
    };
    let input = usage.input_tokens as f64 * p.input_per_mtok_usd;
    let output = usage.output_tokens as f64 * p.output_per_mtok_usd;
    let cache_write =
        usage.cache_creation_input_tokens as f64 * p.input_per_mtok_usd * CACHE_WRITE_MULTIPLIER;
    let cache_read =
        usage.cache_read_input_tokens as f64 * p.input_per_mtok_usd * CACHE_READ_MULTIPLIER;
    (input + output + cache_write + cache_read) / TOKENS_PER_MTOK
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64, write: u64, read: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            cache_creation_input_tokens: write,
            cache_read_input_tokens: read,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn families_resolve() {
        let cases = [
            ("claude-opus-4-5-20251101", OPUS_NEW),
            ("claude-opus-4-6", OPUS_NEW),
            ("claude-opus-4-1-20250805", OPUS_OLD),
            ("claude-opus-4-20250514", OPUS_OLD),
            ("claude-opus-4-0", OPUS_OLD),
            ("claude-3-opus-20240229", OPUS_OLD),
            ("claude-sonnet-4-5-20250929", SONNET),
            ("claude-sonnet-4-20250514", SONNET),
            ("claude-3-7-sonnet-latest", SONNET),
            ("claude-3-5-sonnet-20241022", SONNET),
            ("claude-haiku-4-5", HAIKU_4_5),
            ("claude-3-5-haiku-20241022", HAIKU_3_5),
            ("claude-3-haiku-20240307", HAIKU_3),
            ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", SONNET),
            ("anthropic/claude-opus-4.5", OPUS_NEW),
            ("Claude-Haiku-4-5", HAIKU_4_5),
        ];
        for (model, want) in cases {
            assert_eq!(model_price(model), Some(want), "{model}");
        }
    }

    #[test]
    fn unknown_models_cost_nothing() {
        for m in ["gpt-4o", "qwen2.5-coder", "", "claude", "claude-instant-1"] {
            assert_eq!(model_price(m), None, "{m}");
            assert_eq!(cost_usd(m, &usage(1_000_000, 1_000_000, 0, 0)), 0.0);
        }
    }

    #[test]
    fn cost_counts_every_kind_of_token() {
        // Sonnet: $3 in, $15 out, $3.75 cache write, $0.30 cache read per MTok.
        let c = cost_usd(
            "claude-sonnet-4-5",
            &usage(1_000_000, 1_000_000, 1_000_000, 1_000_000),
        );
        assert!(close(c, 3.0 + 15.0 + 3.75 + 0.3), "{c}");
        let cases = [
            // 100 in / 20 out on Sonnet = 0.0003 + 0.0003.
            ("claude-sonnet-4-5", usage(100, 20, 0, 0), 0.0006),
            ("claude-opus-4-1", usage(0, 1000, 0, 0), 0.075),
            ("claude-opus-4-5", usage(0, 1000, 0, 0), 0.025),
            ("claude-haiku-4-5", usage(1000, 0, 0, 2000), 0.0012),
        ];
        for (model, usage, want) in cases {
            let c = cost_usd(model, &usage);
            assert!(close(c, want), "{model}: {c}");
        }
    }
}
