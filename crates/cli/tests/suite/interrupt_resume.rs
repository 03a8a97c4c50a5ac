//! The README's walkthrough through the binary (issue 11): a multi-step
//! task, Ctrl-C (SIGINT) while one of its tools runs, then
//! `orbit -c -p "go on"` finishes it. The resumed request carries the
//! interrupted call's tool_result and the user's "go on" (every tool_use
//! paired, nothing duplicated), and the task's files all exist at the end.

use std::io::Read;

use orbit_test_support::process::live_members_of_group;
use orbit_test_support::{FakeAnthropic, Reply};
use orbit_tool::texts::engine::INTERRUPT_MESSAGE_FOR_TOOL_USE;
use serde_json::{Value, json};

use super::common::{Scratch, bash_calls, run_stream_json, tool_results_text};
use super::interrupt::{exit_within_10s, sigint, spawn_orbit_with, wait_for_pid};

const TASK: &str =
    "create notes/ with three files a.txt b.txt c.txt holding one, two, three, then list them";

/// Every content block of a request body, with the role of its message.
fn blocks(body: &Value) -> Vec<(String, Value)> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| {
            let role = m["role"].as_str().unwrap_or_default().to_string();
            m["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(move |b| (role.clone(), b))
        })
        .collect()
}

/// Asserts each tool_use of `body` is answered by one tool_result in the
/// next message, and no message is there twice.
fn assert_paired_and_unique(body: &Value) {
    let messages = body["messages"].as_array().unwrap();
    for (i, message) in messages.iter().enumerate() {
        let uses = field_of_blocks(message, "tool_use", "id");
        if uses.is_empty() {
            continue;
        }
        let answered = field_of_blocks(&messages[i + 1], "tool_result", "tool_use_id");
        assert_eq!(answered, uses, "message {i}: {body}");
    }
    let ids: Vec<&Value> = messages
        .iter()
        .flat_map(|m| field_of_blocks(m, "tool_use", "id"))
        .collect();
    let mut unique = ids.clone();
    unique.sort_by_key(|v| v.to_string());
    unique.dedup();
    assert_eq!(ids.len(), unique.len(), "a tool_use is duplicated: {body}");
}

/// `field` of each content block of `message` whose type is `kind`.
fn field_of_blocks<'a>(message: &'a Value, kind: &str, field: &str) -> Vec<&'a Value> {
    message["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == kind)
        .map(|b| &b[field])
        .collect()
}

#[test]
fn sigint_mid_tool_then_continue_go_on_finishes_the_task() {
    let scratch = Scratch::new();
    // Step 1 of the task: a.txt is written, then the call hangs until Ctrl-C.
    let first = json!({
        "command": "mkdir -p notes && echo one > notes/a.txt && echo $$ > started.pid && sleep 30",
        "timeout": 60000,
    });
    let server = bash_calls(&[("toolu_a", first)], "must not be requested");
    let mut child = spawn_orbit_with(&scratch, &server, TASK, &[]);
    let pgid = wait_for_pid(&scratch, "started.pid", &mut child);
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    sigint(&child);
    let (status, _) = exit_within_10s(child, "SIGINT");
    let (mut out, mut err) = (String::new(), String::new());
    stdout.read_to_string(&mut out).unwrap();
    stderr.read_to_string(&mut err).unwrap();
    assert_eq!(status.code(), Some(130), "stderr: {err}");
    assert_eq!(err, "orbit: interrupted\n");
    assert!(live_members_of_group(pgid).is_empty(), "the call survived");
    assert_eq!(server.request_count(), 1);

    // `orbit -c -p "go on"`: the model finishes the remaining steps.
    let resumed = FakeAnthropic::start(vec![
        Reply::tool_use(
            "toolu_b",
            "Bash",
            json!({"command": "echo two > notes/b.txt && echo three > notes/c.txt"}),
        ),
        Reply::tool_use("toolu_c", "Bash", json!({"command": "ls notes"})),
        Reply::text("notes/ holds a.txt, b.txt and c.txt."),
    ]);
    let done = run_stream_json(
        &scratch,
        &resumed,
        "go on",
        &["-c", "--allowedTools", "Bash"],
    );
    assert_eq!(
        done.code, 0,
        "stdout: {}\nstderr: {}",
        done.stdout, done.stderr
    );
    let result = done.result();
    assert_eq!(result["subtype"], "success", "{result}");
    assert_eq!(result["result"], "notes/ holds a.txt, b.txt and c.txt.");

    let bodies = resumed.bodies();
    assert_eq!(bodies.len(), 3);
    let first_resumed = &bodies[0];
    let all = blocks(first_resumed);
    // The task, the interrupted call and its result, then "go on", last.
    assert_eq!(
        all[0],
        ("user".into(), json!({"type": "text", "text": TASK}))
    );
    assert_eq!(all[1].1["id"], "toolu_a", "{first_resumed}");
    let interrupted = all
        .iter()
        .find(|(_, b)| b["type"] == "tool_result" && b["tool_use_id"] == "toolu_a")
        .unwrap_or_else(|| panic!("no tool_result for toolu_a: {first_resumed}"));
    assert_eq!(interrupted.0, "user");
    assert_eq!(interrupted.1["is_error"], true, "{first_resumed}");
    assert!(
        tool_results_text(first_resumed).contains(INTERRUPT_MESSAGE_FOR_TOOL_USE),
        "{first_resumed}"
    );
    let last = all.last().unwrap();
    assert_eq!(last.0, "user");
    assert_eq!(last.1["text"], "go on", "{first_resumed}");
    for body in &bodies {
        assert_paired_and_unique(body);
    }
    // The last request saw the listing of all three files.
    let listing = tool_results_text(&bodies[2]);
    for name in ["a.txt", "b.txt", "c.txt"] {
        assert!(listing.contains(name), "{listing}");
    }
    for (name, text) in [("a", "one"), ("b", "two"), ("c", "three")] {
        let path = scratch.path().join(format!("notes/{name}.txt"));
        assert_eq!(std::fs::read_to_string(path).unwrap(), format!("{text}\n"));
    }
}
