//! Environment values: typed getters, bad values warn (naming the variable)
//! and the default is used; the provider name is the one hard error.

use orbit_config::{Config, Env, Settings};

use super::common::{env, overrides, resolve, with_warnings};

fn config_with(vars: &[(&str, &str)]) -> (Config, Vec<String>) {
    with_warnings(|| resolve(&overrides(), &env(vars), &Settings::default()))
}

#[test]
fn unset_and_blank_values_are_unset() {
    let e = Env::from_pairs([("A", ""), ("B", "  "), ("C", " x ")]);
    assert_eq!(e.get("A"), None);
    assert_eq!(e.get("B"), None);
    assert_eq!(e.raw("B"), Some("  "));
    assert_eq!(e.get("C"), Some(" x "));
    assert_eq!(e.get("D"), None);
    assert!(e.path("A").is_none());
    assert_eq!(e.path("B").unwrap().to_str(), Some("  "));
}

#[test]
fn debug_shows_names_not_values() {
    let e = Env::from_pairs([("ANTHROPIC_API_KEY", "sk-secret")]);
    let shown = format!("{e:?}");
    assert!(
        shown.contains("ANTHROPIC_API_KEY") && !shown.contains("sk-secret"),
        "{shown}"
    );
}

#[test]
fn defaults_without_warnings() {
    let (config, warnings) = config_with(&[]);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(config.max_tool_use_concurrency, None);
    assert_eq!(config.tool_result_budget_chars, None);
    assert!(!config.openai_fenced_tool_calls);
    assert_eq!(config.api_key_source(), "none");
}

#[test]
fn tool_result_budget_like_the_engine_parsed_it() {
    // The cases of the engine's former `parse_budget_chars` test.
    for (value, want, warns) in [
        ("5000", Some(5_000), false),
        (" 1_000 ", Some(1_000), false),
        ("0", None, true),
        ("lots", None, true),
    ] {
        let (config, warnings) = config_with(&[("ORBIT_TOOL_RESULT_BUDGET_CHARS", value)]);
        assert_eq!(config.tool_result_budget_chars, want, "{value}");
        assert_eq!(warnings.len(), usize::from(warns), "{value}: {warnings:?}");
        if warns {
            assert!(
                warnings[0].contains("ignoring invalid ORBIT_TOOL_RESULT_BUDGET_CHARS")
                    && warnings[0].contains(&format!("{:?}", value)),
                "{warnings:?}"
            );
        }
    }
}

#[test]
fn concurrency_first_valid_of_orbit_then_claude_code_name() {
    // The cases of the engine's former `parse_max_tool_use_concurrency` test.
    type Case<'a> = (Option<&'a str>, Option<&'a str>, Option<usize>, usize);
    let cases: [Case; 5] = [
        (Some("4"), Some("7"), Some(4), 0),
        (None, Some("7"), Some(7), 0),
        (Some("x"), Some("7"), Some(7), 1),
        (Some("0"), None, None, 1),
        (None, None, None, 0),
    ];
    for (primary, alias, want, warning_count) in cases {
        let mut vars = Vec::new();
        if let Some(v) = primary {
            vars.push(("ORBIT_MAX_TOOL_USE_CONCURRENCY", v));
        }
        if let Some(v) = alias {
            vars.push(("CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY", v));
        }
        let (config, warnings) = config_with(&vars);
        assert_eq!(
            config.max_tool_use_concurrency, want,
            "{primary:?} {alias:?}"
        );
        assert_eq!(warnings.len(), warning_count, "{warnings:?}");
        if warning_count == 1 {
            assert!(
                warnings[0].contains("ORBIT_MAX_TOOL_USE_CONCURRENCY"),
                "{warnings:?}"
            );
        }
    }
}

