//! Hooks through the binary, with real bash and python3 scripts and the fake
//! server: every PreToolUse decision path, the rewritten input, PostToolUse
//! and PostToolUseFailure, PermissionRequest and Notification, hooks that
//! hang, flood, print garbage or crash, parallel runs and de-duplication,
//! and the `hook_response` lines.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, lines_with, run_stream_json};

/// A scratch project whose user settings declare hooks, with a hooks
/// directory for scripts and a log directory they write to.
pub struct Hooked {
    pub scratch: Scratch,
}

impl Hooked {
    pub fn new() -> Self {
        let scratch = Scratch::new();
        std::fs::create_dir_all(scratch.home().join("hooks")).unwrap();
        std::fs::create_dir_all(scratch.home().join(".orbit")).unwrap();
        Self { scratch }
    }

    /// Writes an executable script and returns its path as a command.
    pub fn script(&self, name: &str, text: &str) -> String {
        use std::os::unix::fs::PermissionsExt;
        let path = self.scratch.home().join("hooks").join(name);
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    }

    /// A python3 hook: `body` runs with `d` = its parsed input.
    pub fn python(&self, name: &str, body: &str) -> String {
        let head = "#!/usr/bin/env python3\nimport json, sys\nd = json.load(sys.stdin)\n";
        self.script(name, &format!("{head}{body}"))
    }

    /// A file in the home directory for scripts to write.
    pub fn file(&self, name: &str) -> PathBuf {
        self.scratch.home().join(name)
    }

    /// The user settings: `hooks` is `{EVENT: [{matcher, hooks: [...]}]}`.
    pub fn settings(&self, hooks: Value) {
        let path = self.scratch.home().join(".orbit/settings.json");
        std::fs::write(path, json!({ "hooks": hooks }).to_string()).unwrap();
    }

    /// One hook per event: `(event, matcher, command, timeout secs)`.
    pub fn hooks(&self, entries: &[(&str, &str, &str, Option<u64>)]) {
        let mut map = serde_json::Map::new();
        for (event, matcher, command, timeout) in entries {
            let mut hook = json!({"type": "command", "command": command});
            if let Some(secs) = timeout {
                hook["timeout"] = json!(secs);
            }
            let groups = map.entry(event.to_string()).or_insert_with(|| json!([]));
            groups
                .as_array_mut()
                .unwrap()
                .push(json!({"matcher": matcher, "hooks": [hook]}));
        }
        self.settings(Value::Object(map));
    }

    pub fn run(&self, server: &FakeAnthropic, extra: &[&str]) -> Outcome {
        run_stream_json(&self.scratch, server, "go", extra)
    }

    /// The JSON lines a logging script appended to `name`.
    pub fn logged(&self, name: &str) -> Vec<Value> {
        std::fs::read_to_string(self.file(name))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// A bash hook that appends its stdin (one JSON line) to `log`, then
    /// runs `then` (e.g. `exit 0`).
    pub fn logger(&self, name: &str, log: &str, then: &str) -> String {
        let log = self.file(log).display().to_string();
        self.script(
            name,
            &format!("#!/bin/bash\ninput=$(cat)\necho \"$input\" >> '{log}'\n{then}\n"),
        )
    }
}

/// A model that calls Bash with `command` once, then answers "done".
pub fn one_bash(command: &str) -> FakeAnthropic {
    FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Bash", json!({"command": command})),
        Reply::text("done"),
    ])
}

/// A model whose first request is refused as too long (orbit compacts:
/// the summary "SUMMARY: greet."), then answers "hello".
pub fn compacting_server() -> FakeAnthropic {
    FakeAnthropic::start(vec![
        super::common::prompt_too_long(),
        Reply::text("SUMMARY: greet."),
        Reply::text("hello"),
    ])
}

/// The tool_result the model got for the one call.
fn result_of(server: &FakeAnthropic) -> body::ToolResultView {
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2, "expected two model calls");
    body::tool_results(&bodies[1]).remove(0)
}

fn hook_lines(out: &Outcome) -> Vec<Value> {
    out.lines()
        .into_iter()
        .filter(|l| l["type"] == "system" && l["subtype"] == "hook_response")
        .collect()
}

