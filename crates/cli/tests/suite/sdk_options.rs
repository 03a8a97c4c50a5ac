//! The options of the Claude Agent SDKs as they ship (TypeScript 0.3.337,
//! Python 0.2.190, pinned in `ci/deps.txt`), each through the real `orbit`
//! binary against the fake Anthropic server: `fixtures/sdk_options.mjs`
//! and `fixtures/sdk_options.py` set them, the tests check what the program
//! got back and what the model received. The argv tests hold each SDK's
//! exact command line for every option it documents (an SDK upgrade that
//! changes it fails here first) and show orbit runs it.

use std::path::Path;
use std::time::Duration;

use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use serde_json::{Value, json};

use super::common::Scratch;
use super::mcp::{py_script, python};
use super::sdk::{Printed, sdk_program};
use super::sdk_ts::sdk_module;

/// The session id both argv programs give.
const SESSION_ID: &str = "6f1c2b9e-3c3a-4c55-9d7e-0b6f0e6a1d2c";

/// Runs `fixtures/sdk_options.mjs SCENARIO` with node.
fn ts(
    scenario: &str,
    scratch: &Scratch,
    server: &FakeAnthropic,
    env: &[(&str, String)],
) -> Printed {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sdk_options.mjs"
    );
    let mut all = vec![("ORBIT_TS_SDK", sdk_module())];
    all.extend(env.iter().cloned());
    sdk_program("node", script, scenario, &all, scratch, server)
}

/// Runs `fixtures/sdk_options.py SCENARIO` with the SDK's Python.
fn py(
    scenario: &str,
    scratch: &Scratch,
    server: &FakeAnthropic,
    env: &[(&str, String)],
) -> Printed {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sdk_options.py");
    sdk_program(&python(), script, scenario, env, scratch, server)
}

/// The TypeScript program's messages of one type.
fn messages<'a>(printed: &'a Printed, kind: &str) -> Vec<&'a Value> {
    printed
        .of_kind("message")
        .into_iter()
        .map(|line| &line["message"])
        .filter(|m| m["type"] == kind)
        .collect()
}

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
fn argv_run(
    run: fn(&str, &Scratch, &FakeAnthropic, &[(&str, String)]) -> Printed,
) -> (Vec<String>, Printed, FakeAnthropic) {
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
    let results = messages(&printed, "result");
    assert_eq!(results.len(), 1, "{}", printed.stderr);
    assert_eq!(results[0]["subtype"], "success", "{}", printed.stderr);
    assert_eq!(results[0]["result"], "the argv word");
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

#[test]
fn bypass_permissions_with_the_sdks_safety_flag_runs_unasked() {
    let scratch = Scratch::new();
    let target = scratch.path().join("bypassed.txt");
    let write = json!({"file_path": target.display().to_string(), "content": "no ask\n"});
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_w", "Write", write),
        Reply::text("written"),
    ]);
    let printed = ts("bypass", &scratch, &server, &[]);
    let results = messages(&printed, "result");
    assert_eq!(results.len(), 1, "{}", printed.stderr);
    assert_eq!(results[0]["result"], "written");
    assert_eq!(
        messages(&printed, "system")[0]["permissionMode"],
        "bypassPermissions"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "no ask\n");
}

#[test]
fn an_in_process_mcp_server_of_the_typescript_sdk_answers_the_model() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_add", "mcp__calc__add", json!({"a": 2, "b": 40})),
        Reply::text("it is 42"),
    ]);
    let printed = ts("sdk_mcp", &scratch, &server, &[]);
    let ran = printed.of_kind("tool_ran");
    assert_eq!(ran.len(), 1, "{}", printed.stderr);
    assert_eq!(ran[0]["args"], json!({"a": 2, "b": 40}));
    let init = messages(&printed, "system");
    assert_eq!(
        init[0]["mcp_servers"][0]["name"], "calc",
        "{}",
        printed.stderr
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let results = body::tool_results(&requests[1].body);
    assert_eq!(results[0].text, "2+40=42");
    assert!(!results[0].is_error);
    assert_eq!(messages(&printed, "result")[0]["result"], "it is 42");
    // The result reached the program as content blocks (as Claude Code
    // sends an MCP tool's result).
    let users = messages(&printed, "user");
    let blocks = json!([{"type": "text", "text": "2+40=42"}]);
    assert_eq!(
        users[0]["message"]["content"][0]["content"], blocks,
        "{users:?}"
    );
    assert_eq!(users[0]["tool_use_result"], blocks);
}

#[test]
fn can_use_tool_gets_suggestions_and_a_picked_rule_allows_the_next_call() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Bash", json!({"command": "touch one.txt"})),
        Reply::tool_use("toolu_2", "Bash", json!({"command": "touch one.txt"})),
        Reply::text("ran twice"),
    ]);
    let printed = ts("suggestions", &scratch, &server, &[]);
    let asked = printed.of_kind("asked");
    // Asked once: the rule picked from the suggestions allowed the second.
    assert_eq!(asked.len(), 1, "{asked:?} {}", printed.stderr);
    let offered = &asked[0]["suggestions"][0];
    assert_eq!(offered["type"], "addRules", "{asked:?}");
    assert_eq!(offered["behavior"], "allow");
    assert_eq!(offered["rules"][0]["toolName"], "Bash");
    assert_eq!(offered["rules"][0]["ruleContent"], "touch one.txt");
    assert!(scratch.path().join("one.txt").exists());
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(!body::tool_results(&requests[2].body)[0].is_error);
}

