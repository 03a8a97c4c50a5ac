//! Token usage as the Messages API reports it, and its accumulation.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    #[serde(default)]
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
        take(&mut self.cache_creation_input_tokens, delta.cache_creation_input_tokens);
        take(&mut self.cache_read_input_tokens, delta.cache_read_input_tokens);
    }
}