/// The stderr lines that are about hooks.
fn hook_warnings(out: &Outcome) -> Vec<String> {
    lines_with(&out.stderr, "hook")
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// (name, script, extra flags, tool ran, result contains, denied)
type PreCase<'a> = (&'a str, &'a str, &'a [&'a str], bool, &'a str, bool);

#[test]
fn pre_tool_use_decides_every_path() {
    // (name, script, extra flags, tool ran, result contains, denied)
    let py_deny = "#!/usr/bin/env python3\nimport json, sys\nd = json.load(sys.stdin)\nassert d['hook_event_name'] == 'PreToolUse' and d['tool_name'] == 'Bash'\nprint(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'permissionDecision': 'deny', 'permissionDecisionReason': 'no touching: ' + d['tool_input']['command']}}))\n";
    let bash_exit2 = "#!/bin/bash\ncat > /dev/null\necho 'blocked by team policy' >&2\nexit 2\n";
    let py_allow = "#!/usr/bin/env python3\nimport json, sys\njson.load(sys.stdin)\nprint(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'permissionDecision': 'allow'}}))\n";
    let bash_ask = "#!/bin/bash\ncat > /dev/null\necho '{\"hookSpecificOutput\": {\"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"a human should look\"}}'\n";
    let cases: [PreCase; 6] = [
        (
            "deny (python JSON)",
            py_deny,
            &["--allowedTools", "Bash"],
            false,
            "no touching: touch marker",
            true,
        ),
        (
            "exit 2 (bash stderr)",
            bash_exit2,
            &["--allowedTools", "Bash"],
            false,
            "blocked by team policy",
            true,
        ),
        // The policy would ask (headless: deny); the hook's allow runs it.
        ("allow (python)", py_allow, &[], true, "", false),
        // A deny rule beats a hook's allow.
        (
            "allow vs deny rule",
            py_allow,
            &["--disallowedTools", "Bash(touch:*)"],
            false,
            "touch",
            true,
        ),
        // The hook asks though a rule allows: headless, that is a denial.
        (
            "ask (bash JSON)",
            bash_ask,
            &["--allowedTools", "Bash"],
            false,
            "a human should look",
            true,
        ),
        // A hook that says nothing leaves the policy's answer.
        (
            "silent",
            "#!/bin/bash\ncat >/dev/null\n",
            &["--allowedTools", "Bash"],
            true,
            "",
            false,
        ),
    ];
    for (name, script, extra, ran, contains, denied) in cases {
        let h = Hooked::new();
        let command = h.script("pre", script);
        h.hooks(&[("PreToolUse", "Bash", &command, None)]);
        let server = one_bash("touch marker");
        let out = h.run(&server, extra);
        assert_eq!(out.code, 0, "{name}: {}", out.stderr);
        assert_eq!(h.scratch.path().join("marker").exists(), ran, "{name}");
        let result = result_of(&server);
        assert_eq!(result.is_error, !ran, "{name}: {}", result.text);
        assert!(result.text.contains(contains), "{name}: {}", result.text);
        let denials = out.result()["permission_denials"].as_array().unwrap().len();
        assert_eq!(denials, usize::from(denied), "{name}");
        let lines = hook_lines(&out);
        assert_eq!(lines.len(), 1, "{name}: {}", out.stdout);
        assert_eq!(lines[0]["hook_name"], "PreToolUse:Bash", "{name}");
        assert_eq!(lines[0]["hook_event"], "PreToolUse", "{name}");
    }
}

#[test]
fn updated_input_goes_through_the_same_validation() {
    // A valid rewrite runs the new command, not the model's.
    let h = Hooked::new();
    let command = h.python(
        "rewrite",
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse', 'updatedInput': {'command': 'touch rewritten'}}}))\n",
    );
    h.hooks(&[("PreToolUse", "Bash", &command, None)]);
    let server = one_bash("touch original");
    let out = h.run(&server, &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(h.scratch.path().join("rewritten").exists());
    assert!(!h.scratch.path().join("original").exists());

    // An invalid rewrite is rejected with exactly the T3 text the model
    // would get for that input.
    let invalid = json!({"command": "touch x", "timeout": "soon"});
    let h = Hooked::new();
    let command = h.script(
        "rewrite",
        &format!(
            "#!/bin/bash\ncat >/dev/null\necho '{}'\n",
            json!({"hookSpecificOutput": {"updatedInput": invalid}})
        ),
    );
    h.hooks(&[("PreToolUse", "Bash", &command, None)]);
    let server = one_bash("touch original");
    let out = h.run(&server, &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let hooked = result_of(&server);
    assert!(!h.scratch.path().join("x").exists());
    assert!(!h.scratch.path().join("original").exists());

    let direct = Hooked::new();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Bash", invalid),
        Reply::text("done"),
    ]);
    direct.run(&server, &["--allowedTools", "Bash"]);
    let expected = result_of(&server);
    assert!(
        expected.text.contains("InputValidationError"),
        "{}",
        expected.text
    );
    assert_eq!((hooked.text, hooked.is_error), (expected.text, true));
}

#[test]
fn post_tool_use_and_failure_hooks_see_the_result_and_feed_the_model() {
    let h = Hooked::new();
    let post = h.python(
        "post",
        &format!(
            "open('{}', 'a').write(json.dumps(d) + '\\n')\nprint(json.dumps({{'hookSpecificOutput': {{'hookEventName': 'PostToolUse', 'additionalContext': 'formatted ' + d['tool_input']['command']}}}}))\n",
            h.file("post.log").display()
        ),
    );
    let failure = h.logger(
        "failure",
        "failure.log",
        "echo 'the build is red' >&2; exit 2",
    );
    h.hooks(&[
        ("PostToolUse", "Bash", &post, None),
        ("PostToolUseFailure", "Bash", &failure, None),
    ]);
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Bash", json!({"command": "echo hi"})),
        Reply::tool_use("toolu_2", "Bash", json!({"command": "echo bad; exit 3"})),
        Reply::text("done"),
    ]);
    let out = h.run(&server, &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let bodies = server.bodies();
    let ok = body::tool_results(&bodies[1]).remove(0);
    assert!(ok.text.starts_with("hi"), "{}", ok.text);
    assert!(
        ok.text.ends_with("PostToolUse hook: formatted echo hi"),
        "{}",
        ok.text
    );
    let bad = body::tool_results(&bodies[2]).remove(0);
    assert!(bad.is_error);
    assert!(
        bad.text
            .ends_with("PostToolUseFailure hook: the build is red"),
        "{}",
        bad.text
    );
    let post_log = h.logged("post.log");
    assert_eq!(post_log.len(), 1, "PostToolUse runs for the success only");
    assert_eq!(post_log[0]["tool_name"], "Bash");
    assert!(
        post_log[0]["tool_response"]
            .as_str()
            .unwrap()
            .contains("hi")
    );
    let failure_log = h.logged("failure.log");
    assert_eq!(failure_log.len(), 1);
    assert_eq!(failure_log[0]["hook_event_name"], "PostToolUseFailure");
    assert!(failure_log[0]["error"].as_str().unwrap().contains("bad"));
    // The common input fields, and the project dir in the environment.
    let first = &post_log[0];
    assert_eq!(first["cwd"], h.scratch.path().display().to_string());
    assert!(first["session_id"].is_string());
    assert!(
        first["transcript_path"]
            .as_str()
            .unwrap()
            .ends_with(".jsonl")
    );
    assert_eq!(first["permission_mode"], "default");
}

