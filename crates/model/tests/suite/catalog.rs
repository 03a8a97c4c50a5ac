//! The model catalog's table and lookup: every alias resolves, every model
//! has a window and an output limit, dated / prefixed / newer ids find their
//! family, unknown ids get the documented fallback, and the numbers orbit
//! used before the catalog (windows, prices, defaults) are unchanged.

use orbit_model::catalog::{
    self, ALIASES, FALLBACK, FALLBACK_CONTEXT_WINDOW_TOKENS, LOCAL_MODEL_ID, Matched, Pricing,
    Provider, Thinking,
};
use orbit_protocol::Usage;

const OPUS_NEW: Pricing = Pricing::new(5.0, 25.0);
const OPUS_OLD: Pricing = Pricing::new(15.0, 75.0);
const SONNET: Pricing = Pricing::new(3.0, 15.0);
const HAIKU_4_5: Pricing = Pricing::new(1.0, 5.0);
const HAIKU_3_5: Pricing = Pricing::new(0.8, 4.0);
const HAIKU_3: Pricing = Pricing::new(0.25, 1.25);

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

/// Each `(model, usage, want)`: the model's cost for the usage is `want`,
/// through the catalog and through `orbit_model::pricing` alike.
fn assert_costs(cases: &[(&str, Usage, f64)]) {
    for (model, usage, want) in cases {
        let got = catalog::cost_usd(model, usage);
        assert!(close(got, *want), "{model} {usage:?}: {got} != {want}");
        assert_eq!(got, orbit_model::pricing::cost_usd(model, usage));
    }
}

#[test]
fn every_alias_resolves_to_a_model_of_the_table() {
    assert!(!ALIASES.is_empty());
    for (alias, id) in ALIASES {
        assert_eq!(catalog::resolve_alias(alias), id);
        assert_eq!(catalog::resolve_alias(&alias.to_uppercase()), id);
        assert_eq!(catalog::resolve_alias(&format!(" {alias} ")), id);
        let by_alias = catalog::lookup(alias);
        assert_eq!(by_alias.matched, Matched::Alias, "{alias}");
        assert_eq!(by_alias.facts.id, id, "{alias}");
        let by_id = catalog::lookup(id);
        assert_eq!(by_id.matched, Matched::Id, "{id}");
        assert_eq!(by_id.facts, by_alias.facts);
    }
    // Claude Code 2.1.332's aliases (its `--model` handling), as it
    // resolved them against a fake server.
    for (alias, id) in [
        ("sonnet", "claude-sonnet-5-5"),
        ("Opus", "claude-opus-5-5"),
        ("haiku", "claude-haiku-5-5"),
        ("best", "claude-opus-5-5"),
        ("default", "claude-opus-5-5"),
        ("opusplan", "claude-sonnet-5-5"),
        ("fable", "claude-fable-5-2"),
        ("sonnet[1m]", "claude-sonnet-5-5"),
        ("opus[1M]", "claude-opus-5-5"),
    ] {
        assert_eq!(catalog::resolve_alias(alias), id, "{alias}");
    }
    assert_eq!(catalog::alias_line("best"), Some(catalog::ClaudeLine::Opus));
    assert_eq!(
        catalog::alias_line("opusplan"),
        Some(catalog::ClaudeLine::Sonnet)
    );
    assert_eq!(catalog::alias_line("claude-opus-4-6"), None);
    // Other names are returned as given.
    assert_eq!(
        catalog::resolve_alias("claude-3-5-haiku"),
        "claude-3-5-haiku"
    );
    assert_eq!(catalog::resolve_alias(" gpt-4.1"), " gpt-4.1");
}

#[test]
fn every_model_has_a_window_and_an_output_limit() {
    let mut count = 0;
    for facts in catalog::models() {
        count += 1;
        assert!(!facts.id.is_empty());
        assert!(facts.context_window_tokens > 0, "{}", facts.id);
        assert!(facts.max_output_tokens > 0, "{}", facts.id);
        assert!(
            u64::from(facts.max_output_tokens) <= facts.context_window_tokens,
            "{}",
            facts.id
        );
        if let Some(p) = facts.pricing {
            assert!(p.input_per_mtok_usd > 0.0 && p.output_per_mtok_usd > 0.0);
        }
        // Every id finds itself.
        assert_eq!(catalog::lookup(facts.id).facts, *facts, "{}", facts.id);
    }
    assert!(count >= 10, "{count}");
    let fallback = catalog::facts("some-new-model");
    assert!(fallback.context_window_tokens > 0 && fallback.max_output_tokens > 0);
}