#[test]
fn switches_and_model_crate_values_warn_when_bad() {
    let (config, warnings) = config_with(&[
        ("ORBIT_OPENAI_FENCED_TOOL_CALLS", "maybe"),
        ("ORBIT_MAX_RETRIES", "-1"),
        ("ORBIT_RETRY_BASE_DELAY_MS", "fast"),
        ("ORBIT_IDLE_TIMEOUT_MS", "90s"),
    ]);
    assert!(!config.openai_fenced_tool_calls);
    let named: Vec<bool> = [
        "ORBIT_OPENAI_FENCED_TOOL_CALLS",
        "ORBIT_MAX_RETRIES",
        "ORBIT_RETRY_BASE_DELAY_MS",
        "ORBIT_IDLE_TIMEOUT_MS",
    ]
    .iter()
    .map(|name| warnings.iter().any(|w| w.contains(name)))
    .collect();
    assert_eq!(named, [true; 4], "{warnings:?}");
    assert_eq!(warnings.len(), 4, "{warnings:?}");
    for value in ["1", "TRUE", "yes", "on"] {
        let (config, warnings) = config_with(&[("ORBIT_OPENAI_FENCED_TOOL_CALLS", value)]);
        assert!(
            config.openai_fenced_tool_calls && warnings.is_empty(),
            "{value}"
        );
    }
    let (config, warnings) = config_with(&[
        ("ORBIT_MAX_RETRIES", " 3 "),
        ("ORBIT_IDLE_TIMEOUT_MS", "250"),
    ]);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(!config.openai_fenced_tool_calls);
}

#[test]
fn an_unknown_provider_name_is_an_error_naming_its_origin() {
    let err = Config::resolve(
        &overrides(),
        &env(&[("ORBIT_PROVIDER", "Bogus")]),
        &Settings::default(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "ORBIT_PROVIDER: unknown provider `bogus` (expected anthropic, openai or local)"
    );
    let s =
        super::common::settings(&[(orbit_config::SettingsSource::User, r#"{"provider": "gpt"}"#)]);
    let err = Config::resolve(&overrides(), &env(&[]), &s).unwrap_err();
    assert_eq!(
        err.to_string(),
        "user.json: unknown provider `gpt` (expected anthropic, openai or local)"
    );
    // Any case and surrounding blanks are fine.
    let config = resolve(
        &overrides(),
        &env(&[("ORBIT_PROVIDER", " OpenAI ")]),
        &Settings::default(),
    );
    assert_eq!(config.provider.value.name(), "openai");
}

#[test]
fn api_key_source_names_the_first_credential() {
    let (config, _) = config_with(&[("OPENAI_API_KEY", "o"), ("ANTHROPIC_AUTH_TOKEN", "t")]);
    assert_eq!(config.api_key_source(), "ANTHROPIC_AUTH_TOKEN");
    let (config, _) = config_with(&[("OPENAI_API_KEY", "o"), ("ANTHROPIC_API_KEY", "")]);
    assert_eq!(config.api_key_source(), "OPENAI_API_KEY");
}

#[test]
fn from_process_sees_the_process_environment() {
    // PATH is set for every test process; nothing is mutated.
    let e = Env::from_process();
    assert_eq!(
        e.raw("PATH").map(str::to_string),
        std::env::var("PATH").ok()
    );
}

#[test]
fn compaction_and_structured_output_values() {
    // variable, what the config holds, then each (value, want, warns).
    type Case<'a> = (
        &'a str,
        fn(&Config) -> String,
        &'a [(&'a str, &'a str, bool)],
    );
    let cases: [Case; 3] = [
        (
            "ORBIT_CONTEXT_WINDOW",
            |c| format!("{:?}", c.context_window),
            &[("8192", "Some(8192)", false), ("0", "None", true)],
        ),
        (
            "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE",
            |c| format!("{:?}", c.autocompact_pct),
            &[
                ("50", "Some(50.0)", false),
                ("100", "Some(100.0)", false),
                ("0", "None", true),
                ("150", "None", true),
                ("half", "None", true),
            ],
        ),
        (
            "MAX_STRUCTURED_OUTPUT_RETRIES",
            |c| format!("{:?}", c.max_structured_output_retries),
            &[("2", "Some(2)", false)],
        ),
    ];
    let cases = cases.iter().flat_map(|(name, get, values)| {
        values
            .iter()
            .map(move |(value, want, warns)| (*name, *value, *get, *want, *warns))
    });
    for (name, value, get, want, warns) in cases {
        let (config, warnings) = config_with(&[(name, value)]);
        assert_eq!(get(&config), want, "{name}={value}");
        assert_eq!(
            warnings.len(),
            usize::from(warns),
            "{name}={value}: {warnings:?}"
        );
        if warns {
            assert!(warnings[0].contains(name), "{warnings:?}");
        }
    }
}