#[test]
fn a_hook_answer_for_another_event_is_refused_and_the_call_not_run() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_b", "Bash", json!({"command": "echo ran > ran.txt"})),
        Reply::text("done"),
    ]);
    let printed = ts("hook_wrong_name", &scratch, &server, &[]);
    assert_eq!(messages(&printed, "result").len(), 1, "{}", printed.stderr);
    assert!(
        !scratch.path().join("ran.txt").exists(),
        "{}",
        printed.stderr
    );
    let told = body::tool_results(&server.requests()[1].body);
    assert!(
        told[0].text.contains("PreToolUse hook failed"),
        "{}",
        told[0].text
    );
}

#[test]
fn a_structured_output_result_carries_the_json_as_its_text() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::tool_use(
        "toolu_out",
        "StructuredOutput",
        json!({"answer": 42}),
    )]);
    let printed = ts("structured", &scratch, &server, &[]);
    let result = messages(&printed, "result");
    assert_eq!(result.len(), 1, "{}", printed.stderr);
    assert_eq!(result[0]["structured_output"], json!({"answer": 42}));
    assert_eq!(result[0]["result"], r#"{"answer":42}"#);
}

#[test]
fn a_stdio_mcp_server_the_typescript_sdk_sends_in_initialize_connects() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_add", "mcp__py__add", json!({"a": 2, "b": 40})),
        Reply::text("it is 42"),
    ]);
    let env = [
        ("ORBIT_PYTHON", python()),
        ("ORBIT_MCP_SERVER", py_script()),
    ];
    let printed = ts("stdio_mcp", &scratch, &server, &env);
    let results = messages(&printed, "result");
    assert_eq!(results.len(), 1, "{}", printed.stderr);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let told = body::tool_results(&requests[1].body);
    assert_eq!(told[0].text, "2+40=42", "{}", printed.stderr);
}

#[test]
fn the_typescript_system_prompt_string_and_preset_append_reach_the_model() {
    for (scenario, marker, orbit_prompt) in [
        (
            "system_prompt_string",
            "You are the pirate bot. SP-MARKER-1",
            false,
        ),
        ("system_prompt_append", "APPEND-MARKER-2", true),
    ] {
        let scratch = Scratch::new();
        let server = FakeAnthropic::start(vec![Reply::text("arr")]);
        let printed = ts(scenario, &scratch, &server, &[]);
        assert_eq!(messages(&printed, "result").len(), 1, "{}", printed.stderr);
        let system = body::system_text(&server.requests()[0].body);
        assert!(system.contains(marker), "{scenario}: {system}");
        // The preset keeps orbit's own prompt; a string replaces it.
        assert_eq!(
            system.contains("You are orbit"),
            orbit_prompt,
            "{scenario}: {system}"
        );
    }
}

#[test]
fn prompts_queued_during_a_turn_go_to_the_model_as_one_message() {
    let scratch = Scratch::new();
    // The first answer is slow, so the next two prompts wait for it.
    let slow = Turn::new()
        .text("first")
        .event_delay(Duration::from_millis(500));
    let server = FakeAnthropic::start(vec![Reply::turn(slow), Reply::text("both")]);
    let printed = ts("queued", &scratch, &server, &[]);
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{}", printed.stderr);
    assert_eq!(body::last_message_texts(&requests[1].body), ["two\nthree"]);
    let results = messages(&printed, "result");
    assert_eq!(results.len(), 2, "{}", printed.stderr);
    assert_eq!(results[1]["result"], "both");
}

#[test]
fn the_tools_option_of_both_sdks_restricts_the_tool_set() {
    let cases: [(&str, Runner, &str, &[&str]); 3] = [
        ("typescript", ts, "tools_option", &["Read", "Glob"]),
        ("python", py, "tools_option", &["Read", "Glob", "Grep"]),
        ("python", py, "tools_none", &[]),
    ];
    for (sdk, run, scenario, want) in cases {
        let scratch = Scratch::new();
        let server = FakeAnthropic::start(vec![Reply::text("looked")]);
        let printed = run(scenario, &scratch, &server, &[]);
        let requests = server.requests();
        assert_eq!(requests.len(), 1, "{sdk} {scenario}: {}", printed.stderr);
        let mut tools = body::tool_names(&requests[0].body);
        tools.sort();
        let mut want: Vec<String> = want.iter().map(|t| t.to_string()).collect();
        want.sort();
        assert_eq!(tools, want, "{sdk} {scenario}");
    }
}

/// A runner of one SDK's option scenarios.
type Runner = fn(&str, &Scratch, &FakeAnthropic, &[(&str, String)]) -> Printed;
