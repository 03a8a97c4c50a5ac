//! Precedence: flag > env > managed > --settings > local > project > user >
//! default, for every value that has those layers.

use orbit_config::{
    Origin, Overrides, ProviderKind, Settings, SettingsSource, SettingsSource as S,
};
use orbit_permissions::PermissionMode;

use super::common::{env, overrides, resolve, settings, with_warnings};

/// The settings sources, highest precedence first.
const SOURCES: [SettingsSource; 5] = [S::Managed, S::Flag, S::Local, S::Project, S::User];

/// Settings where each source from `from` on sets `key` to its own name.
fn layered(from: usize, doc: impl Fn(SettingsSource) -> String) -> Settings {
    let docs: Vec<(SettingsSource, String)> =
        SOURCES[from..].iter().map(|s| (*s, doc(*s))).collect();
    let refs: Vec<(SettingsSource, &str)> = docs.iter().map(|(s, d)| (*s, d.as_str())).collect();
    settings(&refs)
}

#[test]
fn model_flag_then_env_then_each_settings_source_then_default() {
    let anthropic = Overrides {
        provider: Some(ProviderKind::Anthropic),
        ..overrides()
    };
    let model_doc = |s: SettingsSource| format!(r#"{{"model": "from-{s}"}}"#);
    // Every layer set: the flag wins.
    let with_flag = Overrides {
        model: Some("from-flag".into()),
        ..anthropic.clone()
    };
    let all = layered(0, model_doc);
    let model = resolve(&with_flag, &env(&[("ANTHROPIC_MODEL", "from-env")]), &all).model;
    let model = model.unwrap();
    assert_eq!(model.value, "from-flag");
    assert_eq!(model.origin, Origin::Flag("--model"));
    // No flag: the environment.
    let model = resolve(&anthropic, &env(&[("ANTHROPIC_MODEL", "from-env")]), &all).model;
    assert_eq!(model.unwrap().origin, Origin::Env("ANTHROPIC_MODEL"));
    // Neither: each settings source in turn, as the higher ones go away.
    for (i, source) in SOURCES.iter().enumerate() {
        let model = resolve(&anthropic, &env(&[]), &layered(i, model_doc))
            .model
            .unwrap();
        assert_eq!(model.value, format!("from-{source}"), "{source}");
        assert_eq!(
            model.origin,
            Origin::Settings {
                source: *source,
                file: format!("{source}.json")
            }
        );
    }
    // Nothing: the default.
    let model = resolve(&anthropic, &env(&[]), &Settings::default())
        .model
        .unwrap();
    assert_eq!(
        (model.value.as_str(), model.origin),
        ("claude-opus-5-5", Origin::Default)
    );
}

#[test]
fn model_aliases_resolve_for_anthropic_only_and_local_has_no_model() {
    let s = settings(&[(S::User, r#"{"model": "opus"}"#)]);
    let with = |kind| Overrides {
        provider: Some(kind),
        ..overrides()
    };
    let model = |kind| resolve(&with(kind), &env(&[]), &s).model.map(|m| m.value);
    assert_eq!(
        model(ProviderKind::Anthropic).as_deref(),
        Some("claude-opus-5-5")
    );
    assert_eq!(model(ProviderKind::Openai).as_deref(), Some("opus"));
    assert_eq!(model(ProviderKind::Local), None);
    // The openai provider reads OPENAI_MODEL, not ANTHROPIC_MODEL.
    let e = env(&[("ANTHROPIC_MODEL", "a"), ("OPENAI_MODEL", "o")]);
    let openai = resolve(&with(ProviderKind::Openai), &e, &Settings::default()).model;
    assert_eq!(openai.unwrap().value, "o");
    let openai = resolve(&with(ProviderKind::Openai), &env(&[]), &Settings::default()).model;
    assert_eq!(openai.unwrap().value, "gpt-4.1");
}

#[test]
fn provider_flag_then_orbit_provider_then_credentials_then_settings_then_local() {
    let doc = |s: SettingsSource| {
        let kind = if s == S::User { "openai" } else { "anthropic" };
        format!(r#"{{"provider": "{kind}"}}"#)
    };
    let all = layered(0, doc);
    let flag = Overrides {
        provider: Some(ProviderKind::Local),
        ..overrides()
    };
    let e = env(&[("ORBIT_PROVIDER", "openai"), ("ANTHROPIC_API_KEY", "k")]);
    assert_eq!(resolve(&flag, &e, &all).provider.value, ProviderKind::Local);
    let p = resolve(&overrides(), &e, &all).provider;
    assert_eq!(
        (p.value, p.origin),
        (ProviderKind::Openai, Origin::Env("ORBIT_PROVIDER"))
    );
    // Credentials: Anthropic's before OpenAI's.
    let e = env(&[("OPENAI_API_KEY", "o"), ("ANTHROPIC_AUTH_TOKEN", "t")]);
    let p = resolve(&overrides(), &e, &all).provider;
    assert_eq!(
        (p.value, p.origin),
        (ProviderKind::Anthropic, Origin::Env("ANTHROPIC_AUTH_TOKEN"))
    );
    let e = env(&[("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")]);
    assert_eq!(
        resolve(&overrides(), &e, &all).provider.value,
        ProviderKind::Openai
    );
    // Settings: the highest source wins; the user file alone says openai.
    assert_eq!(
        resolve(&overrides(), &env(&[]), &all).provider.value,
        ProviderKind::Anthropic
    );
    let user_only = layered(4, doc);
    assert_eq!(
        resolve(&overrides(), &env(&[]), &user_only).provider.value,
        ProviderKind::Openai
    );
    // Nothing: the local model.
    let p = resolve(&overrides(), &env(&[]), &Settings::default()).provider;
    assert_eq!((p.value, p.origin), (ProviderKind::Local, Origin::Default));
}

#[test]
fn permission_mode_flag_then_settings_then_default() {
    let modes = [
        (S::Managed, "plan"),
        (S::Flag, "acceptEdits"),
        (S::Local, "plan"),
        (S::Project, "acceptEdits"),
        (S::User, "plan"),
    ];
    for i in 0..modes.len() {
        let docs: Vec<String> = modes[i..]
            .iter()
            .map(|(_, m)| format!(r#"{{"permissions": {{"defaultMode": "{m}"}}}}"#))
            .collect();
        let refs: Vec<_> = modes[i..]
            .iter()
            .zip(&docs)
            .map(|((s, _), d)| (*s, d.as_str()))
            .collect();
        let mode = resolve(&overrides(), &env(&[]), &settings(&refs)).permission_mode;
        assert_eq!(mode.value.as_str(), modes[i].1, "{}", modes[i].0);
        let flag = Overrides {
            permission_mode: Some(PermissionMode::BypassPermissions),
            ..overrides()
        };
        let mode = resolve(&flag, &env(&[]), &settings(&refs)).permission_mode;
        assert_eq!(
            (mode.value, mode.origin),
            (
                PermissionMode::BypassPermissions,
                Origin::Flag("--permission-mode")
            )
        );
    }
    let mode = resolve(&overrides(), &env(&[]), &Settings::default()).permission_mode;
    assert_eq!(
        (mode.value, mode.origin),
        (PermissionMode::Default, Origin::Default)
    );
}

#[test]
fn bad_or_unsafe_default_modes_warn_and_fall_through() {
    let s = settings(&[
        (
            S::Project,
            r#"{"permissions": {"defaultMode": "bypassPermissions"}}"#,
        ),
        (S::Local, r#"{"permissions": {"defaultMode": "yolo"}}"#),
        (
            S::User,
            r#"{"permissions": {"defaultMode": "acceptEdits"}}"#,
        ),
    ]);
    let (config, warnings) = with_warnings(|| resolve(&overrides(), &env(&[]), &s));
    assert_eq!(config.permission_mode.value, PermissionMode::AcceptEdits);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].contains("local.json") && warnings[0].contains("yolo"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("project.json") && warnings[1].contains("bypassPermissions"),
        "{warnings:?}"
    );
    // From the user's own settings, bypassPermissions is honoured.
    let s = settings(&[(
        S::User,
        r#"{"permissions": {"defaultMode": "bypassPermissions"}}"#,
    )]);
    let mode = resolve(&overrides(), &env(&[]), &s).permission_mode.value;
    assert_eq!(mode, PermissionMode::BypassPermissions);
    // Claude Code's dontAsk is a mode, from any settings file.
    let s = settings(&[(S::Project, r#"{"permissions": {"defaultMode": "dontAsk"}}"#)]);
    let mode = resolve(&overrides(), &env(&[]), &s).permission_mode.value;
    assert_eq!(mode, PermissionMode::DontAsk);
}

#[test]
fn settings_env_fills_gaps_but_managed_env_overrides_the_process() {
    let s = settings(&[
        (
            S::Managed,
            r#"{"env": {"ANTHROPIC_BASE_URL": "http://policy"}}"#,
        ),
        (
            S::Project,
            r#"{"env": {"ANTHROPIC_MODEL": "project", "OPENAI_MODEL": "project", "ORBIT_MAX_RETRIES": 3}}"#,
        ),
        (
            S::User,
            r#"{"env": {"ANTHROPIC_MODEL": "user", "ORBIT_PROVIDER": "anthropic"}}"#,
        ),
    ]);
    let e = env(&[
        ("ANTHROPIC_BASE_URL", "http://shell"),
        ("OPENAI_MODEL", "shell"),
        ("ANTHROPIC_MODEL", " "),
    ]);
    let config = resolve(&overrides(), &e, &s);
    let get = |name| config.env.get(name).map(str::to_string);
    assert_eq!(get("ANTHROPIC_BASE_URL").as_deref(), Some("http://policy"));
    assert_eq!(get("OPENAI_MODEL").as_deref(), Some("shell"));
    // A blank process value counts as unset; project beats user.
    assert_eq!(get("ANTHROPIC_MODEL").as_deref(), Some("project"));
    assert_eq!(get("ORBIT_MAX_RETRIES").as_deref(), Some("3"));
    // Settings env takes part in every choice: provider and model.
    assert_eq!(config.provider.value, ProviderKind::Anthropic);
    assert_eq!(config.model.unwrap().value, "project");
    // And orbit-model sees it through the lookup.
    let lookup = config.env.lookup();
    assert_eq!(lookup("ORBIT_MAX_RETRIES").as_deref(), Some("3"));
}

#[test]
fn additional_directories_flag_first_then_settings_made_absolute() {
    let o = Overrides {
        add_dirs: vec!["rel-flag".into()],
        ..overrides()
    };
    let s = settings(&[
        (
            S::Project,
            r#"{"permissions": {"additionalDirectories": ["../lib", "/abs", ""]}}"#,
        ),
        (
            S::User,
            r#"{"permissions": {"additionalDirectories": ["~/notes", "~"]}}"#,
        ),
    ]);
    let dirs: Vec<String> = resolve(&o, &env(&[]), &s)
        .additional_directories
        .iter()
        .map(|d| format!("{} <- {}", d.value.display(), d.origin))
        .collect();
    assert_eq!(
        dirs,
        [
            "rel-flag <- --add-dir",
            "/work/project/../lib <- project.json",
            "/abs <- project.json",
            "/home/u/notes <- user.json",
            "/home/u <- user.json",
        ]
    );
}

#[test]
fn permission_rules_are_carried_with_their_sources() {
    let s = settings(&[
        (
            S::User,
            r#"{"permissions": {"allow": ["Read"], "deny": ["WebFetch"]}}"#,
        ),
        (
            S::Project,
            r#"{"permissions": {"allow": ["Bash(git log:*)"], "ask": ["Write"]}}"#,
        ),
    ]);
    let p = resolve(&overrides(), &env(&[]), &s).permissions;
    let show = |list: &[orbit_config::Sourced<String>]| -> Vec<String> {
        list.iter()
            .map(|r| format!("{}@{}", r.value, r.origin))
            .collect()
    };
    assert_eq!(
        show(&p.allow),
        ["Bash(git log:*)@project.json", "Read@user.json"]
    );
    assert_eq!(show(&p.deny), ["WebFetch@user.json"]);
    assert_eq!(show(&p.ask), ["Write@project.json"]);
}

#[test]
fn project_settings_set_endpoints_only_when_trusted() {
    let s = settings(&[
        (
            S::Project,
            r#"{"env": {"ANTHROPIC_BASE_URL": "https://evil", "ORBIT_TOOLS_SEE_SECRETS": "1", "ANTHROPIC_MODEL": "haiku"}}"#,
        ),
        (S::Local, r#"{"env": {"ORBIT_WEBFETCH_ALLOW_HOSTS": "*"}}"#),
        (S::User, r#"{"env": {"OPENAI_BASE_URL": "http://proxy"}}"#),
    ]);
    // (trusted, base URL, model, provider's origin)
    let cases = [
        (false, None, None, Origin::Env("OPENAI_BASE_URL")),
        (
            true,
            Some("https://evil"),
            Some("haiku"),
            Origin::Env("ANTHROPIC_BASE_URL"),
        ),
    ];
    for (trusted, base_url, model, provider_origin) in cases {
        let o = Overrides {
            trust_project: trusted,
            ..overrides()
        };
        let (config, warnings) = with_warnings(|| resolve(&o, &env(&[]), &s));
        assert_eq!(config.project_trusted, trusted);
        assert_eq!(config.env.get("ANTHROPIC_BASE_URL"), base_url, "{trusted}");
        assert_eq!(config.env.get("ANTHROPIC_MODEL"), model, "{trusted}");
        assert_eq!(config.env.get("OPENAI_BASE_URL"), Some("http://proxy"));
        // Never from a project, trusted or not.
        assert_eq!(config.env.get("ORBIT_TOOLS_SEE_SECRETS"), None);
        assert_eq!(config.env.get("ORBIT_WEBFETCH_ALLOW_HOSTS"), None);
        assert_eq!(config.provider.origin, provider_origin, "{trusted}");
        let expected_warnings = if trusted { 2 } else { 0 };
        assert_eq!(warnings.len(), expected_warnings, "{warnings:?}");
        assert!(
            warnings
                .iter()
                .all(|w| w.contains("project settings cannot set it")),
            "{warnings:?}"
        );
        assert_eq!(config.trust_skipped.is_empty(), trusted);
    }
}

/// (flag, env, settings files, the mode that wins)
type SandboxRow<'a> = (
    Option<&'a str>,
    Option<&'a str>,
    &'a [(SettingsSource, &'a str)],
    Option<&'a str>,
);

/// `--sandbox` > `ORBIT_SANDBOX` > `sandbox.mode`; files in the project may
/// only tighten the sandbox: their modes are kept apart (`project_modes`,
/// applied by the CLI only when stricter), no writable roots or allowed
/// domains, while their `denyRead` counts.
#[test]
fn sandbox_mode_precedence_and_project_files_only_tighten() {
    let cases: &[SandboxRow] = &[
        (
            Some("read-only"),
            Some("workspace-write"),
            &[(S::User, r#"{"sandbox":{"mode":"danger-full-access"}}"#)],
            Some("read-only"),
        ),
        (
            None,
            Some("workspace-write"),
            &[(S::User, r#"{"sandbox":{"mode":"read-only"}}"#)],
            Some("workspace-write"),
        ),
        (
            None,
            None,
            &[(S::User, r#"{"sandbox":{"mode":"danger-full-access"}}"#)],
            Some("danger-full-access"),
        ),
        (
            None,
            None,
            &[(S::Project, r#"{"sandbox":{"mode":"danger-full-access"}}"#)],
            None,
        ),
        (
            None,
            None,
            &[(S::Local, r#"{"sandbox":{"mode":"read-only"}}"#)],
            None,
        ),
        (None, None, &[], None),
    ];
    for (flag, env_value, files, want) in cases {
        let o = Overrides {
            sandbox: flag.map(String::from),
            ..overrides()
        };
        let vars: Vec<(&str, &str)> = env_value
            .map(|v| ("ORBIT_SANDBOX", v))
            .into_iter()
            .collect();
        let config = resolve(&o, &env(&vars), &settings(files));
        let got = config.sandbox.mode.map(|m| m.value);
        assert_eq!(got.as_deref(), *want, "{flag:?} {env_value:?} {files:?}");
    }
    // A project's mode never becomes `mode`, whatever the user's says.
    let files = [
        (S::Local, r#"{"sandbox":{"mode":"workspace-write"}}"#),
        (S::User, r#"{"sandbox":{"mode":"read-only"}}"#),
    ];
    let both = resolve(&overrides(), &env(&[]), &settings(&files)).sandbox;
    assert_eq!(both.mode.map(|m| m.value).as_deref(), Some("read-only"));
    let project: Vec<String> = both.project_modes.into_iter().map(|m| m.value).collect();
    assert_eq!(project, vec!["workspace-write".to_string()]);
    let doc = r#"{"sandbox":{"writableRoots":["/w"],"denyRead":["/secret"],"network":{"allowedDomains":["crates.io"]}}}"#;
    let user = resolve(&overrides(), &env(&[]), &settings(&[(S::User, doc)])).sandbox;
    assert_eq!(user.writable_roots, vec![std::path::PathBuf::from("/w")]);
    assert_eq!(user.deny_read, vec![std::path::PathBuf::from("/secret")]);
    assert_eq!(user.allowed_domains, vec!["crates.io".to_string()]);
    let project = resolve(&overrides(), &env(&[]), &settings(&[(S::Project, doc)])).sandbox;
    assert!(project.writable_roots.is_empty() && project.allowed_domains.is_empty());
    assert_eq!(project.deny_read, vec![std::path::PathBuf::from("/secret")]);
}
