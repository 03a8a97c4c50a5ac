//! Issue 38's tool texts that help a small model find its way, through the
//! binary against the fake OpenAI server (documented improvements over
//! Claude Code's texts): Read of a directory keeps the `EISDIR` line and
//! lists the entries; Edit's "String to replace not found" shows the
//! closest lines of the file; a tool call with an escape JSON does not
//! know is read tolerantly, an unreadable one never runs.

use orbit_test_support::{Completion, FakeOpenAi, OpenAiReply};
use serde_json::json;

use super::common::Scratch;
use super::small_model::{call, run_openai, text, tool_texts};

/// Read of a directory: Claude Code's `EISDIR` line first, then the
/// directory's entries sorted, directories marked with `/`, an entry a
/// read deny rule covers left out.
#[test]
fn read_of_a_directory_lists_its_entries() {
    let scratch = Scratch::new();
    let src = scratch.path().join("src");
    std::fs::create_dir_all(src.join("lib")).unwrap();
    scratch.write("src/util.py", "x = 1\n");
    scratch.write("src/app.py", "print(1)\n");
    scratch.write("src/secret.txt", "hidden\n");
    let server = FakeOpenAi::start(vec![
        call("r1", "Read", json!({"file_path": "src"})),
        text("done"),
    ]);
    let out = run_openai(
        &scratch,
        &server,
        None,
        &["--disallowedTools", "Read(./src/secret.txt)"],
    );
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let results = tool_texts(&server.bodies()[1]);
    assert_eq!(
        results,
        vec![format!(
            "EISDIR: illegal operation on a directory, read '{}'\nIt is a directory; Read one of \
its files instead. Its entries (3):\napp.py\nlib/\nutil.py",
            src.display()
        )]
    );
}

/// Edit whose `old_string` differs from the file by quote style: the
/// not-found text names the closest real lines, which the next Edit copies
/// and which then succeeds. What the model sees is snapshotted.
#[test]
fn edit_not_found_shows_the_closest_lines() {
    let scratch = Scratch::new();
    let app = scratch.write(
        "app.py",
        "import sys\n\ndef main():\n    print(\"Hello, world\")\n    return 0\n",
    );
    let server = FakeOpenAi::start(vec![
        call("r1", "Read", json!({"file_path": "app.py"})),
        call(
            "e1",
            "Edit",
            json!({"file_path": "app.py", "old_string": "print('Hello, world')", "new_string": "print('Hi')"}),
        ),
        call(
            "e2",
            "Edit",
            json!({"file_path": "app.py", "old_string": "print(\"Hello, world\")", "new_string": "print('Hi')"}),
        ),
        text("done"),
    ]);
    let out = run_openai(
        &scratch,
        &server,
        Some("1"),
        &["--permission-mode", "acceptEdits"],
    );
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let results = tool_texts(server.bodies().last().unwrap());
    assert_eq!(results.len(), 3, "{results:?}");
    insta::assert_snapshot!("edit_not_found_closest_lines", results[1]);
    assert!(
        results[1].contains("Line 4:\n    print(\"Hello, world\")"),
        "{}",
        results[1]
    );
    assert_eq!(
        std::fs::read_to_string(&app).unwrap(),
        "import sys\n\ndef main():\n    print('Hi')\n    return 0\n"
    );
}

/// A Bash call streamed with `\;` inside its JSON string (an escape JSON
/// does not know) runs with the characters kept literally and its other
/// fields intact; a call that still cannot be read (cut JSON, or a string
/// that swallowed the fields after it) is answered with the parse text and
/// never runs.
#[test]
fn tool_calls_with_unknown_escapes_run_and_unreadable_calls_do_not() {
    let scratch = Scratch::new();
    scratch.write("a.tmp", "");
    scratch.write("keep.txt", "");
    let raw = |id: &str, args: &str| {
        OpenAiReply::completion(Completion::new().tool_call_raw(id, "Bash", &[args]))
    };
    let server = FakeOpenAi::start(vec![
        raw(
            "b1",
            r#"{"command": "find . -name '*.tmp' -exec rm {} \;", "timeout": 60000, "description": "Delete tmp files"}"#,
        ),
        raw("b2", r#"{"command": "touch cut.txt", "timeout": "#),
        raw(
            "b3",
            r#"{"command": "touch swallowed.txt \", timeout: 60, description: \""}"#,
        ),
        text("done"),
    ]);
    let out = run_openai(&scratch, &server, None, &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let results = tool_texts(server.bodies().last().unwrap());
    assert_eq!(results.len(), 3, "{results:?}");
    assert!(!results[0].contains("tool_use_error"), "{}", results[0]);
    assert!(!scratch.path().join("a.tmp").exists());
    assert!(scratch.path().join("keep.txt").exists());
    for (result, file) in results[1..].iter().zip(["cut.txt", "swallowed.txt"]) {
        assert!(
            result.starts_with(
                "<tool_use_error>InputValidationError: Bash was called with input that could not be parsed as JSON."
            ),
            "{result}"
        );
        assert!(!scratch.path().join(file).exists(), "{file}");
    }
    // The assistant turn sent back keeps the command as it ran.
    let calls = server.bodies()[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .unwrap()["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .unwrap()
        .to_string();
    let args: serde_json::Value = serde_json::from_str(&calls).unwrap();
    assert_eq!(
        args["command"], "find . -name '*.tmp' -exec rm {} \\;",
        "{calls}"
    );
    assert_eq!(args["timeout"], 60000);
}

/// One answer per question (a replayed transcript shape of the five seen
/// in the UI): a test run that fails as expected (`Exit code 1`), then the
/// model's plain-text answer. The answer ends the run: no after-error
/// reminder is sent, so the model is never asked again and its second
/// answer — here a line of the prompt's worked examples — never surfaces.
#[test]
fn a_text_reply_to_a_failed_call_is_the_one_answer() {
    let scratch = Scratch::new();
    scratch.write("test_calc.py", "def test_add():\n    assert 1 + 1 == 3\n");
    let answer = "The test fails: test_add expects 1 + 1 == 3.";
    let example_line = "The file app.cfg contains the line level=debug.";
    let server = FakeOpenAi::start(vec![
        call(
            "b1",
            "Bash",
            json!({"command": "echo 'FAILED test_calc.py::test_add'; exit 1"}),
        ),
        text(answer),
        text(example_line),
    ]);
    let out = run_openai(&scratch, &server, Some("1"), &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(out.result()["result"], answer);
    assert_eq!(server.request_count(), 2);
    let results = tool_texts(&server.bodies()[1]);
    assert_eq!(results, vec!["Exit code 1\nFAILED test_calc.py::test_add"]);
    assert!(!out.stdout.contains(example_line), "{}", out.stdout);
}
