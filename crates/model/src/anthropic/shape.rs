//! The request shape Claude Code 2.1.332 sends, per model: what a
//! [`RequestShape`] (the provider's settings: effort, thinking on/off and
//! display, prompt caching, extra betas) and the model's catalog row make
//! of one request. `request::build_body` writes the body from a [`Plan`],
//! the client sends [`Plan::beta_header`] with it.
//!
//! Observed against a fake server (`claude -p hi --model M`):
//! - the id is sent without a `[1m]` marker; a marked model that has no
//!   native 1M window adds the `context-1m-2025-08-07` beta;
//! - `max_tokens` is the engine's (the model's default output limit unless
//!   told otherwise), capped at the model's upper limit;
//! - thinking: `{"type": "adaptive", "display": D}` for models with
//!   adaptive thinking (a budget asked for is not sent), else
//!   `{"budget_tokens": B, "type": "enabled", "display": D}` with B the
//!   budget asked for or `max_tokens - 1`; none when turned off (except
//!   for models that refuse it: the 5.5 models keep adaptive thinking);
//! - `context_management: {"edits": [{"type": "clear_thinking_20251015",
//!   "keep": "all"}]}` when thinking is on and the model takes it;
//! - `output_config: {"effort": L}` for models with effort levels (L
//!   fitted to the model, its default when none was chosen; none for `auto`);
//! - `anthropic-beta: claude-code-20250219` plus one beta per feature used
//!   and the user's (`ANTHROPIC_BETAS`, `--betas`).

use serde_json::{Value, json};

use crate::ModelRequest;
use crate::catalog::{self, Effort, EffortChoice, Matched, Thinking};

/// The beta every request carries (Claude Code's).
pub const CLAUDE_CODE_BETA: &str = "claude-code-20250219";
/// The beta of a `[1m]`-marked model without a native 1M window.
pub const CONTEXT_1M_BETA: &str = "context-1m-2025-08-07";
const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";
const CONTEXT_MANAGEMENT_BETA: &str = "context-management-2025-06-27";
const EFFORT_BETA: &str = "effort-2025-11-24";
const THINKING_UPDATES_BETA: &str = "thinking-display-updates-2026-08-18";
/// The API's smallest `budget_tokens`.
const MIN_THINKING_BUDGET_TOKENS: u32 = 1_024;

/// How thinking text comes back (`thinking.display`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThinkingDisplay {
    /// `omitted`: thinking blocks carry no text (Claude Code's `-p` with
    /// text or json output).
    #[default]
    Omitted,
    /// `updates`: thinking text streams as it goes (Claude Code's
    /// stream-json output and terminal UI).
    Updates,
}

impl ThinkingDisplay {
    fn as_str(self) -> &'static str {
        match self {
            ThinkingDisplay::Omitted => "omitted",
            ThinkingDisplay::Updates => "updates",
        }
    }
}

/// The provider-level request settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestShape {
    /// `--effort` / `CLAUDE_CODE_EFFORT_LEVEL` / settings `effortLevel`;
    /// None = the model's default.
    pub effort: Option<EffortChoice>,
    /// Thinking on (the model's kind of thinking); false for `--thinking
    /// disabled`, `MAX_THINKING_TOKENS=0`, `alwaysThinkingEnabled: false`.
    pub thinking: bool,
    /// How thinking text comes back.
    pub thinking_display: ThinkingDisplay,
    /// `cache_control` markers on the system prompt and the newest
    /// message; false with `DISABLE_PROMPT_CACHING`.
    pub prompt_caching: bool,
    /// More betas for `anthropic-beta` (`ANTHROPIC_BETAS`, `--betas`).
    pub betas: Vec<String>,
}

impl Default for RequestShape {
    fn default() -> Self {
        Self {
            effort: None,
            thinking: true,
            thinking_display: ThinkingDisplay::default(),
            prompt_caching: true,
            betas: Vec::new(),
        }
    }
}

