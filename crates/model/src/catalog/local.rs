//! orbit's local model and the open model families an OpenAI-compatible
//! server (llama.cpp, Ollama, vLLM) runs: their rows of the catalog.
//! `orbit-local` starts llama-server with [`LOCAL_CONTEXT_WINDOW_TOKENS`]
//! (`-c`) and names the model [`LOCAL_MODEL_ID`], so the window the engine
//! plans with is the one the server has.

use super::{Entry, Family, Provider};

/// orbit's local model (Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M), as
/// llama-server reports it and orbit names it.
pub const LOCAL_MODEL_ID: &str = "qwen2.5-coder-1.5b-instruct-q4_k_m";

/// The context window orbit runs its local model with (llama-server's
/// `-c`), in tokens.
pub const LOCAL_CONTEXT_WINDOW_TOKENS: u64 = 8_192;

/// A row of a model without a price, thinking or images.
const fn open(
    id: &'static str,
    pattern: &'static str,
    window_tokens: u64,
    max_output_tokens: u32,
    runs_on: &'static [Provider],
) -> Entry {
    Entry {
        facts: super::plain(id, window_tokens, max_output_tokens),
        family: Family::Contains(pattern),
        runs_on,
        listed: false,
    }
}

/// orbit's local model: any Qwen2.5-Coder build has its window (a reply
/// may fill the window, so that is its output limit too).
/// orbit's own server runs it; an OpenAI-compatible one may too.
pub(super) const MODELS: [Entry; 1] = [Entry {
    listed: true,
    ..open(
        LOCAL_MODEL_ID,
        "qwen2.5-coder",
        LOCAL_CONTEXT_WINDOW_TOKENS,
        LOCAL_CONTEXT_WINDOW_TOKENS as u32,
        &[Provider::Local, Provider::OpenAi],
    )
}];

/// Other open families, tried after the OpenAI rows: Qwen's usual 32k
/// window, Llama's conservative 8k.
/// An OpenAI-compatible server (Ollama, vLLM) runs them.
pub(super) const OPEN_FAMILIES: [Entry; 2] = [
    open("qwen", "qwen", 32_768, 8_192, &[Provider::OpenAi]),
    open("llama", "llama", 8_192, 4_096, &[Provider::OpenAi]),
];
