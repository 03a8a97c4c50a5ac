//! Issue 10, item 6: settings files through the binary — model and
//! permission mode from settings, flags and env above them, `--settings`,
//! `--setting-sources`, the settings' `env`, and a malformed file as one
//! `path:line:col` error line.

use orbit_test_support::{FakeAnthropic, Reply};

use super::common::{Outcome, Scratch, orbit, run};

fn write(path: std::path::PathBuf, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `orbit -p hi --output-format stream-json ARGS…` with `env` added; the
/// outcome and the model id of the first request.
/// The project folder is trusted (`--trust-project`): these tests are about
/// the hierarchy of a project whose settings apply; `trust.rs` covers an
/// untrusted one.
fn run_with(scratch: &Scratch, args: &[&str], env: &[(&str, &str)]) -> (Outcome, String) {
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let mut cmd = orbit(scratch, &server);
    cmd.args([
        "-p",
        "hi",
        "--output-format",
        "stream-json",
        "--trust-project",
    ])
    .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run(cmd);
    let model = server
        .requests()
        .first()
        .map(|r| r.body["model"].as_str().unwrap_or_default().to_string())
        .unwrap_or_default();
    (out, model)
}

#[test]
fn project_settings_set_model_and_mode_below_flags_and_env() {
    let scratch = Scratch::new();
    write(
        scratch.path().join(".claude/settings.json"),
        r#"{"model": "haiku", "permissions": {"defaultMode": "acceptEdits"}, "hooks": {}}"#,
    );
    let (out, model) = run_with(&scratch, &[], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(model, "claude-haiku-5-5");
    assert_eq!(out.lines()[0]["permissionMode"], "acceptEdits");
    // orbit's own project file wins over Claude Code's.
    write(
        scratch.path().join(".orbit/settings.json"),
        r#"{"model": "sonnet"}"#,
    );
    let (_, model) = run_with(&scratch, &[], &[]);
    assert_eq!(model, "claude-sonnet-5-5");
    // The environment, then the flags, win over settings.
    let (_, model) = run_with(&scratch, &[], &[("ANTHROPIC_MODEL", "opus")]);
    assert_eq!(model, "claude-opus-5-5");
    let (out, model) = run_with(
        &scratch,
        &["--model", "claude-3-5-haiku", "--permission-mode", "plan"],
        &[("ANTHROPIC_MODEL", "opus")],
    );
    assert_eq!(model, "claude-3-5-haiku");
    assert_eq!(out.lines()[0]["permissionMode"], "plan");
}

#[test]
fn settings_flag_and_user_settings_env() {
    let scratch = Scratch::new();
    write(
        scratch.path().join(".orbit/settings.json"),
        r#"{"model": "haiku"}"#,
    );
    let (out, model) = run_with(&scratch, &["--settings", r#"{"model": "opus"}"#], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(model, "claude-opus-5-5");
    // The user's settings `env` fills what the environment leaves unset.
    let scratch = Scratch::new();
    write(
        scratch.home().join(".orbit/settings.json"),
        r#"{"env": {"ANTHROPIC_MODEL": "haiku"}}"#,
    );
    let (out, model) = run_with(&scratch, &[], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(model, "claude-haiku-5-5");
}

#[test]
fn a_malformed_settings_file_is_one_error_line_with_its_position() {
    let scratch = Scratch::new();
    let path = scratch.path().join(".orbit/settings.json");
    write(
        path.clone(),
        "{\n  \"model\": \"haiku\"\n  \"env\": {}\n}\n",
    );
    let (out, _) = run_with(&scratch, &[], &[]);
    out.assert_error_line(&format!(
        "orbit: error: invalid settings in {}:3:3: expected `,` or `}}`",
        path.display()
    ));
    // Not loading project settings skips it.
    let (out, _) = run_with(&scratch, &["--setting-sources", "user,local"], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let (out, _) = run_with(&scratch, &["--setting-sources", "user,team"], &[]);
    out.assert_error_containing("--setting-sources: unknown source `team`");
}

#[test]
fn project_settings_cannot_bypass_permissions_and_missing_dirs_only_warn() {
    let scratch = Scratch::new();
    write(
        scratch.path().join(".claude/settings.json"),
        r#"{"permissions": {"defaultMode": "bypassPermissions", "additionalDirectories": ["no/such/dir"]}}"#,
    );
    let (out, _) = run_with(&scratch, &[], &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.lines()[0]["permissionMode"], "default");
    let warnings: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(warnings.len(), 2, "{}", out.stderr);
    assert!(
        warnings[0]
            .starts_with("orbit: warning: ignoring permissions.defaultMode `bypassPermissions`"),
        "{}",
        out.stderr
    );
    assert!(
        warnings[1].starts_with("orbit: warning: ignoring additional directory"),
        "{}",
        out.stderr
    );
    // A missing --add-dir is still an error.
    let (out, _) = run_with(&scratch, &["--add-dir", "no/such/dir"], &[]);
    assert_eq!(out.code, 1);
}
