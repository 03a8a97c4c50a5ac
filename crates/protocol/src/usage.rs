//! Token usage as the Messages API reports it, and its accumulation.

use serde::{Deserialize, Deserializer, Serialize};

/// Token counts of one model call, or a sum of several.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens not read from or written to the prompt cache.
    #[serde(default, deserialize_with = "null_as_zero")]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default, deserialize_with = "null_as_zero")]
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default, deserialize_with = "null_as_zero")]
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default, deserialize_with = "null_as_zero")]
    pub cache_read_input_tokens: u64,
}

impl Usage {
    /// Adds another usage record (one API call) to this total.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
    }

    /// Merges a `message_delta` usage into a `message_start` usage: the API
    /// sends cumulative counts, so a non-zero later value replaces the earlier.
    pub fn merge_delta(&mut self, delta: &Usage) {
        fn take(a: &mut u64, b: u64) {
            if b != 0 {
                *a = b;
            }
        }
        take(&mut self.input_tokens, delta.input_tokens);
        take(&mut self.output_tokens, delta.output_tokens);
        take(
            &mut self.cache_creation_input_tokens,
            delta.cache_creation_input_tokens,
        );
        take(
            &mut self.cache_read_input_tokens,
            delta.cache_read_input_tokens,
        );
    }
}

/// Some compatible servers send `null` for counts they do not track.
fn null_as_zero<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    Ok(Option::<u64>::deserialize(d)?.unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_counts_read_as_zero() {
        let u: Usage =
            serde_json::from_str(r#"{"input_tokens":5,"output_tokens":null}"#).unwrap_or_default();
        assert_eq!(u.input_tokens, 5);
        assert_eq!(u.output_tokens, 0);
    }
}
