//! Model prices: [`Pricing`] (US dollars per million tokens, with the
//! prompt-cache multipliers and a long-prompt price) and what one request's
//! [`Usage`] costs under it. The catalog's entries hold a `Pricing` each;
//! `catalog::cost_usd` looks the model up and calls [`Pricing::cost_usd`].

use orbit_protocol::Usage;

/// Prompt-cache writes with the 5-minute TTL (what orbit requests) cost
/// this multiple of the input price. orbit does not request the 1-hour TTL,
/// so the catalog holds no price for it.
pub const CACHE_WRITE_5M_MULTIPLIER: f64 = 1.25;

/// Prompt-cache reads cost this multiple of the input price.
pub const CACHE_READ_MULTIPLIER: f64 = 0.1;

/// Tokens in the "million tokens" prices are quoted per.
const TOKENS_PER_MTOK: f64 = 1_000_000.0;

/// A model's price per million tokens, in US dollars, as Claude Code
/// 2.1.332's own table has it (`total_cost_usd` is the same for the same
/// usage). Long-context (>200k) surcharges of 4.x models are not modelled;
/// a price with [`Self::long_prompt`] switches to that price for a request
/// whose prompt (input + cache writes + cache reads) is above its
/// threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pricing {
    /// Price of a million input tokens, in US dollars.
    pub input_per_mtok_usd: f64,
    /// Price of a million output tokens, in US dollars.
    pub output_per_mtok_usd: f64,
    /// Price of a million tokens written to the prompt cache (5-minute
    /// TTL), in US dollars.
    pub cache_write_5m_per_mtok_usd: f64,
    /// Price of a million tokens read from the prompt cache, in US dollars.
    pub cache_read_per_mtok_usd: f64,
    /// The price of a request whose prompt is above this many tokens.
    pub long_prompt: Option<(u64, &'static Pricing)>,
}

impl Pricing {
    /// A price of `input` and `output` US dollars per million tokens, cache
    /// writes at [`CACHE_WRITE_5M_MULTIPLIER`] and reads at
    /// [`CACHE_READ_MULTIPLIER`] times the input price.
    pub const fn new(input: f64, output: f64) -> Self {
        Self {
            input_per_mtok_usd: input,
            output_per_mtok_usd: output,
            cache_write_5m_per_mtok_usd: input * CACHE_WRITE_5M_MULTIPLIER,
            cache_read_per_mtok_usd: input * CACHE_READ_MULTIPLIER,
            long_prompt: None,
        }
    }

    /// This price with cache reads at `read` US dollars per million tokens.
    pub const fn cache_read(mut self, read: f64) -> Self {
        self.cache_read_per_mtok_usd = read;
        self
    }

    /// This price with cache writes at `write` US dollars per million tokens.
    pub const fn cache_write(mut self, write: f64) -> Self {
        self.cache_write_5m_per_mtok_usd = write;
        self
    }

    /// This price, and `long` for a request whose prompt is above
    /// `above_tokens`.
    pub const fn long_prompt(mut self, above_tokens: u64, long: &'static Pricing) -> Self {
        self.long_prompt = Some((above_tokens, long));
        self
    }

    /// Price of a million tokens written to the prompt cache (5-minute
    /// TTL), in US dollars.
    pub fn cache_write_5m_per_mtok_usd(&self) -> f64 {
        self.cache_write_5m_per_mtok_usd
    }

    /// Price of a million tokens read from the prompt cache, in US dollars.
    pub fn cache_read_per_mtok_usd(&self) -> f64 {
        self.cache_read_per_mtok_usd
    }

    /// What `usage` (one request's) costs at this price, in US dollars.
    pub fn cost_usd(&self, usage: &Usage) -> f64 {
        let prompt_tokens = usage
            .input_tokens
            .saturating_add(usage.cache_creation_input_tokens)
            .saturating_add(usage.cache_read_input_tokens);
        let price = match self.long_prompt {
            Some((above, long)) if prompt_tokens > above => long,
            _ => self,
        };
        let input = usage.input_tokens as f64 * price.input_per_mtok_usd;
        let output = usage.output_tokens as f64 * price.output_per_mtok_usd;
        let cache_write =
            usage.cache_creation_input_tokens as f64 * price.cache_write_5m_per_mtok_usd;
        let cache_read = usage.cache_read_input_tokens as f64 * price.cache_read_per_mtok_usd;
        (input + output + cache_write + cache_read) / TOKENS_PER_MTOK
    }
}