#[test]
fn permission_request_and_notification_hooks_run_on_an_ask() {
    // (PermissionRequest answer, tool ran, result text when refused)
    let cases = [
        (Some("allow"), true, ""),
        (Some("deny"), false, "hook said deny"),
        // No answer: the user is notified, and headless that is a denial.
        (None, false, "haven't granted it yet"),
    ];
    for (behavior, ran, refused) in cases {
        let h = Hooked::new();
        let answer = match behavior {
            Some(b) => format!(
                "print(json.dumps({{'hookSpecificOutput': {{'hookEventName': 'PermissionRequest', 'decision': {{'behavior': '{b}', 'message': 'hook said {b}'}}}}}}))"
            ),
            None => String::new(),
        };
        let request = h.python(
            "request",
            &format!("assert d['tool_input']['command'] == 'touch marker'\n{answer}\n"),
        );
        let notify = h.logger("notify", "notify.log", "exit 0");
        h.hooks(&[
            ("PermissionRequest", "Bash", &request, None),
            ("Notification", "", &notify, None),
        ]);
        let server = one_bash("touch marker");
        // No allow rule: the policy asks.
        let out = h.run(&server, &[]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(
            h.scratch.path().join("marker").exists(),
            ran,
            "{behavior:?}"
        );
        let result = result_of(&server);
        assert!(
            result.text.contains(refused),
            "{behavior:?}: {}",
            result.text
        );
        // The notification only when no hook answered.
        let notified = h.logged("notify.log");
        assert_eq!(
            notified.len(),
            usize::from(behavior.is_none()),
            "{behavior:?}"
        );
        if let Some(n) = notified.first() {
            assert_eq!(n["hook_event_name"], "Notification");
            assert_eq!(n["notification_type"], "permission_prompt");
            assert!(n["message"].as_str().unwrap().contains("Bash"));
        }
    }
}

#[test]
fn a_failing_hook_never_hangs_or_stops_the_run() {
    // (name, script, timeout secs, stderr line contains, stdout capped)
    let cases = [
        (
            "timeout",
            "#!/bin/bash\nsleep 30\n",
            Some(1),
            "timed out after 1 s and was killed",
            false,
        ),
        (
            "10 MB stdout",
            "#!/usr/bin/env python3\nimport sys\nsys.stdout.write('x' * (10 * 1024 * 1024))\n",
            None,
            "output cut at 65536 bytes",
            true,
        ),
        (
            "garbage",
            "#!/bin/bash\necho '{this is not json'\n",
            None,
            "printed invalid JSON",
            false,
        ),
        // `sh -c` reports its child's crash as 128 + the signal.
        (
            "crash",
            "#!/bin/bash\nkill -SEGV $$\n",
            None,
            "failed with exit code 139",
            false,
        ),
        (
            "exit 1",
            "#!/bin/bash\necho oops >&2\nexit 1\n",
            None,
            "failed with exit code 1: oops",
            false,
        ),
    ];
    for (name, script, timeout, line, capped) in cases {
        let h = Hooked::new();
        let command = h.script("bad", script);
        h.hooks(&[("PreToolUse", "Bash", &command, timeout)]);
        let server = one_bash("touch marker");
        let started = Instant::now();
        let out = h.run(&server, &["--allowedTools", "Bash"]);
        assert!(started.elapsed() < Duration::from_secs(20), "{name}");
        assert_eq!(out.code, 0, "{name}: {}", out.stderr);
        assert!(
            h.scratch.path().join("marker").exists(),
            "{name}: the tool still runs"
        );
        let warnings = hook_warnings(&out);
        assert_eq!(warnings.len(), 1, "{name}: {}", out.stderr);
        assert!(warnings[0].contains(line), "{name}: {}", warnings[0]);
        assert!(warnings[0].contains("PreToolUse:Bash"), "{name}");
        let lines = hook_lines(&out);
        assert_eq!(lines[0]["outcome"], "error", "{name}");
        let stdout_len = lines[0]["stdout"].as_str().unwrap().len();
        assert_eq!(stdout_len == 64 * 1024, capped, "{name}: {stdout_len}");
    }
}

#[test]
fn matching_hooks_run_in_parallel_and_identical_commands_once() {
    let h = Hooked::new();
    let log = h.file("order.log").display().to_string();
    let slow = |tag: &str| {
        format!(
            "#!/bin/bash\ncat >/dev/null\necho start >> '{log}'\nsleep 1\necho end-{tag} >> '{log}'\n"
        )
    };
    let a = h.script("a", &slow("a"));
    let b = h.script("b", &slow("b"));
    // `a` is configured twice (two matchers that both match) and runs once.
    h.hooks(&[
        ("PreToolUse", "Bash", &a, None),
        ("PreToolUse", "*", &a, None),
        ("PreToolUse", "Ba.*", &b, None),
        ("PreToolUse", "Edit|Write", &b, None),
    ]);
    let server = one_bash("true");
    let out = h.run(&server, &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let order = std::fs::read_to_string(h.file("order.log")).unwrap();
    let lines: Vec<&str> = order.lines().collect();
    assert_eq!(lines.len(), 4, "{order}");
    // Both started before either ended.
    assert_eq!(&lines[..2], ["start", "start"], "{order}");
    assert_eq!(hook_lines(&out).len(), 2);
}

#[test]
fn hooks_see_the_project_dir_in_their_environment() {
    let h = Hooked::new();
    let out_file = h.file("env.txt").display().to_string();
    let command = h.script(
        "env",
        &format!("#!/bin/bash\ncat >/dev/null\necho \"$CLAUDE_PROJECT_DIR|$ORBIT_PROJECT_DIR|$PWD\" > '{out_file}'\n"),
    );
    h.hooks(&[("PreToolUse", "", &command, None)]);
    let server = one_bash("true");
    let out = h.run(&server, &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let dir = h.scratch.path().display().to_string();
    let seen = std::fs::read_to_string(&out_file).unwrap();
    assert_eq!(seen.trim(), format!("{dir}|{dir}|{dir}"));
}
