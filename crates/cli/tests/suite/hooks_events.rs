//! The hook events added for Claude Code 2.1.332's list, through the
//! binary with real scripts against the fake server: PostToolBatch (one
//! run per model message, its context reaching the next request),
//! StopFailure (an API error ends the turn), PostCompact (the summary),
//! the fields PostToolUseFailure and PermissionRequest gained, and every
//! event name of Claude Code accepted without a warning (those orbit never
//! fires stay silent).

use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use serde_json::json;

use super::common::{StreamJsonChild, sdk_user_line};
use super::hooks::{Hooked, compacting_server};

/// Hooks that only log: for each `(event, matcher, name)`, a
/// [`Hooked::logger`] `name` that appends to `name.log` and exits 0, as
/// that event's hook.
pub(super) fn log_only(h: &Hooked, entries: &[(&str, &str, &str)]) {
    let commands: Vec<String> = entries
        .iter()
        .map(|(_, _, name)| h.logger(name, &format!("{name}.log"), "exit 0"))
        .collect();
    let hooks: Vec<(&str, &str, &str, Option<u64>)> = entries
        .iter()
        .zip(&commands)
        .map(|(&(event, matcher, _), command)| (event, matcher, command.as_str(), None))
        .collect();
    h.hooks(&hooks);
}

