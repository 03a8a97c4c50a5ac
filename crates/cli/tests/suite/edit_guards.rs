//! Issue 17's guards for every model (no small profile) through the
//! binary, against the fake OpenAI server: read-before-edit as Claude Code
//! 2.1.332 and the refusal of a Write whose content is one of orbit's own
//! status texts. The scripted replies and the run helper are
//! `small_model`'s.

use orbit_test_support::FakeOpenAi;
use serde_json::json;

use super::common::Scratch;
use super::small_model::{call, run_openai, text, tool_texts};

/// Read-before-edit for every model (no small profile): an Edit of a file
/// never read runs when `old_string` matches; a Write over a file never
/// read and an Edit of a file changed since its Read are refused with the
/// text that says to Read; the files keep what they had.
#[test]
fn edit_without_read_runs_write_without_read_and_stale_edits_are_refused() {
    let scratch = Scratch::new();
    let utils = scratch.write("utils.py", "def foo(x):\n    return 2 * x\n");
    scratch.write("notes.md", "keep me\n");
    let data = scratch.write("data.txt", "one\n");
    let server = FakeOpenAi::start(vec![
        call(
            "c1",
            "Edit",
            json!({"file_path": "utils.py", "old_string": "def foo(", "new_string": "def double("}),
        ),
        call(
            "c2",
            "Write",
            json!({"file_path": "notes.md", "content": "clobbered\n"}),
        ),
        call("c3", "Read", json!({"file_path": "data.txt"})),
        call("c4", "Bash", json!({"command": "echo two >> data.txt"})),
        call(
            "c5",
            "Edit",
            json!({"file_path": "data.txt", "old_string": "one", "new_string": "1"}),
        ),
        text("done"),
    ]);
    let out = run_openai(
        &scratch,
        &server,
        None,
        &["--permission-mode", "acceptEdits", "--allowedTools", "Bash"],
    );
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let bodies = server.bodies();
    let results = tool_texts(&bodies[5]);
    assert_eq!(results.len(), 5, "{results:?}");
    assert_eq!(
        results[0],
        format!(
            "The file {} has been updated successfully.",
            utils.display()
        )
    );
    assert_eq!(
        results[1],
        "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
    );
    assert_eq!(
        results[4],
        "<tool_use_error>File has been modified since read, either by the user or by a linter. \
Read it again before attempting to write it.</tool_use_error>"
    );
    assert_eq!(
        std::fs::read_to_string(&utils).unwrap(),
        "def double(x):\n    return 2 * x\n"
    );
    assert_eq!(
        std::fs::read_to_string(scratch.path().join("notes.md")).unwrap(),
        "keep me\n"
    );
    assert_eq!(std::fs::read_to_string(&data).unwrap(), "one\ntwo\n");
}

/// A Write whose content is one of orbit's own tool-result texts (with or
/// without its path) is refused and the file keeps its content; real
/// content that only mentions such a text is written.
#[test]
fn writing_a_status_text_into_a_file_is_refused() {
    let scratch = Scratch::new();
    let notes = scratch.write("notes.md", "# Notes\n");
    let echoes = [
        "The file has been updated successfully.",
        "The file notes.md has been updated successfully.\n",
        "File created successfully at: notes.md",
    ];
    let mut replies = vec![call("r", "Read", json!({"file_path": "notes.md"}))];
    replies.extend(echoes.iter().enumerate().map(|(i, content)| {
        call(
            &format!("w{i}"),
            "Write",
            json!({"file_path": "notes.md", "content": content}),
        )
    }));
    let real = "# Notes\nThe deploy log said: The file has been updated successfully.\n";
    replies.push(call(
        "ok",
        "Write",
        json!({"file_path": "notes.md", "content": real}),
    ));
    replies.push(text("done"));
    let server = FakeOpenAi::start(replies);
    let out = run_openai(
        &scratch,
        &server,
        None,
        &["--permission-mode", "acceptEdits"],
    );
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let bodies = server.bodies();
    let results = tool_texts(bodies.last().unwrap());
    let refusal = "<tool_use_error>Refused: the content is one of orbit's own tool-result messages, not \
file content. Do not write a status message into the file. Write the file's real content, or, if the task \
is done, reply to the user in plain text.</tool_use_error>";
    for (i, echo) in echoes.iter().enumerate() {
        assert_eq!(results[i + 1], refusal, "{echo:?}");
    }
    assert_eq!(
        results[echoes.len() + 1],
        format!(
            "The file {} has been updated successfully.",
            notes.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), real);
}
