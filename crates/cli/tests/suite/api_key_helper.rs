//! `apiKeyHelper` (issue 36) through the binary: the key comes from the
//! settings command (sent as `x-api-key` and bearer), is kept for the TTL,
//! is fetched again after a 401 (one retry), a hanging helper fails the run
//! with one error line, and an untrusted project's helper never runs.

use std::path::Path;

use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::json;

use super::common::{Scratch, orbit_with_env, run};

/// A helper that counts its runs in `dir/runs` and prints `key-<run>`.
fn counting_helper(dir: &Path) -> String {
    let runs = dir.join("runs");
    format!(
        "echo run >> '{0}'; echo key-$(wc -l < '{0}' | tr -d ' ')",
        runs.display()
    )
}

fn user_settings(scratch: &Scratch, helper: &str) {
    let dir = scratch.home().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    let settings = json!({ "apiKeyHelper": helper });
    std::fs::write(dir.join("settings.json"), settings.to_string()).unwrap();
}

/// The server's URL and the fast retry backoff, but no API key variable.
fn env_without_key(server: &FakeAnthropic) -> Vec<(String, String)> {
    server
        .env()
        .into_iter()
        .filter(|(k, _)| k != "ANTHROPIC_API_KEY")
        .collect()
}

fn runs(scratch: &Scratch) -> usize {
    std::fs::read_to_string(scratch.home().join("runs"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// First key refused with a 401: the helper runs again and the call is
/// retried once with the new key; the next call of the session keeps it
/// (TTL); the key never reaches stderr.
#[test]
fn a_401_runs_the_helper_again_and_retries_once() {
    let scratch = Scratch::new();
    user_settings(&scratch, &counting_helper(&scratch.home()));
    let server = FakeAnthropic::start(vec![
        Reply::api_error(401, "authentication_error", "invalid x-api-key"),
        Reply::tool_use("toolu_1", "Glob", json!({"pattern": "*.none"})),
        Reply::text("rotated fine"),
    ]);
    let mut cmd = orbit_with_env(&scratch, &env_without_key(&server));
    cmd.args(["-p", "hi", "--allowedTools", "Glob"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("rotated fine"), "{}", out.stdout);
    let keys: Vec<_> = server
        .requests()
        .iter()
        .map(|r| {
            (
                r.header("x-api-key").unwrap_or_default().to_string(),
                r.header("authorization").unwrap_or_default().to_string(),
            )
        })
        .collect();
    let pair = |k: &str| (k.to_string(), format!("Bearer {k}"));
    assert_eq!(keys, vec![pair("key-1"), pair("key-2"), pair("key-2")]);
    assert_eq!(runs(&scratch), 2, "one run, one after the 401");
    assert!(!out.stderr.contains("key-"), "{}", out.stderr);
}

/// A helper that hangs fails the run with one error line, before any
/// request.
#[test]
fn a_hanging_helper_times_out_with_one_line() {
    let scratch = Scratch::new();
    user_settings(&scratch, "sleep 30; echo late-key");
    let server = FakeAnthropic::start(vec![Reply::text("never")]);
    let mut env = env_without_key(&server);
    env.push(("ORBIT_API_KEY_HELPER_TIMEOUT_MS".into(), "300".into()));
    let mut cmd = orbit_with_env(&scratch, &env);
    cmd.args(["-p", "hi"]);
    let started = std::time::Instant::now();
    let out = run(cmd);
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    let line = out.one_error_line("apiKeyHelper timed out");
    assert!(!line.contains("late-key"), "{line}");
    assert_eq!(server.requests().len(), 0);
}

/// An untrusted project's `apiKeyHelper` never runs.
#[test]
fn an_untrusted_projects_helper_does_not_run() {
    let scratch = Scratch::new();
    let marker = scratch.path().join("PWNED");
    let dir = scratch.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    let helper = format!("touch '{}'; echo project-key", marker.display());
    std::fs::write(
        dir.join("settings.json"),
        json!({ "apiKeyHelper": helper }).to_string(),
    )
    .unwrap();
    let server = FakeAnthropic::start(vec![Reply::text("never")]);
    let mut cmd = orbit_with_env(&scratch, &env_without_key(&server));
    cmd.args(["-p", "hi"]);
    let out = run(cmd);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(!marker.exists(), "the project's helper ran");
    assert!(server.requests().is_empty());
}
