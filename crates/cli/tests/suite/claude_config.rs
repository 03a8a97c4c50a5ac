//! Issue 31: Claude Code's stored configuration read as a source, through
//! the binary — MCP servers of `~/.claude.json` (user scope at the top
//! level, local scope under `projects["<git root>"]`), `CLAUDE_CONFIG_DIR`
//! moving that file and `settings.json`, `orbit mcp list` naming each
//! server's scope and file, and the settings' `env` reaching Bash, hooks
//! and MCP servers after the secret scrub.

use std::path::Path;

use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::{Value, json};

use super::common::{Scratch, orbit_with_env, run, run_stream_json_with_env, tool_results_text};
use super::mcp::{calls, py_script, python, results};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The Python fixture server on stdio (its `add` tool answers `a+b=c`).
fn py_server() -> Value {
    json!({"type": "stdio", "command": python(), "args": [py_script(), "stdio"], "env": {}})
}

/// A `.claude.json` as `claude mcp add` leaves it: other keys around, a
/// user-scope server and a local-scope one under the project's key.
fn claude_json(project_key: &Path) -> String {
    json!({
        "numStartups": 12,
        "tipsHistory": {"x": 1},
        "mcpServers": {"cc-user": py_server()},
        "projects": {
            project_key.display().to_string(): {
                "allowedTools": [],
                "history": [{"display": "old prompt"}],
                "mcpServers": {"cc-local": py_server()}
            },
            "/somewhere/else": {"mcpServers": {"not-here": py_server()}}
        }
    })
    .to_string()
}

#[test]
fn claude_json_servers_of_both_scopes_start_and_are_listed() {
    let scratch = Scratch::new();
    // A git work tree: Claude Code files the project under its root, and
    // orbit runs in a subfolder of it.
    std::fs::create_dir_all(scratch.path().join(".git")).unwrap();
    let sub = scratch.path().join("src");
    std::fs::create_dir_all(&sub).unwrap();
    write(
        &scratch.home().join(".claude.json"),
        &claude_json(&scratch.path()),
    );

    let server = calls(&[
        ("mcp__cc-local__add", json!({"a": 1, "b": 2})),
        ("mcp__cc-user__add", json!({"a": 3, "b": 4})),
    ]);
    let mut cmd = super::common::orbit_at(&sub, &scratch.home(), &server.env());
    cmd.args(["-p", "add", "--output-format", "stream-json"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        results(&server),
        [("1+2=3".to_string(), false), ("3+4=7".to_string(), false)],
        "{}",
        out.stderr
    );
    let names: Vec<String> = out.lines()[0]["mcp_servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        ["cc-local", "cc-user"],
        "another project's server stays out"
    );

    // `orbit mcp list` names each server's scope and file.
    let mut cmd = super::common::orbit_at(&sub, &scratch.home(), &[]);
    cmd.args(["mcp", "list"]);
    let listed = run(cmd);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let text = scratch.redact(&listed.stdout);
    assert!(
        text.contains("cc-local: ")
            && text.contains("(Claude Code local config: [HOME]/.claude.json)"),
        "{text}"
    );
    assert!(
        text.contains("(Claude Code user config: [HOME]/.claude.json)"),
        "{text}"
    );
    // orbit does not edit Claude Code's file.
    let mut cmd = super::common::orbit_at(&sub, &scratch.home(), &[]);
    cmd.args(["mcp", "remove", "cc-user"]);
    run(cmd).assert_error_containing("claude mcp remove cc-user");

    // --strict-mcp-config: none of them.
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let mut cmd = super::common::orbit_at(&sub, &scratch.home(), &server.env());
    cmd.args([
        "-p",
        "hi",
        "--output-format",
        "stream-json",
        "--strict-mcp-config",
    ]);
    let out = run(cmd);
    assert_eq!(out.lines()[0]["mcp_servers"], json!([]), "{}", out.stdout);
}

#[test]
fn claude_config_dir_moves_claude_json_and_settings() {
    let scratch = Scratch::new();
    let moved = scratch.home().join("elsewhere");
    write(&moved.join(".claude.json"), &claude_json(&scratch.path()));
    write(
        &moved.join("settings.json"),
        r#"{"env": {"FROM_MOVED": "yes"}}"#,
    );
    // What is in the home is not read once the directory moved.
    write(
        &scratch.home().join(".claude.json"),
        &json!({"mcpServers": {"home-one": py_server()}}).to_string(),
    );
    write(
        &scratch.home().join(".claude/settings.json"),
        r#"{"env": {"FROM_HOME": "yes"}}"#,
    );
    let server = FakeAnthropic::start(vec![
        Reply::tool_use(
            "toolu_1",
            "Bash",
            json!({"command": "echo moved=$FROM_MOVED home=$FROM_HOME"}),
        ),
        Reply::text("done"),
    ]);
    let mut env = server.env();
    env.push(("CLAUDE_CONFIG_DIR".into(), moved.display().to_string()));
    let out = run_stream_json_with_env(&scratch, &env, "go", &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut names: Vec<String> = out.lines()[0]["mcp_servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["cc-local", "cc-user"]);
    let said = tool_results_text(&server.bodies()[1]);
    assert!(said.contains("moved=yes home="), "{said}");
    assert!(!said.contains("home=yes"), "{said}");
}

#[test]
fn settings_env_reaches_bash_hooks_and_mcp_servers_but_not_secrets() {
    let scratch = Scratch::new();
    let hook_file = scratch.home().join("hook.txt");
    let pidfile = scratch.home().join("server.pid");
    // Claude Code's user settings, as a user switching has them.
    write(
        &scratch.home().join(".claude/settings.json"),
        &json!({
            "env": {
                "FOO": "bar",
                "ORBIT_DEPLOY_TOKEN": "s3cret",
                "PY_MCP_PIDFILE": pidfile.display().to_string()
            },
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": format!("echo hook=$FOO token=$ORBIT_DEPLOY_TOKEN > {}", hook_file.display())}
            ]}]}
        })
        .to_string(),
    );
    let mcp = json!({"mcpServers": {"py": py_server()}}).to_string();
    let server = calls(&[
        (
            "Bash",
            json!({"command": "echo v=$FOO t=$ORBIT_DEPLOY_TOKEN"}),
        ),
        ("mcp__py__add", json!({"a": 2, "b": 2})),
    ]);
    let mut cmd = orbit_with_env(&scratch, &server.env());
    cmd.args([
        "-p",
        "go",
        "--output-format",
        "stream-json",
        "--allowedTools",
        "Bash",
        "--mcp-config",
        &mcp,
    ]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let got = results(&server);
    // Claude Code prints `v=bar`; the secret-named variable is scrubbed.
    assert_eq!(got[0], ("v=bar t=".to_string(), false), "{got:?}");
    assert_eq!(got[1], ("2+2=4".to_string(), false), "{got:?}");
    assert_eq!(
        std::fs::read_to_string(&hook_file).unwrap(),
        "hook=bar token=\n"
    );
    // The MCP server saw the settings' variable (it wrote its pid there).
    assert!(
        pidfile.exists(),
        "PY_MCP_PIDFILE from settings env did not reach the server"
    );
}