#[test]
fn unknown_models_get_the_fallback() {
    for name in ["some-new-model", "", "mistral-large", "claude"] {
        let found = catalog::lookup(name);
        if name == "claude" {
            // The generic Claude row's own id.
            assert_eq!(found.matched, Matched::Id);
            continue;
        }
        assert_eq!(found.matched, Matched::Fallback, "{name}");
        assert_eq!(found.facts, FALLBACK, "{name}");
        assert_eq!(
            catalog::context_window_tokens(name),
            FALLBACK_CONTEXT_WINDOW_TOKENS
        );
        assert_eq!(catalog::price(name), None);
    }
    assert_eq!(FALLBACK_CONTEXT_WINDOW_TOKENS, 128_000);
    // A claude id of no known line: the Claude window, no price.
    let instant = catalog::lookup("claude-instant-1");
    assert_eq!(instant.matched, Matched::Family);
    assert_eq!(instant.facts.context_window_tokens, 200_000);
    assert_eq!(instant.facts.pricing, None);
}

#[test]
fn windows_are_the_ones_orbit_used_before_the_catalog() {
    let cases = [
        ("claude-sonnet-4-5", 200_000),
        ("claude-sonnet-4-5-20250929", 200_000),
        ("claude-sonnet-4-5[1m]", 1_000_000),
        ("claude-opus-4-6", 200_000),
        ("us.anthropic.claude-haiku-4-5-20251001-v1:0", 200_000),
        ("qwen2.5-coder-1.5b-instruct-q4_k_m", 8_192),
        ("qwen2.5-coder-7b", 8_192),
        ("gpt-4.1", 1_047_576),
        ("gpt-4.1-mini", 1_047_576),
        ("gpt-4o-mini", 128_000),
        ("gpt-5-codex", 400_000),
        ("o3-mini", 200_000),
        ("o4-mini", 200_000),
        ("qwen3-coder", 32_768),
        ("llama-3.1-8b", 8_192),
        ("some-new-model", 128_000),
    ];
    for (model, window) in cases {
        assert_eq!(catalog::context_window_tokens(model), window, "{model}");
    }
    assert_eq!(
        catalog::context_window_tokens(LOCAL_MODEL_ID),
        catalog::LOCAL_CONTEXT_WINDOW_TOKENS
    );
}

#[test]
fn dated_prefixed_and_newer_ids_find_their_family() {
    let cases = [
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),
        ("anthropic/claude-opus-4.5", "claude-opus-4-5"),
        ("claude-opus-4-20250514", "claude-opus-4-0"),
        ("claude-opus-4-9", "claude-opus-4-8"),
        ("claude-opus-4-7-20260101", "claude-opus-4-7"),
        ("claude-sonnet-5-5-20260601", "claude-sonnet-5-5"),
        ("claude-opus-4-2", "claude-opus-4-1"),
        ("claude-3-5-haiku-20241022", "claude-3-5-haiku"),
        ("claude-3-7-sonnet-latest", "claude-3-7-sonnet"),
        ("claude-3-opus-20240229", "claude-3-opus"),
        ("Claude-Haiku-4-5", "claude-haiku-4-5"),
        ("gpt-4.1-nano", "gpt-4.1"),
        ("qwen2.5-coder-1.5b-instruct-q8_0", LOCAL_MODEL_ID),
    ];
    for (model, id) in cases {
        let found = catalog::lookup(model);
        assert_eq!(found.facts.id, id, "{model}");
        assert_ne!(found.matched, Matched::Fallback, "{model}");
    }
}