/// What one request carries besides its messages and tools.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Plan {
    /// The id sent (no `[1m]` marker).
    pub(crate) model: String,
    pub(crate) max_tokens: u32,
    /// The `thinking` object, when thinking is on.
    pub(crate) thinking: Option<Value>,
    /// Whether `context_management` is sent.
    pub(crate) context_management: bool,
    /// `output_config.effort`.
    pub(crate) effort: Option<Effort>,
    /// `cache_control` markers.
    pub(crate) prompt_caching: bool,
    betas: Vec<String>,
}

impl Plan {
    /// The plan of `request` under `shape`.
    pub(crate) fn of(request: &ModelRequest, shape: &RequestShape) -> Plan {
        let marked = request.model.trim() != catalog::strip_long_context(request.model.trim());
        let model = catalog::strip_long_context(request.model.trim()).to_string();
        let found = catalog::lookup(&model);
        let facts = found.facts;
        let known = found.matched != Matched::Fallback && facts.pricing.is_some();
        let mut max_tokens = if request.max_tokens == 0 {
            catalog::CLIENT_DEFAULT_MAX_TOKENS
        } else {
            request.max_tokens
        };
        if known {
            max_tokens = max_tokens.min(facts.max_output_tokens);
        }
        let display = shape.thinking_display.as_str();
        let asked = request.thinking_budget.filter(|b| *b > 0);
        let thinking = match facts.thinking {
            // Off, unless the model refuses that (Claude Code then still
            // sends adaptive thinking).
            _ if !shape.thinking && !facts.thinking_required => None,
            Thinking::Adaptive => Some(json!({"type": "adaptive", "display": display})),
            Thinking::Budget => asked
                .or_else(|| max_tokens.checked_sub(1))
                .map(|b| b.min(max_tokens.saturating_sub(1)))
                .filter(|b| *b >= MIN_THINKING_BUDGET_TOKENS || asked.is_some())
                .map(|b| json!({"budget_tokens": b, "type": "enabled", "display": display})),
            // A model orbit does not know: only a budget asked for.
            Thinking::None if !known => asked
                .map(|b| b.min(max_tokens.saturating_sub(1)))
                .map(|b| json!({"type": "enabled", "budget_tokens": b})),
            Thinking::None => None,
        };
        let context_management = thinking.is_some() && facts.context_management;
        let effort = facts.effort_levels.and_then(|s| s.fit(shape.effort));
        let mut betas = vec![CLAUDE_CODE_BETA.to_string()];
        if marked && known && facts.context_window_tokens < catalog::LONG_CONTEXT_WINDOW_TOKENS {
            betas.push(CONTEXT_1M_BETA.into());
        }
        if thinking.is_some() && known {
            betas.push(INTERLEAVED_THINKING_BETA.into());
        }
        if context_management {
            betas.push(CONTEXT_MANAGEMENT_BETA.into());
        }
        if effort.is_some() {
            betas.push(EFFORT_BETA.into());
        }
        if thinking.is_some() && known && shape.thinking_display == ThinkingDisplay::Updates {
            betas.push(THINKING_UPDATES_BETA.into());
        }
        for beta in &shape.betas {
            if !betas.contains(beta) {
                betas.push(beta.clone());
            }
        }
        Plan {
            model,
            max_tokens,
            thinking,
            context_management,
            effort,
            prompt_caching: shape.prompt_caching,
            betas,
        }
    }

    /// The `anthropic-beta` header value.
    pub(crate) fn beta_header(&self) -> String {
        self.betas.join(",")
    }

    /// The plan as Claude Code 2.1.332 sends it to Bedrock and Vertex AI:
    /// no `context_management` (nor its beta).
    pub(crate) fn for_cloud(mut self) -> Self {
        self.context_management = false;
        self.betas.retain(|b| b != CONTEXT_MANAGEMENT_BETA);
        self
    }

    /// Bedrock's body `anthropic_beta`: the header's betas but
    /// `claude-code-…` and `effort-…`, which Claude Code sends in the
    /// header only.
    pub(crate) fn bedrock_body_betas(&self) -> Vec<String> {
        self.betas
            .iter()
            .filter(|b| *b != CLAUDE_CODE_BETA && *b != EFFORT_BETA)
            .cloned()
            .collect()
    }
}

