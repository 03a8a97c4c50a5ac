//! Each Claude Agent SDK's exact command line for every option it
//! documents (TypeScript 0.3.337, Python 0.2.190): a script records the
//! argv the SDK starts orbit with, then runs orbit with it against the fake
//! server. An SDK upgrade that changes the argv fails here first; the run
//! shows orbit parses it all (unknown options noted once, not fatal).

use std::path::Path;

use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::Value;

use super::common::Scratch;
use super::mcp::{py_script, python};
use super::sdk::Printed;
use super::sdk_options::{Runner, messages, one_result, py, ts};

/// The session id both argv programs give.
const SESSION_ID: &str = "6f1c2b9e-3c3a-4c55-9d7e-0b6f0e6a1d2c";

/// A script that records its argv (one per line) in `log`, then runs orbit
/// with it: the executable the SDK starts.
fn recorder(dir: &Path, log: &Path) -> String {
    let path = dir.join("record-argv.sh");
    let script = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\nexec '{}' \"$@\"\n",
        log.display(),
        env!("CARGO_BIN_EXE_orbit")
    );
    std::fs::write(&path, script).unwrap();
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&path, perms).unwrap();
    path.display().to_string()
}

/// Runs an argv scenario; returns the argv the SDK gave (with the
/// scratch paths as `{cwd}` and `{dir}`), what it printed, and the server.
fn argv_run(run: Runner) -> (Vec<String>, Printed, FakeAnthropic) {
    let scratch = Scratch::new();
    let tools = tempfile::tempdir().unwrap();
    let extra = scratch.home().join("extra");
    std::fs::create_dir_all(&extra).unwrap();
    let log = tools.path().join("argv.txt");
    let server = FakeAnthropic::start(vec![Reply::text("the argv word")]);
    let env = [
        ("ORBIT_CLI", recorder(tools.path(), &log)),
        ("ORBIT_EXTRA_DIR", extra.display().to_string()),
        ("ORBIT_PYTHON", python()),
        ("ORBIT_MCP_SERVER", py_script()),
    ];
    let printed = run("argv", &scratch, &server, &env);
    let argv = std::fs::read_to_string(&log)
        .unwrap()
        .replace(&extra.display().to_string(), "{dir}")
        .replace(&scratch.path().display().to_string(), "{cwd}")
        .lines()
        .map(str::to_string)
        .collect();
    (argv, printed, server)
}

/// Every note is printed once; the options no orbit knows (the programs'
/// `extraArgs`/`extra_args`) are among them; the flags noted as not
/// honoured are the ones `system/init` lists (when given). Which flags
/// orbit honours changes as it grows, so the list is not held here.
fn assert_noted_once(sdk: &str, stderr: &str, init: Option<&Value>) {
    let notes: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("orbit: note: "))
        .collect();
    for note in &notes {
        let count = notes.iter().filter(|n| n == &note).count();
        assert_eq!(count, 1, "{sdk}: noted {count} times: {note}\n{stderr}");
    }
    for unknown in ["--future-flag", "--bare-future-flag"] {
        let line = format!("orbit: note: {unknown} is not an orbit option");
        assert!(
            notes.iter().any(|n| n.starts_with(&line)),
            "{sdk}: {stderr}"
        );
    }
    assert!(!stderr.contains("unexpected argument"), "{sdk}: {stderr}");
    let Some(init) = init else { return };
    let not_honoured: Vec<String> = notes
        .iter()
        .filter_map(|n| n.strip_suffix(" is accepted but not honoured yet"))
        .filter_map(|n| n.strip_prefix("orbit: note: "))
        .map(|n| n.to_string())
        .collect();
    let listed: Vec<String> = init["orbit_not_honoured"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .filter(|n| n.starts_with("--"))
        .collect();
    assert_eq!(listed, not_honoured, "{sdk}: {init}");
    assert!(!listed.is_empty(), "{sdk}: {init}");
}