#[test]
fn prices_are_the_ones_orbit_used_before_the_catalog() {
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
        assert_eq!(catalog::price(model), Some(want), "{model}");
        // The `pricing` view is the same table.
        assert_eq!(orbit_model::pricing::model_price(model), Some(want));
    }
    for m in [
        "gpt-4o",
        "gpt-4.1",
        "qwen2.5-coder",
        "",
        "claude",
        "claude-instant-1",
    ] {
        assert_eq!(catalog::price(m), None, "{m}");
        assert_eq!(
            catalog::cost_usd(m, &usage(1_000_000, 1_000_000, 0, 0)),
            0.0
        );
    }
}

#[test]
fn cost_counts_every_kind_of_token() {
    // Sonnet: $3 in, $15 out, $3.75 cache write, $0.30 cache read per MTok.
    let sonnet = catalog::price("claude-sonnet-4-5").unwrap();
    assert!(close(sonnet.cache_write_5m_per_mtok_usd(), 3.75));
    assert!(close(sonnet.cache_read_per_mtok_usd(), 0.3));
    let c = catalog::cost_usd(
        "claude-sonnet-4-5",
        &usage(1_000_000, 1_000_000, 1_000_000, 1_000_000),
    );
    assert!(close(c, 3.0 + 15.0 + 3.75 + 0.3), "{c}");
    assert_costs(&[
        ("claude-sonnet-4-5", usage(100, 20, 0, 0), 0.0006),
        ("claude-opus-4-1", usage(0, 1000, 0, 0), 0.075),
        ("claude-opus-4-5", usage(0, 1000, 0, 0), 0.025),
        ("claude-haiku-4-5", usage(1000, 0, 0, 2000), 0.0012),
    ]);
}

#[test]
fn provider_defaults_and_small_fast_models() {
    assert_eq!(
        catalog::default_model(Provider::Anthropic),
        "claude-opus-5-5"
    );
    assert_eq!(catalog::default_model(Provider::OpenAi), "gpt-4.1");
    assert_eq!(catalog::default_model(Provider::Local), LOCAL_MODEL_ID);
    for p in catalog::PROVIDERS {
        assert_eq!(catalog::defaults(p.provider), p);
        assert_ne!(
            catalog::lookup(p.default_model).matched,
            Matched::Fallback,
            "{:?}",
            p.provider
        );
    }
    // Anthropic: the haiku model; the others: the session's own model.
    let haiku = catalog::small_fast_model(Provider::Anthropic, "claude-opus-4-6", None);
    assert_eq!(haiku, catalog::resolve_alias("haiku"));
    assert_eq!(
        catalog::small_fast_model(Provider::OpenAi, "gpt-4o", None),
        "gpt-4o"
    );
    assert_eq!(
        catalog::small_fast_model(Provider::Local, LOCAL_MODEL_ID, None),
        LOCAL_MODEL_ID
    );
    assert_eq!(
        catalog::small_fast_model(Provider::OpenAi, "gpt-4.1", Some("gpt-4.1-mini")),
        "gpt-4.1-mini"
    );
}

#[test]
fn capabilities() {
    let opus = catalog::facts("claude-opus-4-6");
    assert_eq!(opus.thinking, Thinking::Adaptive);
    assert!(opus.effort && opus.images);
    assert_eq!(
        catalog::facts("claude-sonnet-4-5").thinking,
        Thinking::Budget
    );
    assert_eq!(catalog::facts("sonnet").thinking, Thinking::Adaptive);
    assert_eq!(catalog::facts("claude-3-5-haiku").thinking, Thinking::None);
    assert!(catalog::facts("gpt-4.1").images);
    assert!(!catalog::facts(LOCAL_MODEL_ID).images);
    assert_eq!(catalog::DEFAULT_MAX_OUTPUT_TOKENS, 32_000);
    assert_eq!(catalog::CLIENT_DEFAULT_MAX_TOKENS, 8_192);
}

