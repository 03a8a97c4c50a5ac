//! OpenAI models: their rows of the catalog. Each row is a family pattern
//! too (`gpt-4.1-mini` has `gpt-4.1`'s facts). orbit does not price them
//! (their cost is reported as 0); windows and output limits as OpenAI
//! documents them.

use super::{Entry, Family, ModelFacts, Provider};

/// The OpenAI provider's model when none is set.
pub(super) const DEFAULT_MODEL: &str = "gpt-4.1";

/// An OpenAI row: the id is the family pattern; no price, no thinking
/// orbit can ask for; all take images.
const fn openai(
    id: &'static str,
    window_tokens: u64,
    max_output_tokens: u32,
    effort: bool,
) -> Entry {
    Entry {
        facts: ModelFacts {
            effort,
            images: true,
            ..super::plain(id, window_tokens, max_output_tokens)
        },
        family: Family::Contains(id),
        runs_on: &[Provider::OpenAi],
        listed: true,
    }
}

/// The OpenAI rows, in the order the family step tries them.
pub(super) const MODELS: [Entry; 5] = [
    openai("gpt-4.1", 1_047_576, 32_768, false),
    openai("gpt-4o", 128_000, 16_384, false),
    openai("gpt-5", 400_000, 128_000, true),
    openai("o3", 200_000, 100_000, true),
    openai("o4-mini", 200_000, 100_000, true),
];