#[test]
fn the_typescript_sdks_argv_for_every_option_parses_and_runs() {
    let (argv, printed, server) = argv_run(ts);
    let want = [
        "--output-format",
        "stream-json",
        "--verbose",
        "--input-format",
        "stream-json",
        "--max-thinking-tokens=2048",
        "--thinking-display=summarized",
        "--effort=high",
        "--max-turns=3",
        "--max-budget-usd=5",
        "--task-budget=1000",
        "--model=claude-sonnet-4-5",
        "--agent=reviewer",
        "--betas=context-1m-2025-08-07",
        "--debug-file={dir}/debug.log",
        "--permission-prompt-tool=stdio",
        "--permission-prompts=host",
        "--allowedTools=Read",
        "--disallowedTools=Bash(rm:*)",
        "--tools=Read,Bash,Glob",
        "--setting-sources=project",
        "--strict-mcp-config",
        "--permission-mode=acceptEdits",
        "--allow-dangerously-skip-permissions",
        "--fallback-model=claude-haiku-4-5",
        "--include-hook-events",
        "--include-partial-messages",
        "--project-config-root={cwd}",
        "--add-dir={dir}",
        "--await-initialize",
        "--plugin-dir={dir}",
        &format!("--session-id={SESSION_ID}"),
        "--no-session-persistence",
        "--future-flag",
        "some value",
        "--bare-future-flag",
        "--settings",
        r#"{"env":{"ORBIT_ARGV_SETTING":"1"}}"#,
    ];
    assert_eq!(argv, want, "{}", printed.stderr);
    let result = one_result(&printed);
    assert_eq!(result["subtype"], "success", "{}", printed.stderr);
    assert_eq!(result["result"], "the argv word");
    // The options reached the request: the tools, the system prompt from
    // `initialize`, and the stdio MCP server sent in `initialize`.
    let requests = server.requests();
    let tools = body::tool_names(&requests[0].body);
    assert!(tools.contains(&"Read".to_string()), "{tools:?}");
    assert!(!tools.contains(&"Write".to_string()), "{tools:?}");
    assert!(body::system_text(&requests[0].body).contains("You are the argv bot."));
    let init = messages(&printed, "system");
    assert_eq!(init[0]["session_id"], SESSION_ID);
    assert_noted_once("typescript", &printed.stderr, Some(init[0]));
}

#[test]
fn the_python_sdks_argv_for_every_option_parses_and_runs() {
    let (argv, printed, server) = argv_run(py);
    // Python's json.dumps spacing.
    let mcp = format!(
        r#"{{"mcpServers": {{"calc": {{"type": "sdk", "name": "calc"}}, "py": {{"type": "stdio", "command": "{}", "args": ["{}", "stdio"]}}}}}}"#,
        python(),
        py_script()
    );
    let want = [
        "--output-format",
        "stream-json",
        "--verbose",
        "--system-prompt=You are the argv bot.",
        "--tools=Read,Bash,Glob",
        "--allowedTools=Read",
        "--max-turns=3",
        "--max-budget-usd=5.0",
        "--disallowedTools=Bash(rm:*)",
        "--task-budget=1000",
        "--model=claude-sonnet-4-5",
        "--fallback-model=claude-haiku-4-5",
        "--betas=context-1m-2025-08-07",
        "--permission-prompt-tool=stdio",
        "--permission-mode=acceptEdits",
        &format!("--session-id={SESSION_ID}"),
        "--settings",
        r#"{"env": {"ORBIT_ARGV_SETTING": "1"}}"#,
        "--add-dir={dir}",
        "--mcp-config",
        &mcp,
        "--include-partial-messages",
        "--include-hook-events",
        "--strict-mcp-config",
        "--setting-sources=project",
        "--plugin-dir={dir}",
        "--future-flag",
        "some value",
        "--bare-future-flag",
        "--max-thinking-tokens=2048",
        "--thinking-display=summarized",
        "--effort=high",
        "--input-format",
        "stream-json",
    ];
    let results = printed.of_kind("result");
    assert_eq!(argv, want, "{}", printed.stderr);
    assert_eq!(results.len(), 1, "{}", printed.stderr);
    assert_eq!(results[0]["subtype"], "success", "{}", printed.stderr);
    assert_noted_once("python", &printed.stderr, None);
    let requests = server.requests();
    let tools = body::tool_names(&requests[0].body);
    assert!(!tools.contains(&"Write".to_string()), "{tools:?}");
    assert!(body::system_text(&requests[0].body).contains("You are the argv bot."));
}
