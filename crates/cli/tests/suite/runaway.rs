//! Issue 38's runaway guard through the binary, against the fake OpenAI
//! server: a loop of two calls whose pattern shifts ends by the guard's
//! limit (`2 × repeated_tool_call_limit` model calls), not by a timeout or
//! the turn limit; headless, the same call refused by the permission gate
//! twice ends the run with `error_during_execution` naming the flag that
//! would allow it (a documented improvement).

use orbit_test_support::{FakeOpenAi, OpenAiReply};
use serde_json::json;

use super::common::{Outcome, Scratch};
use super::small_model::{call, run_openai, text};

/// The small profile's limit (3): the run stops after 6 model calls.
const SMALL_LIMIT: usize = orbit_profile::SMALL.repeated_tool_call_limit as usize;

/// The run ended by the runaway guard, its error naming the calls `names`
/// repeated `count` times.
pub(super) fn assert_runaway_stop(out: &Outcome, names: &str, count: u32) {
    let result = out.result();
    assert_eq!(
        result["subtype"], "error_repeated_tool_call",
        "{}",
        out.stderr
    );
    assert_eq!(
        result["errors"][0],
        format!(
            "Stopped a runaway loop: the model called {names} with the same input {count} times in a row"
        )
    );
}

/// Read, then an Edit whose old and new text are the same (refused), in a
/// pattern that shifts (`Read, Edit, Edit, Read, Edit, Read`, …): the run
/// ends with `error_repeated_tool_call` after `2 × limit` model calls.
#[test]
fn a_shifting_two_call_loop_ends_by_the_guard() {
    let scratch = Scratch::new();
    scratch.write("app.py", "print(1)\n");
    let read = |i: usize| call(&format!("r{i}"), "Read", json!({"file_path": "app.py"}));
    let edit = |i: usize| {
        call(
            &format!("e{i}"),
            "Edit",
            json!({"file_path": "app.py", "old_string": "print(1)", "new_string": "print(1)"}),
        )
    };
    let replies: Vec<OpenAiReply> = (0..30)
        .map(|i| match i % 6 {
            0 | 3 | 5 => read(i),
            _ => edit(i),
        })
        .collect();
    let server = FakeOpenAi::start(replies);
    let out = run_openai(&scratch, &server, Some("1"), &["--max-turns", "40"]);
    assert_runaway_stop(&out, "Read then Edit", 3);
    assert_eq!(server.request_count(), 2 * SMALL_LIMIT);
}

/// Headless (`-p`, default mode): an Edit the gate refuses ("haven't
/// granted it"), made again, ends the run at the second refusal with an
/// error that names the call, the reason and the flags that allow it; a
/// different call refused once does not.
#[test]
fn the_same_call_denied_twice_ends_a_headless_run() {
    let scratch = Scratch::new();
    let notes = scratch.write("notes.md", "draft\n");
    let edit = |id: &str, new: &str| {
        call(
            id,
            "Edit",
            json!({"file_path": "notes.md", "old_string": "draft", "new_string": new}),
        )
    };
    let server = FakeOpenAi::start(vec![
        edit("e1", "final"),
        edit("e2", "done"),
        edit("e3", "final"),
        text("I could not edit the file."),
    ]);
    let out = run_openai(&scratch, &server, None, &[]);
    let result = out.result();
    assert_eq!(
        result["subtype"], "error_during_execution",
        "{}",
        out.stderr
    );
    // The rule is the one an approval would save (from the call's facts).
    assert_eq!(
        result["errors"][0],
        format!(
            "Stopped: the permission check refused the same Edit call 2 times (orbit requested \
permissions to use Edit, but you haven't granted it yet.). To allow it: --permission-mode \
acceptEdits, or --allowedTools \"Edit(/{})\".",
            std::fs::canonicalize(&notes).unwrap().display()
        )
    );
    assert_eq!(server.request_count(), 3);
    assert_eq!(result["permission_denials"].as_array().unwrap().len(), 3);
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "draft\n");
}
