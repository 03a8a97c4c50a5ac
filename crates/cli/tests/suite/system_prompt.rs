//! The default system prompt as the model receives it, its overrides, and
//! the 16 KB budget of the first request with the built-in tool set.

use orbit_test_support::{FakeAnthropic, Reply, body};

use super::common::{Scratch, s};
use super::harness::stream_json_ok;

/// Upper bound of the first request body with the built-in tools (issue 2).
const FIRST_REQUEST_MAX_BYTES: usize = 16 * 1024;

fn first_request_system(scratch: &Scratch, extra: &[&str]) -> (String, usize) {
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    stream_json_ok(scratch, &server, "hi", extra);
    let request = server.requests().remove(0);
    (body::system_text(&request.body), request.raw_body.len())
}

#[test]
fn first_request_with_builtin_tools_stays_under_16_kb() {
    let scratch = Scratch::new();
    let (_, len) = first_request_system(&scratch, &[]);
    assert!(
        len < FIRST_REQUEST_MAX_BYTES,
        "first request body is {len} bytes (limit {FIRST_REQUEST_MAX_BYTES})"
    );
}

#[test]
fn default_prompt_has_environment_facts_and_project_instructions() {
    let scratch = Scratch::new();
    scratch.write("CLAUDE.md", "Always answer in haiku.\n");
    scratch.write("AGENTS.md", "Run `make check` before finishing.\n");
    let (system, _) = first_request_system(&scratch, &[]);
    assert!(system.starts_with("You are orbit"), "{system}");
    assert!(
        system.contains(&format!("Working directory: {}\n", s(&scratch.path()))),
        "{system}"
    );
    assert!(system.contains("Is a git repository: no\n"), "{system}");
    assert!(
        system.contains(&format!("Platform: {}\n", std::env::consts::OS)),
        "{system}"
    );
    let today = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .unwrap();
    let today = String::from_utf8_lossy(&today.stdout).trim().to_string();
    assert!(
        system.contains(&format!("Today's date: {today}\n")),
        "{system}"
    );
    let claude = system
        .find("Always answer in haiku.")
        .expect("CLAUDE.md included");
    let agents = system
        .find("Run `make check` before finishing.")
        .expect("AGENTS.md included");
    assert!(claude < agents);
}

#[test]
fn git_repo_is_detected_and_large_instructions_are_cut() {
    let scratch = Scratch::new();
    std::fs::create_dir(scratch.path().join(".git")).unwrap();
    let big = "x".repeat(50 * 1024);
    scratch.write("AGENTS.md", &big);
    let (system, _) = first_request_system(&scratch, &[]);
    assert!(system.contains("Is a git repository: yes\n"), "{system}");
    assert!(
        system.contains("[AGENTS.md truncated: showing the first 40960 of 51200 bytes]"),
        "no truncation note"
    );
    assert!(!system.contains(&big));
}

#[test]
fn system_prompt_flags_replace_and_append() {
    let scratch = Scratch::new();
    scratch.write("CLAUDE.md", "project rule\n");
    let (system, _) = first_request_system(&scratch, &["--system-prompt", "Custom."]);
    assert_eq!(system, "Custom.");
    let (system, _) = first_request_system(
        &scratch,
        &[
            "--system-prompt",
            "Custom.",
            "--append-system-prompt",
            "Also this.",
        ],
    );
    assert_eq!(system, "Custom.\n\nAlso this.");
    let (system, _) = first_request_system(&scratch, &["--append-system-prompt", "Also this."]);
    assert!(system.starts_with("You are orbit"));
    assert!(system.contains("project rule"));
    assert!(system.ends_with("\n\nAlso this."), "{system}");
}
