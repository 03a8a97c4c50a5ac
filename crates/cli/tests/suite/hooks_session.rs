//! Session-level hooks through the binary: UserPromptSubmit (context,
//! block), Stop (keeps the agent going), SessionStart (startup, resume,
//! compact) with PreCompact, and SessionEnd.

use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::json;

use super::common::run_stream_json;
use super::hooks::{Hooked, compacting_server};

/// The texts of the first user message of a request.
fn first_message_texts(request: &serde_json::Value) -> Vec<String> {
    body::blocks(&body::messages(request)[0])
        .iter()
        .filter_map(|b| b["text"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn user_prompt_submit_adds_context_or_blocks_the_prompt() {
    // (name, script, blocked, text the model or the result gets)
    let cases = [
        (
            "plain stdout (python)",
            "#!/usr/bin/env python3\nimport json, sys\nd = json.load(sys.stdin)\nprint('remember: ' + d['prompt'].upper())\n",
            false,
            "remember: GO",
        ),
        (
            "additionalContext (bash)",
            "#!/bin/bash\ncat >/dev/null\necho '{\"hookSpecificOutput\": {\"hookEventName\": \"UserPromptSubmit\", \"additionalContext\": \"use tabs\"}}'\n",
            false,
            "use tabs",
        ),
        (
            "exit 2 (bash)",
            "#!/bin/bash\ncat >/dev/null\necho 'no secrets in prompts' >&2\nexit 2\n",
            true,
            "no secrets in prompts",
        ),
        (
            "decision block (python)",
            "#!/usr/bin/env python3\nimport json, sys\njson.load(sys.stdin)\nprint(json.dumps({'decision': 'block', 'reason': 'not today'}))\n",
            true,
            "not today",
        ),
    ];
    for (name, script, blocked, text) in cases {
        let h = Hooked::new();
        let command = h.script("prompt", script);
        h.hooks(&[("UserPromptSubmit", "", &command, None)]);
        let server = FakeAnthropic::start(vec![Reply::text("ok")]);
        let out = h.run(&server, &[]);
        let result = out.result();
        if blocked {
            assert_eq!(out.code, 1, "{name}");
            assert_eq!(server.request_count(), 0, "{name}: the prompt never left");
            assert_eq!(result["subtype"], "error_during_execution");
            let errors = result["errors"].to_string();
            assert!(errors.contains(text), "{name}: {errors}");
        } else {
            assert_eq!(out.code, 0, "{name}: {}", out.stderr);
            let texts = first_message_texts(&server.bodies()[0]);
            assert_eq!(texts, ["go", text], "{name}");
        }
    }
}

#[test]
fn a_stop_hook_keeps_the_agent_going_twice_then_lets_it_stop() {
    let h = Hooked::new();
    let count = h.file("count").display().to_string();
    let command = h.logger(
        "stop",
        "stop.log",
        &format!(
            "n=$(cat '{count}' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '{count}'\nif [ $n -le 2 ]; then echo \"keep going $n\" >&2; exit 2; fi"
        ),
    );
    h.hooks(&[("Stop", "", &command, None)]);
    let server = FakeAnthropic::start(vec![Reply::text("a"), Reply::text("b"), Reply::text("c")]);
    let out = h.run(&server, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.result()["result"], "c");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3);
    assert_eq!(body::last_message_texts(&bodies[1]), ["keep going 1"]);
    assert_eq!(body::last_message_texts(&bodies[2]), ["keep going 2"]);
    let active: Vec<_> = h
        .logged("stop.log")
        .iter()
        .map(|l| {
            (
                l["stop_hook_active"].clone(),
                l["last_assistant_message"].clone(),
            )
        })
        .collect();
    assert_eq!(
        active,
        [
            (json!(false), json!("a")),
            (json!(true), json!("b")),
            (json!(true), json!("c"))
        ]
    );
}

#[test]
fn session_start_context_on_startup_resume_and_compact() {
    let h = Hooked::new();
    let start = h.python("start", "print('started: ' + d['source'])\n");
    let pre_compact = h.logger("pre", "pre.log", "exit 0");
    h.hooks(&[
        ("SessionStart", "", &start, None),
        ("PreCompact", "auto", &pre_compact, None),
    ]);
    // startup, then a prompt-too-long refusal: compaction, then the retry.
    let server = compacting_server();
    let out = h.run(&server, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let bodies = server.bodies();
    assert_eq!(first_message_texts(&bodies[0]), ["go", "started: startup"]);
    let retried = body::messages(&bodies[2])
        .iter()
        .map(|m| m.to_string())
        .collect::<String>();
    assert!(retried.contains("started: compact"), "{retried}");
    let pre = h.logged("pre.log");
    assert_eq!(pre.len(), 1);
    assert_eq!(pre[0]["trigger"], "auto");
    assert_eq!(pre[0]["hook_event_name"], "PreCompact");

    // A resumed session: `resume`.
    let server = FakeAnthropic::start(vec![Reply::text("again")]);
    let out = run_stream_json(&h.scratch, &server, "more", &["--continue"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let last = body::last_message_texts(&server.bodies()[0]);
    assert_eq!(last, ["more", "started: resume"]);
}

#[test]
fn session_end_runs_after_the_result() {
    let h = Hooked::new();
    super::hooks_events::log_only(&h, &[("SessionEnd", "", "end")]);
    let server = FakeAnthropic::start(vec![Reply::text("bye")]);
    let out = h.run(&server, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let log = h.logged("end.log");
    assert_eq!(log.len(), 1);
    assert_eq!(log[0]["hook_event_name"], "SessionEnd");
    assert_eq!(log[0]["reason"], "other");
}