/// Today's models as Claude Code 2.1.332 reported them in its result line
/// (`modelUsage.<id>.contextWindow` / `maxOutputTokens`) and sent them
/// (`max_tokens`, `thinking`, `output_config.effort`) against a fake server.
#[test]
fn todays_models_as_claude_code_has_them() {
    use Thinking::{Adaptive, Budget};
    use catalog::Effort::{High, Medium, XHigh};
    // (ids, window, default max_tokens, thinking, default effort): the
    // models of a row share every fact.
    let cases: [(&[&str], _, _, _, _); 6] = [
        (
            &[
                "claude-opus-5-5",
                "claude-sonnet-5-5",
                "claude-haiku-5-5",
                "claude-fable-5-2",
            ],
            1_000_000,
            128_000,
            Adaptive,
            Some(Medium),
        ),
        (
            &["claude-opus-4-7"],
            1_000_000,
            64_000,
            Adaptive,
            Some(XHigh),
        ),
        (&["claude-opus-4-6"], 200_000, 64_000, Adaptive, Some(High)),
        (
            &["claude-sonnet-4-6"],
            200_000,
            32_000,
            Adaptive,
            Some(High),
        ),
        (&["claude-opus-4-5"], 200_000, 32_000, Budget, Some(High)),
        (
            &["claude-sonnet-4-5", "claude-haiku-4-5"],
            200_000,
            32_000,
            Budget,
            None,
        ),
    ];
    for (ids, window, max_tokens, thinking, effort) in cases {
        for id in ids {
            let facts = catalog::facts(id);
            assert_eq!(facts.context_window_tokens, window, "{id}");
            assert_eq!(facts.default_output_tokens, max_tokens, "{id}");
            assert_eq!(catalog::default_output_tokens(id), max_tokens, "{id}");
            assert_eq!(facts.thinking, thinking, "{id}");
            assert_eq!(facts.effort_levels.map(|e| e.default), effort, "{id}");
        }
    }
    // CLAUDE_CODE_MAX_OUTPUT_TOKENS=200000 was capped at 128,000 on Opus 5.5.
    assert_eq!(catalog::facts("opus").max_output_tokens, 128_000);
    assert_eq!(
        catalog::facts("claude-sonnet-4-5").max_output_tokens,
        64_000
    );
}

/// `total_cost_usd` as Claude Code 2.1.332 printed it for one request of
/// this usage (input, output, cache write, cache read) against a fake
/// server.
#[test]
fn cost_is_claude_codes_for_the_same_usage() {
    assert_costs(&[
        ("claude-opus-5-5", usage(10, 1, 0, 0), 0.00006),
        ("claude-sonnet-5-5", usage(10, 1, 0, 0), 0.00003),
        ("claude-haiku-5-5", usage(10, 1, 0, 0), 0.0000015),
        ("claude-fable-5-2", usage(10, 1, 0, 0), 0.00012),
        ("claude-opus-4-6", usage(10, 1, 0, 0), 0.000075),
        ("claude-haiku-5-5", usage(1_000, 500, 2_000, 30_000), 0.0009),
        ("claude-opus-5-5", usage(1_000, 500, 2_000, 30_000), 0.03),
        ("claude-sonnet-5-5", usage(1_000, 500, 2_000, 30_000), 0.015),
        ("claude-opus-4-6", usage(1_000, 500, 2_000, 30_000), 0.045),
        ("claude-haiku-4-5", usage(1_000, 500, 2_000, 30_000), 0.009),
        // Haiku 5.5 above 100,000 prompt tokens: its long-prompt price.
        ("claude-haiku-5-5", usage(95_000, 500, 2_000, 4_000), 0.0502),
        ("claude-opus-5-5", usage(95_000, 500, 2_000, 4_000), 0.4008),
        (
            "claude-sonnet-5-5",
            usage(95_000, 500, 2_000, 4_000),
            0.2004,
        ),
        ("claude-opus-4-6", usage(95_000, 500, 2_000, 4_000), 0.502),
        ("claude-haiku-4-5", usage(95_000, 500, 2_000, 4_000), 0.1004),
        ("claude-haiku-5-5", usage(150_000, 500, 0, 0), 0.07625),
        ("claude-opus-5-5", usage(150_000, 500, 0, 0), 0.61),
        ("claude-sonnet-5-5", usage(150_000, 500, 0, 0), 0.305),
    ]);
}
