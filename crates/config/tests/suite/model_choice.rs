//! Claude Code's model settings as `Config::resolve` reads them (each case
//! observed on Claude Code 2.1.332 against a fake server): aliases and
//! their `ANTHROPIC_DEFAULT_*_MODEL` overrides, `opusplan` in and out of
//! plan mode, the effort level's precedence (the environment beats
//! `--effort`; a user file's `effortLevel` only for models without a
//! default of their own), `alwaysThinkingEnabled`, the small fast model
//! and `CLAUDE_CODE_MAX_OUTPUT_TOKENS`.

use orbit_config::{Overrides, ProviderKind, SettingsSource as S};
use orbit_model::catalog::{Effort, EffortChoice};
use orbit_permissions::PermissionMode;

use super::common::{env, overrides, resolve, settings};

/// Environment variables of one case.
type Vars<'a> = &'a [(&'a str, &'a str)];

fn anthropic() -> Overrides {
    Overrides {
        provider: Some(ProviderKind::Anthropic),
        ..overrides()
    }
}

fn model_of(o: &Overrides, vars: &[(&str, &str)]) -> String {
    resolve(o, &env(vars), &settings(&[])).model.unwrap().value
}

#[test]
fn aliases_overrides_and_opusplan() {
    let with = |m: &str| Overrides {
        model: Some(m.into()),
        ..anthropic()
    };
    // (model flag, env, expected id)
    let cases: [(&str, Vars, &str); 10] = [
        ("opus", &[], "claude-opus-5-5"),
        ("sonnet", &[], "claude-sonnet-5-5"),
        ("haiku", &[], "claude-haiku-5-5"),
        ("sonnet[1m]", &[], "claude-sonnet-5-5"),
        ("opusplan", &[], "claude-sonnet-5-5"),
        ("best", &[], "claude-opus-5-5"),
        (
            "opus",
            &[("ANTHROPIC_DEFAULT_OPUS_MODEL", "claude-opus-4-6")],
            "claude-opus-4-6",
        ),
        (
            "sonnet",
            &[("ANTHROPIC_DEFAULT_SONNET_MODEL", "my-sonnet")],
            "my-sonnet",
        ),
        (
            "haiku",
            &[("ANTHROPIC_DEFAULT_HAIKU_MODEL", "claude-haiku-4-5")],
            "claude-haiku-4-5",
        ),
        ("claude-sonnet-4-5[1m]", &[], "claude-sonnet-4-5[1m]"),
    ];
    for (flag, vars, want) in cases {
        assert_eq!(model_of(&with(flag), vars), want, "{flag} {vars:?}");
    }
    // The default is the alias `default`: Opus, or the Opus override.
    assert_eq!(model_of(&anthropic(), &[]), "claude-opus-5-5");
    let opus_env = [("ANTHROPIC_DEFAULT_OPUS_MODEL", "claude-opus-4-6")];
    assert_eq!(model_of(&anthropic(), &opus_env), "claude-opus-4-6");
    // opusplan is Opus in plan mode.
    let plan = Overrides {
        permission_mode: Some(PermissionMode::Plan),
        ..with("opusplan")
    };
    assert_eq!(model_of(&plan, &[]), "claude-opus-5-5");
}

fn effort(o: &Overrides, vars: &[(&str, &str)], docs: &[(S, &str)]) -> Option<EffortChoice> {
    resolve(o, &env(vars), &settings(docs))
        .effort
        .map(|e| e.value)
}

#[test]
fn effort_precedence_as_claude_code() {
    let level = |l| Some(EffortChoice::Level(l));
    let flag = |m: &str, e: &str| Overrides {
        model: Some(m.into()),
        effort: Some(e.into()),
        ..anthropic()
    };
    let model = |m: &str| Overrides {
        model: Some(m.into()),
        ..anthropic()
    };
    let env_low = [("CLAUDE_CODE_EFFORT_LEVEL", "low")];
    // CLAUDE_CODE_EFFORT_LEVEL=low with --effort high: low.
    assert_eq!(
        effort(&flag("opus", "high"), &env_low, &[]),
        level(Effort::Low)
    );
    assert_eq!(effort(&flag("opus", "high"), &[], &[]), level(Effort::High));
    // A bad value is ignored (Claude Code: a warning, then the default).
    assert_eq!(effort(&flag("opus", "turbo"), &[], &[]), None);
    assert_eq!(
        effort(&model("opus"), &[("CLAUDE_CODE_EFFORT_LEVEL", "auto")], &[]),
        Some(EffortChoice::Auto)
    );
    // --settings '{"effortLevel":"high"}': high.
    let flag_file = [(S::Flag, r#"{"effortLevel": "high"}"#)];
    assert_eq!(effort(&model("opus"), &[], &flag_file), level(Effort::High));
    // ~/.claude/settings.json effortLevel low: not for Opus 5.5 (its own
    // default, medium), but for Opus 4.6.
    let user_file = [(S::User, r#"{"effortLevel": "low"}"#)];
    assert_eq!(effort(&model("opus"), &[], &user_file), None);
    assert_eq!(
        effort(&model("claude-opus-4-6"), &[], &user_file),
        level(Effort::Low)
    );
    // modelSettings.<id>.effortLevel: that model only.
    let per_model = [(
        S::User,
        r#"{"modelSettings": {"claude-opus-5-5": {"effortLevel": "low"}}}"#,
    )];
    assert_eq!(effort(&model("opus"), &[], &per_model), level(Effort::Low));
    assert_eq!(effort(&model("sonnet"), &[], &per_model), None);
}

#[test]
fn thinking_small_fast_model_and_output_limit() {
    let off = settings(&[(S::User, r#"{"alwaysThinkingEnabled": false}"#)]);
    assert!(!resolve(&anthropic(), &env(&[]), &off).thinking_enabled);
    assert!(resolve(&anthropic(), &env(&[]), &settings(&[])).thinking_enabled);
    let config = |vars: &[(&str, &str)]| resolve(&anthropic(), &env(vars), &settings(&[]));
    assert_eq!(
        config(&[]).small_fast_model.as_deref(),
        Some("claude-haiku-5-5")
    );
    let haiku_env = [("ANTHROPIC_DEFAULT_HAIKU_MODEL", "claude-haiku-4-5")];
    assert_eq!(
        config(&haiku_env).small_fast_model.as_deref(),
        Some("claude-haiku-4-5")
    );
    let small_env = [("ANTHROPIC_SMALL_FAST_MODEL", "sonnet")];
    assert_eq!(
        config(&small_env).small_fast_model.as_deref(),
        Some("claude-sonnet-5-5")
    );
    assert_eq!(
        config(&[("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "5000")]).max_output_tokens,
        Some(5000)
    );
    assert_eq!(config(&[]).max_output_tokens, None);
}