/// Claude Code's `context_management` edits.
pub(crate) fn context_management() -> Value {
    json!({"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]})
}

/// Names in a comma- or space-separated list (`ANTHROPIC_BETAS`,
/// `--betas`), trimmed, empty ones dropped.
pub fn split_betas(text: &str) -> Vec<String> {
    text.split([',', ' ', '\n'])
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .map(String::from)
        .collect()
}

/// `ANTHROPIC_CUSTOM_HEADERS`: one `Name: value` per line; lines without a
/// colon or with an empty name are skipped.
pub fn parse_custom_headers(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            let name = name.trim();
            (!name.is_empty()).then(|| (name.to_string(), value.trim().to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(model: &str, max_tokens: u32, budget: Option<u32>, shape: &RequestShape) -> Plan {
        let request = ModelRequest {
            model: model.into(),
            max_tokens,
            thinking_budget: budget,
            ..Default::default()
        };
        Plan::of(&request, shape)
    }

    #[test]
    fn claude_code_s_shape_per_model() {
        let shape = RequestShape::default();
        let opus = plan("claude-opus-5-5", 128_000, None, &shape);
        assert_eq!(
            opus.thinking,
            Some(json!({"type": "adaptive", "display": "omitted"}))
        );
        assert!(opus.context_management);
        assert_eq!(opus.effort, Some(Effort::Medium));
        assert_eq!(
            opus.beta_header(),
            "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,effort-2025-11-24"
        );
        // Sonnet 4.5: budget thinking of max_tokens - 1, no effort.
        let sonnet = plan("claude-sonnet-4-5[1m]", 32_000, None, &shape);
        assert_eq!(sonnet.model, "claude-sonnet-4-5");
        assert_eq!(
            sonnet.thinking.as_ref().map(|t| t["budget_tokens"].clone()),
            Some(json!(31_999))
        );
        assert_eq!(sonnet.effort, None);
        assert!(sonnet.beta_header().contains(CONTEXT_1M_BETA));
        // An explicit budget: sent for budget models, not for adaptive ones.
        let budget = plan("claude-sonnet-4-5", 32_000, Some(4_000), &shape);
        assert_eq!(
            budget.thinking.as_ref().map(|t| t["budget_tokens"].clone()),
            Some(json!(4_000))
        );
        assert_eq!(
            plan("claude-opus-4-6", 64_000, Some(4_000), &shape)
                .thinking
                .map(|t| t["type"].clone()),
            Some(json!("adaptive"))
        );
        // Over the model's limit: capped.
        assert_eq!(
            plan("claude-sonnet-4-5", 128_000, None, &shape).max_tokens,
            64_000
        );
        // Thinking off: no thinking, no context management; effort stays.
        let off = RequestShape {
            thinking: false,
            ..RequestShape::default()
        };
        let p = plan("claude-opus-4-6", 64_000, None, &off);
        assert_eq!(
            (p.thinking, p.context_management, p.effort),
            (None, false, Some(Effort::High))
        );
        // Opus 5.5 refuses thinking off: still adaptive.
        let p = plan("claude-opus-5-5", 128_000, None, &off);
        assert_eq!(
            p.thinking,
            Some(json!({"type": "adaptive", "display": "omitted"}))
        );
        assert!(p.context_management);
        // An unknown model: nothing but an explicit budget.
        let p = plan("my-model", 1_000, None, &shape);
        assert_eq!((p.thinking, p.effort, p.max_tokens), (None, None, 1_000));
    }

    #[test]
    fn betas_and_headers_parse() {
        assert_eq!(split_betas(" a-1, b-2 c-3,,"), ["a-1", "b-2", "c-3"]);
        assert_eq!(
            parse_custom_headers("X-Foo: one\nbad line\n: x\nX-Bar:two:2\n"),
            [
                ("X-Foo".to_string(), "one".to_string()),
                ("X-Bar".into(), "two:2".into())
            ]
        );
    }
}
