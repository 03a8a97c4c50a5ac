//! Issue 31: Claude Code's flags honoured, through the binary against the
//! fake server — `--tools`, variadic `--allowedTools` / `--disallowedTools`,
//! `--permission-mode dontAsk`, `--system-prompt-file` /
//! `--append-system-prompt-file`, `-d FILTER`, `-n NAME` / `-r NAME` and
//! `--include-hook-events`.

use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, call_results, orbit, run, run_orbit, run_stream_json};

/// The tools offered in the first request of `orbit -p hi EXTRA…`.
fn offered(extra: &[&str]) -> (Outcome, Vec<String>) {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let out = run_stream_json(&scratch, &server, "hi", extra);
    let names = server
        .bodies()
        .first()
        .map(body::tool_names)
        .unwrap_or_default();
    (out, names)
}

fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names
}

#[test]
fn tools_flag_offers_only_the_tools_it_names() {
    let (out, names) = offered(&["--tools", "Read,Bash"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(sorted(names), ["Bash", "Read"]);
    let init: Vec<String> = serde_json::from_value(out.lines()[0]["tools"].clone()).unwrap();
    assert_eq!(sorted(init), ["Bash", "Read"]);
    // Several values, as Claude Code's `--tools <tools...>`.
    let (_, names) = offered(&["--tools", "Read", "Grep"]);
    assert_eq!(sorted(names), ["Grep", "Read"]);
    // `""`: no built-in tool; `default`: all of them.
    let (out, names) = offered(&["--tools", ""]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(names.is_empty(), "{names:?}");
    let (_, all) = offered(&[]);
    let (_, default) = offered(&["--tools", "default"]);
    assert!(all.len() > 5 && default == all, "{default:?} vs {all:?}");
    // A name orbit has no tool for: one warning, the run goes on.
    let (out, names) = offered(&["--tools", "Read,Nope"]);
    assert_eq!(names, ["Read"]);
    assert!(
        out.stderr
            .contains("--tools names `Nope`, which is not a tool orbit has"),
        "{}",
        out.stderr
    );
}

/// The model calls Bash then Write; what ran decides the results.
fn bash_then_write(scratch: &Scratch) -> FakeAnthropic {
    let target = scratch.path().join("out.txt").display().to_string();
    FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Bash", json!({"command": "touch made-by-bash"})),
        Reply::tool_use(
            "toolu_2",
            "Write",
            json!({"file_path": target, "content": "x"}),
        ),
        Reply::text("done"),
    ])
}

#[test]
fn allowed_tools_takes_several_values_with_the_prompt_first_or_after_p() {
    // Claude Code's spellings: `-p PROMPT --allowedTools A B` and
    // `PROMPT -p --allowedTools A B` (before the fix: "the prompt was
    // given twice").
    let forms: [&[&str]; 2] = [
        &["-p", "go", "--allowedTools", "Bash", "Write"],
        &["go", "-p", "--allowedTools", "Bash", "Write"],
    ];
    for argv in forms {
        let scratch = Scratch::new();
        let server = bash_then_write(&scratch);
        let mut cmd = orbit(&scratch, &server);
        cmd.args(argv).args(["--output-format", "stream-json"]);
        let out = run(cmd);
        assert_eq!(out.code, 0, "{argv:?}: {}", out.stderr);
        assert!(
            scratch.path().join("made-by-bash").exists(),
            "{argv:?}: Bash did not run: {}",
            out.stdout
        );
        assert_eq!(
            std::fs::read_to_string(scratch.path().join("out.txt")).unwrap_or_default(),
            "x",
            "{argv:?}"
        );
    }
    // `--disallowedTools A B` hides both from the model.
    let (out, names) = offered(&["--disallowedTools", "Bash", "Write"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !names.iter().any(|n| n == "Bash" || n == "Write") && names.iter().any(|n| n == "Read"),
        "{names:?}"
    );
}

/// A PermissionRequest hook (user settings) that allows every ask.
fn allow_every_ask(scratch: &Scratch) {
    let answer = r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}"#;
    let settings = json!({"hooks": {"PermissionRequest": [{"matcher": "*", "hooks": [
        {"type": "command", "command": format!("echo '{answer}'")}
    ]}]}});
    scratch.write_home(".orbit/settings.json", &settings.to_string());
}

#[test]
fn dont_ask_mode_denies_what_would_ask_and_runs_what_is_allowed() {
    let run_mode = |mode: &str| {
        let scratch = Scratch::new();
        allow_every_ask(&scratch);
        std::fs::write(scratch.path().join("notes.txt"), "hello").unwrap();
        let notes = scratch.path().join("notes.txt").display().to_string();
        let server = FakeAnthropic::start(vec![
            Reply::tool_use("toolu_1", "Read", json!({"file_path": notes})),
            Reply::tool_use("toolu_2", "Bash", json!({"command": "touch made-by-bash"})),
            Reply::tool_use("toolu_3", "Bash", json!({"command": "echo allowed-echo"})),
            Reply::text("done"),
        ]);
        let out = run_stream_json(
            &scratch,
            &server,
            "go",
            &["--permission-mode", mode, "--allowedTools", "Bash(echo:*)"],
        );
        assert_eq!(out.code, 0, "{mode}: {}", out.stderr);
        assert_eq!(out.lines()[0]["permissionMode"], mode);
        let results = call_results(&server).join("\n");
        let touched = scratch.path().join("made-by-bash").exists();
        (results, touched)
    };
    // default: the ask goes to the PermissionRequest hook, which allows it.
    let (_, touched) = run_mode("default");
    assert!(touched, "default mode: the hook allowed the ask");
    // dontAsk: the ask is denied before any hook or prompt is asked.
    let (results, touched) = run_mode("dontAsk");
    assert!(!touched, "dontAsk ran a call that needed asking: {results}");
    assert!(results.contains("hello"), "a read runs: {results}");
    assert!(
        results.contains(
            "Permission to use Bash has been denied because orbit is running in don't ask mode."
        ),
        "{results}"
    );
    assert!(
        results.contains("allowed-echo"),
        "an allowed call runs: {results}"
    );
}

#[test]
fn system_prompt_files_replace_and_append() {
    let scratch = Scratch::new();
    let base = scratch.write("base.txt", "You are the file-given prompt.");
    let extra = scratch.write("extra.txt", "Always answer in haiku.");
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let out = run_stream_json(
        &scratch,
        &server,
        "hi",
        &[
            "--system-prompt-file",
            &base.display().to_string(),
            "--append-system-prompt-file",
            &extra.display().to_string(),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let system = body::system_text(&server.bodies()[0]);
    assert!(
        system.starts_with("You are the file-given prompt.")
            && system.contains("Always answer in haiku."),
        "{system}"
    );
    assert!(
        !system.contains("orbit"),
        "the default prompt is replaced: {system}"
    );
    // A missing file is one error line naming the flag, before any request.
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let out = run_stream_json(
        &scratch,
        &server,
        "hi",
        &["--append-system-prompt-file", "nope.txt"],
    );
    out.assert_error_containing("--append-system-prompt-file nope.txt");
    assert!(server.bodies().is_empty());
    // A FIFO nobody writes is not waited on forever: a named pipe is read
    // (the user named it), so use a directory as the bad case instead.
    let out = run_stream_json(
        &scratch,
        &server,
        "hi",
        &[
            "--system-prompt-file",
            &scratch.path().display().to_string(),
        ],
    );
    out.assert_error_containing("--system-prompt-file");
}

#[test]
fn debug_filter_keeps_only_the_named_categories() {
    // One overloaded answer first: orbit_model logs the retry at debug.
    let run_debug = |flag: &[&str]| {
        let scratch = Scratch::new();
        let server = FakeAnthropic::start(vec![Reply::overloaded(), Reply::text("ok")]);
        let mut cmd = orbit(&scratch, &server);
        cmd.args(["-p", "hi"]).args(flag);
        run(cmd)
    };
    let has = |out: &Outcome, target: &str| {
        out.stderr
            .lines()
            .any(|l| l.contains(" DEBUG ") && l.contains(&format!(" {target}")))
    };
    let all = run_debug(&["-d"]);
    assert_eq!(all.code, 0, "{}", all.stderr);
    assert!(
        has(&all, "orbit_model::driver: retrying model call") && has(&all, "orbit::setup:"),
        "{}",
        all.stderr
    );
    // `-d api`: the model client's lines only (Claude Code's category names).
    let api = run_debug(&["-d", "api"]);
    assert_eq!(api.code, 0, "{}", api.stderr);
    assert!(has(&api, "orbit_model::driver"), "{}", api.stderr);
    assert!(!has(&api, "orbit::"), "{}", api.stderr);
    // `-d '!api'`: everything but those.
    let not_api = run_debug(&["--debug=!api"]);
    assert!(
        has(&not_api, "orbit::setup:") && !has(&not_api, "orbit_model"),
        "{}",
        not_api.stderr
    );
    // An unknown category is an error line, not a silent no-op.
    let bad = run_debug(&["-d", "bogus"]);
    bad.assert_error_containing("--debug: `bogus` is not a category");
}

#[test]
fn named_sessions_resume_by_name() {
    let scratch = Scratch::new();
    // `-p … --output-format json` against `server`: its one result line.
    let json_run = |server: &FakeAnthropic, args: &[&str]| -> Value {
        let mut all = args.to_vec();
        all.extend(["--output-format", "json"]);
        let out = run_orbit(&scratch, server, &all);
        assert_eq!(out.code, 0, "{}", out.stderr);
        serde_json::from_str(out.stdout.trim()).unwrap()
    };
    let server = FakeAnthropic::start(vec![Reply::text("first answer")]);
    let first = json_run(&server, &["-p", "remember 42", "-n", "my work"]);
    let id = first["session_id"].as_str().unwrap().to_string();
    // Another, unnamed session in between: `-r NAME` still finds the named one.
    let other = FakeAnthropic::start(vec![Reply::text("other")]);
    let mut cmd = orbit(&scratch, &other);
    cmd.args(["-p", "unrelated"]);
    assert_eq!(run(cmd).code, 0);

    let server = FakeAnthropic::start(vec![Reply::text("second answer")]);
    let second = json_run(&server, &["-r", "my work", "-p", "what was it?"]);
    assert_eq!(second["session_id"], id.as_str());
    let sent = &server.bodies()[0];
    assert!(
        body::messages(sent)
            .iter()
            .any(|m| m.to_string().contains("remember 42")),
        "the named session's history was sent: {sent}"
    );
    // `orbit sessions` shows the name; an unknown name is a clear error.
    let mut cmd = super::common::orbit_with_env(&scratch, &[]);
    cmd.arg("sessions");
    let listed = run(cmd);
    assert!(
        listed.stdout.contains("[my work] remember 42"),
        "{}",
        listed.stdout
    );
    let mut cmd = orbit(&scratch, &server);
    cmd.args(["--resume", "nobody", "-p", "x"]);
    run(cmd).assert_error_containing(
        "--resume: `nobody` is not a session id (a UUID such as 123e4567-e89b-12d3-a456-426614174000) nor the name of a session in",
    );
}

#[test]
fn include_hook_events_adds_hook_started_before_each_hook_response() {
    let scratch = Scratch::new();
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo hi-from-hook"}
    ]}]}});
    scratch.write_home(".orbit/settings.json", &settings.to_string());
    let calls = || {
        FakeAnthropic::start(vec![
            Reply::tool_use("toolu_1", "Bash", json!({"command": "echo ran"})),
            Reply::text("done"),
        ])
    };
    let server = calls();
    let out = run_stream_json(
        &scratch,
        &server,
        "go",
        &["--allowedTools", "Bash", "--include-hook-events"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = out.lines();
    let pos = |subtype: &str| {
        lines
            .iter()
            .position(|l| l["type"] == "system" && l["subtype"] == subtype)
            .unwrap_or_else(|| panic!("no {subtype} line: {}", out.stdout))
    };
    let (started, response) = (&lines[pos("hook_started")], &lines[pos("hook_response")]);
    assert!(pos("hook_started") < pos("hook_response"));
    assert_eq!(started["hook_name"], "PreToolUse:Bash");
    assert_eq!(started["hook_event"], "PreToolUse");
    assert_eq!(started["hook_id"], response["hook_id"], "one run, one id");
    assert_eq!(started["session_id"], lines[0]["session_id"]);
    assert!(started["uuid"].as_str().is_some_and(|u| u.len() == 36));
    assert_eq!(response["stdout"], "hi-from-hook\n");
    // Without the flag: no hook_started line.
    let server = calls();
    let out = run_stream_json(&scratch, &server, "go", &["--allowedTools", "Bash"]);
    assert!(!out.stdout.contains("hook_started"), "{}", out.stdout);
}