#[test]
fn post_tool_batch_runs_once_per_message_with_every_call() {
    let h = Hooked::new();
    let batch = h.logger(
        "batch",
        "batch.log",
        "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolBatch\", \"additionalContext\": \"batch seen\"}}'",
    );
    h.hooks(&[("PostToolBatch", "", &batch, None)]);
    let server = FakeAnthropic::start(vec![
        Reply::turn(
            Turn::new()
                .tool_use("toolu_1", "Bash", json!({"command": "echo one"}))
                .tool_use("toolu_2", "Bash", json!({"command": "echo two"})),
        ),
        Reply::text("done"),
    ]);
    let out = h.run(&server, &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let log = h.logged("batch.log");
    assert_eq!(log.len(), 1, "one run for the one message: {log:?}");
    assert_eq!(log[0]["hook_event_name"], "PostToolBatch");
    let calls = log[0]["tool_calls"].as_array().unwrap();
    let ids: Vec<_> = calls.iter().map(|c| c["tool_use_id"].clone()).collect();
    assert_eq!(ids, [json!("toolu_1"), json!("toolu_2")]);
    assert_eq!(calls[1]["tool_input"]["command"], "echo two");
    assert!(calls[0]["tool_response"].as_str().unwrap().contains("one"));
    let second = server.bodies()[1].to_string();
    assert!(second.contains("batch seen"), "{second}");
}

#[test]
fn stop_failure_fires_when_an_api_error_ends_the_turn() {
    let h = Hooked::new();
    log_only(
        &h,
        &[
            ("StopFailure", "invalid_request", "failure"),
            ("Stop", "", "stop"),
        ],
    );
    let server = FakeAnthropic::start(vec![Reply::api_error(
        400,
        "invalid_request_error",
        "messages: bad shape",
    )]);
    let out = h.run(&server, &[]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let log = h.logged("failure.log");
    assert_eq!(log.len(), 1, "{}", out.stderr);
    assert_eq!(log[0]["hook_event_name"], "StopFailure");
    assert_eq!(log[0]["error"], "invalid_request");
    assert!(
        log[0]["error_details"]
            .as_str()
            .unwrap()
            .contains("bad shape")
    );
    assert!(h.logged("stop.log").is_empty(), "Stop does not fire");

    // A successful turn: no StopFailure.
    let server = FakeAnthropic::start(vec![Reply::text("fine")]);
    let out = h.run(&server, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(h.logged("failure.log").len(), 1);
}

#[test]
fn post_compact_gets_the_summary() {
    let h = Hooked::new();
    log_only(&h, &[("PostCompact", "auto", "post")]);
    let out = h.run(&compacting_server(), &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let log = h.logged("post.log");
    assert_eq!(log.len(), 1);
    assert_eq!(log[0]["hook_event_name"], "PostCompact");
    assert_eq!(log[0]["trigger"], "auto");
    assert!(
        log[0]["compact_summary"]
            .as_str()
            .unwrap()
            .contains("SUMMARY: greet.")
    );
}

#[test]
fn failure_and_permission_inputs_carry_claude_code_s_fields() {
    let h = Hooked::new();
    log_only(
        &h,
        &[
            ("PostToolUseFailure", "Read", "failure"),
            ("PermissionRequest", "Bash", "request"),
        ],
    );
    let missing = h.scratch.path().join("missing.txt").display().to_string();
    let server = FakeAnthropic::start(vec![
        Reply::turn(
            Turn::new()
                .tool_use("toolu_1", "Read", json!({"file_path": missing}))
                .tool_use("toolu_2", "Bash", json!({"command": "touch marker"})),
        ),
        Reply::text("done"),
    ]);
    let out = h.run(&server, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let asked = h.logged("request.log");
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0]["permission_suggestions"],
        json!([{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch:*"}],
            "behavior": "allow", "destination": "localSettings"}])
    );
    // Reading a missing file fails.
    let failed = h.logged("failure.log");
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["is_interrupt"], false);
    assert_eq!(failed[0]["tool_use_id"], "toolu_1");
    assert!(failed[0]["error"].as_str().is_some());
}

#[test]
fn instructions_loaded_names_each_memory_file_of_the_start() {
    let h = Hooked::new();
    log_only(&h, &[("InstructionsLoaded", "session_start", "loaded")]);
    h.scratch.write_home(".claude/CLAUDE.md", "user rules");
    h.scratch.write("CLAUDE.md", "project rules");
    h.scratch.write("CLAUDE.local.md", "local rules");
    let server = FakeAnthropic::start(vec![Reply::text("ok"), Reply::text("again")]);
    let out = h.run(&server, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut seen: Vec<(String, String)> = h
        .logged("loaded.log")
        .iter()
        .map(|l| {
            assert_eq!(l["hook_event_name"], "InstructionsLoaded");
            assert_eq!(l["load_reason"], "session_start");
            let path = l["file_path"].as_str().unwrap();
            let name = path.rsplit('/').next().unwrap().to_string();
            (name, l["memory_type"].as_str().unwrap().to_string())
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            ("CLAUDE.local.md".to_string(), "Local".to_string()),
            ("CLAUDE.md".to_string(), "Project".to_string()),
            ("CLAUDE.md".to_string(), "User".to_string()),
        ]
    );
}

/// An SDK session (stream-json both ways) fed `first`, then a
/// `set_model` to `model` once its result is out, then `second`.
fn set_model_between_two_prompts(h: &Hooked, server: &FakeAnthropic, model: &str) {
    let mut sdk = StreamJsonChild::spawn(&h.scratch, &server.env(), &["-p"]);
    sdk.send(&sdk_user_line("first"));
    sdk.read_until(|line| line["type"] == "result");
    sdk.send(&json!({"type": "control_request", "request_id": "r1",
        "request": {"subtype": "set_model", "model": model}}));
    sdk.response_to("r1");
    sdk.send(&sdk_user_line("second"));
    sdk.read_until(|line| line["type"] == "result");
    sdk.finish(std::time::Duration::from_secs(20));
}

/// A fresh hooked dir and its PreModelSwitch hook's command, which logs
/// to `pre.log` and, when `refuse`, refuses the switch (exit 2).
fn pre_model_switch_logger(refuse: bool) -> (Hooked, String) {
    let h = Hooked::new();
    let then = if refuse {
        "echo 'not that model' >&2; exit 2"
    } else {
        "exit 0"
    };
    let pre = h.logger("pre", "pre.log", then);
    (h, pre)
}

/// The one input the PreModelSwitch hook logged, whose `source` must be
/// `source`.
fn pre_model_switch_asked_once(h: &Hooked, source: &str) -> serde_json::Value {
    let asked = h.logged("pre.log");
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0]["source"], source);
    asked[0].clone()
}

#[test]
fn pre_model_switch_can_refuse_an_sdk_set_model() {
    for refuse in [false, true] {
        let (h, pre) = pre_model_switch_logger(refuse);
        let post = h.logger("post", "post.log", "exit 0");
        h.hooks(&[
            ("PreModelSwitch", "", &pre, None),
            ("PostModelSwitch", "", &post, None),
        ]);
        let server = FakeAnthropic::start(vec![Reply::text("one"), Reply::text("two")]);
        set_model_between_two_prompts(&h, &server, "claude-switched-9");
        let bodies = server.bodies();
        assert_eq!(bodies.len(), 2, "refuse: {refuse}");
        let second = bodies[1]["model"].as_str().unwrap();
        assert_eq!(second == "claude-switched-9", !refuse, "{second}");
        let asked = pre_model_switch_asked_once(&h, "set_model");
        assert_eq!(asked["hook_event_name"], "PreModelSwitch");
        assert_eq!(asked["to_model"], "claude-switched-9");
        assert_eq!(asked["from_model"], bodies[0]["model"]);
        assert_eq!(h.logged("post.log").len(), usize::from(!refuse));
    }
}

#[test]
fn pre_model_switch_can_refuse_the_ui_s_model_command() {
    for refuse in [false, true] {
        let (h, pre) = pre_model_switch_logger(refuse);
        h.hooks(&[("PreModelSwitch", "", &pre, None)]);
        let server = FakeAnthropic::start(vec![Reply::text("Answered.")]);
        let pane = super::clients::Pane::start(&h.scratch, &server.env(), &[]);
        pane.wait_for("ctx ");
        pane.submit("/model claude-switched-9");
        pane.wait_for(if refuse {
            "Model not switched"
        } else {
            "Model set to claude-switched-9"
        });
        pane.submit("go");
        pane.wait_for("Answered.");
        pane.exit();
        let model = server.bodies()[0]["model"].clone();
        assert_eq!(model == "claude-switched-9", !refuse, "{model}");
        pre_model_switch_asked_once(&h, "slash_command");
    }
}

/// Claude Code's events of features orbit lacks, and two that need a
/// feature this session does not use (UserPromptExpansion: a slash
/// command, `slash_commands::user_prompt_expansion_…`; SubagentStart).
const NEVER_FIRED: [&str; 17] = [
    "UserPromptExpansion",
    "PermissionDenied",
    "Setup",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Elicitation",
    "ElicitationResult",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "CwdChanged",
    "FileChanged",
    "DirectoryAdded",
    "MessageDisplay",
    "PreSkillShellCommand",
    "SubagentStart",
];

#[test]
fn every_claude_code_event_is_accepted_without_a_warning() {
    let h = Hooked::new();
    let logger = h.logger("any", "any.log", "exit 0");
    let entries: Vec<(&str, &str, &str, Option<u64>)> = NEVER_FIRED
        .iter()
        .map(|event| (*event, "", logger.as_str(), None))
        .collect();
    h.hooks(&entries);
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Bash", json!({"command": "echo hi"})),
        Reply::text("done"),
    ]);
    let out = h.run(&server, &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !out.stderr.contains("ignoring hooks"),
        "no warning: {}",
        out.stderr
    );
    // None of them fires in a plain session (SubagentStart: no subagent).
    assert!(h.logged("any.log").is_empty());
    assert_eq!(body::tool_results(&server.bodies()[1]).len(), 1);
}
