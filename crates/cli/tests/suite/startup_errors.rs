//! Errors that stop a run before any model call print exactly one
//! `orbit: error: …` line on stderr and exit 1.

use super::common::{Scratch, orbit_with_env, run};

fn assert_one_error_line(out: &super::common::Outcome, needle: &str) {
    assert_eq!(out.stdout, "");
    out.one_error_line(needle);
}

#[test]
fn no_api_key_and_no_base_url_says_what_to_set() {
    let scratch = Scratch::new();
    let mut cmd = orbit_with_env(&scratch, &[]);
    // Without --provider, no key means the local model (issue 6).
    cmd.args(["--provider", "anthropic", "-p", "hi"]);
    assert_one_error_line(&run(cmd), "set ANTHROPIC_API_KEY");
}

#[test]
fn bad_base_url_scheme_fails_before_any_request() {
    let scratch = Scratch::new();
    let env = [
        (
            "ANTHROPIC_BASE_URL".to_string(),
            "ftp://127.0.0.1:1".to_string(),
        ),
        ("ANTHROPIC_API_KEY".to_string(), "k".to_string()),
    ];
    let mut cmd = orbit_with_env(&scratch, &env);
    cmd.args(["-p", "hi"]);
    assert_one_error_line(&run(cmd), "ANTHROPIC_BASE_URL");
}

#[test]
fn bad_flags_and_values_exit_1_with_one_line() {
    let scratch = Scratch::new();
    let env = [("ANTHROPIC_API_KEY".to_string(), "k".to_string())];
    for (args, needle) in [
        (&["-p", "hi", "--no-such-flag"][..], "--no-such-flag"),
        (&["-p", "hi", "--permission-mode", "yolo"][..], "yolo"),
        (&["-p", "hi", "--max-turns", "zero"][..], "--max-turns"),
        (&["-p", "hi", "--output-format", "xml"][..], "xml"),
    ] {
        let mut cmd = orbit_with_env(&scratch, &env);
        cmd.args(args);
        assert_one_error_line(&run(cmd), needle);
    }
}

#[test]
fn missing_prompt_is_one_clear_line() {
    let scratch = Scratch::new();
    let env = [("ANTHROPIC_API_KEY".to_string(), "k".to_string())];
    let mut cmd = orbit_with_env(&scratch, &env);
    cmd.args(["-p"]).write_stdin("");
    assert_one_error_line(&run(cmd), "prompt");
    let mut cmd = orbit_with_env(&scratch, &env);
    cmd.args(["-p", "hi", "--cwd", "/nonexistent/orbit-dir"]);
    assert_one_error_line(&run(cmd), "/nonexistent/orbit-dir");
}

#[test]
fn help_and_version_exit_0() {
    let scratch = Scratch::new();
    let mut cmd = orbit_with_env(&scratch, &[]);
    cmd.arg("--help");
    let out = run(cmd);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("--output-format"), "{}", out.stdout);
    let mut cmd = orbit_with_env(&scratch, &[]);
    cmd.arg("--version");
    let out = run(cmd);
    assert_eq!(out.code, 0);
    assert!(out.stdout.starts_with("orbit "), "{}", out.stdout);
}
