//! Context windows and the thresholds derived from them.
//!
//! A model's window comes from `CompactConfig::context_window`
//! (`ORBIT_CONTEXT_WINDOW`), else from the model catalog
//! ([`orbit_model::catalog`], re-exported here as [`context_window_tokens`])
//! by model name. From the window, [`Limits`] derives, as Claude Code does:
//! the output reserved for the summary (`min(max_tokens, 20,000)`, at most
//! a quarter of the window), the usable window (window − that reserve),
//! and the automatic threshold (usable − a 13,000-token buffer, at most a
//! tenth of the usable window for small windows). `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`
//! gives `floor(usable × pct / 100)`, and like Claude Code's it can only
//! lower the default threshold.

use crate::config::EngineConfig;

/// Output tokens reserved for the summary (Claude Code's 20,000).
pub(crate) const SUMMARY_OUTPUT_RESERVE_TOKENS: u64 = 20_000;

/// Room kept below the usable window before compacting (Claude Code's 13,000).
pub(crate) const AUTOCOMPACT_BUFFER_TOKENS: u64 = 13_000;

/// The context window of a model in tokens, from the model catalog (its
/// fallback for a model it does not know).
pub use orbit_model::catalog::context_window_tokens;

/// The context window of requests to `model` under `config`, in tokens:
/// `CompactConfig::context_window` when set, else the catalog's.
pub(crate) fn window_tokens(config: &EngineConfig, model: &str) -> u64 {
    config
        .compact
        .context_window
        .unwrap_or_else(|| context_window_tokens(model))
}

/// The budgets of one session's requests, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// The whole context window.
    pub(crate) window: u64,
    /// `max_tokens` of the summary request.
    pub(crate) summary_output: u64,
    /// A request estimated above this is compacted first.
    pub(crate) threshold: u64,
}

impl Limits {
    /// Limits for `window` tokens, requests of `max_output_tokens`, and the
    /// percentage override, if any.
    pub(crate) fn new(window: u64, max_output_tokens: u64, pct: Option<f64>) -> Self {
        let window = window.max(1);
        let summary_output = max_output_tokens
            .min(SUMMARY_OUTPUT_RESERVE_TOKENS)
            .min(window / 4)
            .max(1);
        let usable = window - summary_output.min(window - 1);
        let default_threshold = usable - AUTOCOMPACT_BUFFER_TOKENS.min(usable / 10);
        let threshold = match pct {
            // `as` saturates; the percentage was checked to be in (0, 100].
            Some(pct) => ((usable as f64 * pct / 100.0).floor() as u64).min(default_threshold),
            None => default_threshold,
        };
        Self {
            window,
            summary_output,
            threshold: threshold.max(1),
        }
    }

    /// The limits of requests to `model` under `config`: its window
    /// (`CompactConfig::context_window`, else the catalog's), `max_tokens`
    /// and the percentage override.
    pub(crate) fn for_model(config: &EngineConfig, model: &str) -> Self {
        Self::new(
            window_tokens(config, model),
            u64::from(config.max_tokens),
            config.compact.autocompact_pct,
        )
    }

    /// What the input of the summary request may take: the window less the
    /// summary's output and a twentieth for the estimate's error.
    pub(crate) fn summary_input_budget(&self) -> u64 {
        self.window
            .saturating_sub(self.summary_output)
            .saturating_sub(self.window / 20)
    }

    /// What a compacted history aims at: the fallback's shrunk history,
    /// and the summary with the calls and results kept after it.
    pub(crate) fn fallback_target(&self) -> u64 {
        self.threshold / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_by_model_name() {
        let cases = [
            ("claude-sonnet-4-5", 200_000),
            ("claude-sonnet-4-5[1m]", 1_000_000),
            ("qwen2.5-coder-1.5b-instruct-q4_k_m", 8_192),
            ("gpt-4.1-mini", 1_047_576),
            (
                "some-new-model",
                orbit_model::catalog::FALLBACK_CONTEXT_WINDOW_TOKENS,
            ),
        ];
        for (model, window) in cases {
            assert_eq!(context_window_tokens(model), window, "{model}");
        }
    }

    #[test]
    fn thresholds_follow_claude_code_and_scale_down() {
        // 200k, max_tokens 32k: usable 180k, threshold 167k (Claude Code's).
        let claude = Limits::new(200_000, 32_000, None);
        assert_eq!((claude.summary_output, claude.threshold), (20_000, 167_000));
        // The override can lower the threshold, never raise it.
        assert_eq!(Limits::new(200_000, 32_000, Some(50.0)).threshold, 90_000);
        assert_eq!(Limits::new(200_000, 32_000, Some(95.0)).threshold, 167_000);
        // 8k local window: 2k for the summary, threshold at 90% of the rest.
        let local = Limits::new(8_192, 32_000, None);
        assert_eq!((local.summary_output, local.threshold), (2_048, 5_530));
        assert!(local.summary_input_budget() + local.summary_output <= local.window);
    }
}
