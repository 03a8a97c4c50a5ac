//! Paths a model may name to hang orbit or fill its memory (issue 29):
//! a FIFO, `/dev/zero`, `/dev/stdin`, a file of 100 MB, a directory — for
//! Read, Edit and Write. Each call ends within a second (run on a thread,
//! so a blocked open fails the test instead of hanging it) with an error
//! that names what the path is; a large file is never read whole.

use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use orbit_test_support::files::{large_text_file, mkfifo};
use orbit_tool::{ToolError, ToolUseContext};
use orbit_tools::builtin::edit::MAX_EDIT_FILE_BYTES;
use serde_json::{Value, json};

use super::harness::{builtin, p, read_path, run, session};

/// How long one call may take before it counts as hung.
const CALL_LIMIT: Duration = Duration::from_secs(1);
/// The "large file" of the issue, in bytes.
const LARGE_FILE_BYTES: u64 = 100 * 1024 * 1024;

/// What a call answered: its text and whether it is an error (a refusal
/// counts as one).
#[derive(Debug)]
struct Answer {
    is_error: bool,
    text: String,
    detail: Option<orbit_tool::ToolDetail>,
}

/// Runs `tool` with `input` on its own runtime and thread; panics when it
/// takes longer than [`CALL_LIMIT`] (a blocked call would hang forever).
fn answer_within_limit(ctx: &ToolUseContext, tool: &'static str, input: Value) -> Answer {
    let ctx = ctx.clone();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let result = rt.block_on(run(&builtin(tool), &ctx, input));
        let _ = tx.send(match result {
            Ok(out) => Answer {
                is_error: out.is_error,
                text: match &out.content {
                    orbit_protocol::ToolResultContent::Text(t) => t.clone(),
                    other => format!("{other:?}"),
                },
                detail: out.detail,
            },
            Err(ToolError::RespondToModel(text)) | Err(ToolError::Fatal(text)) => Answer {
                is_error: true,
                text,
                detail: None,
            },
        });
    });
    match rx.recv_timeout(CALL_LIMIT) {
        Ok(answer) => answer,
        Err(_) => panic!("{tool} did not answer within {CALL_LIMIT:?}"),
    }
}

fn read_input(path: &Path) -> Value {
    json!({ "file_path": p(path) })
}

fn edit_input(path: &Path) -> Value {
    json!({ "file_path": p(path), "old_string": "a", "new_string": "b" })
}

fn write_input(path: &Path) -> Value {
    json!({ "file_path": p(path), "content": "new" })
}

#[test]
fn a_fifo_is_named_as_one_by_read_edit_and_write_without_blocking() {
    let (_d, ctx, root) = session();
    let fifo = root.join("pipe");
    mkfifo(&fifo);
    let shown = fifo.display();
    let cases = [
        (
            "Read",
            read_input(&fifo),
            format!("Cannot read {shown}: it is a FIFO, not a regular file"),
        ),
        (
            "Edit",
            edit_input(&fifo),
            format!("Cannot edit {shown}: it is a FIFO, not a regular file"),
        ),
        (
            "Write",
            write_input(&fifo),
            format!("Cannot write {shown}: it is a FIFO, not a regular file"),
        ),
    ];
    for (tool, input, expected) in cases {
        let answer = answer_within_limit(&ctx, tool, input);
        assert!(answer.is_error, "{tool}: {answer:?}");
        assert_eq!(answer.text, expected, "{tool}");
    }
    // Left as it was: still a FIFO.
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn devices_are_named_as_devices_and_never_read() {
    let (_d, ctx, root) = session();
    // A link in the project to /dev/zero reads as the device it leads to.
    let link = root.join("zeros");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    for path in [Path::new("/dev/zero"), Path::new("/dev/null"), &link] {
        let shown = path.display();
        for (tool, input, verb) in [
            ("Read", read_input(path), "read"),
            ("Edit", edit_input(path), "edit"),
            ("Write", write_input(path), "write"),
        ] {
            let answer = answer_within_limit(&ctx, tool, input);
            assert!(answer.is_error, "{tool} {shown}: {answer:?}");
            assert_eq!(
                answer.text,
                format!("Cannot {verb} {shown}: it is a character device, not a regular file"),
                "{tool}"
            );
        }
    }
}

/// `/dev/stdin` is orbit's own input: whatever it is in this test process
/// (a terminal, a pipe, /dev/null), anything but a regular file is refused
/// at once, named as what it is.
#[test]
fn dev_stdin_is_refused_unless_it_is_a_regular_file() {
    let (_d, ctx, _root) = session();
    let stdin = Path::new("/dev/stdin");
    let Ok(meta) = fs::metadata(stdin) else {
        return; // No stdin at all: nothing to test.
    };
    let kind = meta.file_type();
    for (tool, input) in [("Read", read_input(stdin)), ("Edit", edit_input(stdin))] {
        let answer = answer_within_limit(&ctx, tool, input);
        if kind.is_file() {
            continue;
        }
        assert!(answer.is_error, "{tool}: {answer:?}");
        let named = if kind.is_fifo() {
            "it is a FIFO, not a regular file"
        } else if kind.is_char_device() {
            "it is a character device, not a regular file"
        } else {
            "not a regular file"
        };
        assert!(answer.text.contains(named), "{tool}: {}", answer.text);
    }
}

/// A 100 MB file: Read refuses a whole read with its size (and reads a
/// window of it), Edit refuses with the size and its cap, Write replaces it
/// without reading it whole for its patch.
#[test]
fn a_large_file_is_never_read_whole() {
    let (_d, ctx, root) = session();
    let big = root.join("big.txt");
    large_text_file(&big, LARGE_FILE_BYTES);

    let answer = answer_within_limit(&ctx, "Read", read_input(&big));
    assert!(answer.is_error);
    assert!(
        answer
            .text
            .starts_with("File content (100MB) exceeds maximum allowed size"),
        "{}",
        answer.text
    );

    let answer = answer_within_limit(&ctx, "Edit", edit_input(&big));
    assert!(answer.is_error);
    assert_eq!(
        answer.text,
        "File is too large to edit (100MB). Maximum editable file size is 16MB."
    );

    // Write of a text file just over Edit's cap, read first through a
    // window: the overwrite carries no original for the patch.
    let big_text = root.join("big-text.txt");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(fs::File::create(&big_text).unwrap());
        let line = "x".repeat(1023) + "\n";
        for _ in 0..=(MAX_EDIT_FILE_BYTES / 1024) {
            f.write_all(line.as_bytes()).unwrap();
        }
    }
    block_on(read_window(&ctx, &big_text));
    let answer = answer_within_limit(&ctx, "Write", write_input(&big_text));
    assert!(!answer.is_error, "{answer:?}");
    match answer.detail {
        Some(orbit_tool::ToolDetail::Write(change)) => {
            assert_eq!(
                change.original, None,
                "an original over the cap is not carried"
            );
            assert!(change.structured_patch.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read_to_string(&big_text).unwrap(), "new");
}

/// Runs `job` to its end on a runtime of its own (the tests here are
/// synchronous: each tool call gets its own thread and time limit).
fn block_on<F: std::future::Future>(job: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(job)
}

/// Reads the first line of `path` (the session has then read it).
async fn read_window(ctx: &ToolUseContext, path: &Path) {
    let out = run(
        &builtin("Read"),
        ctx,
        json!({ "file_path": p(path), "offset": 1, "limit": 1 }),
    )
    .await
    .unwrap();
    assert!(!out.is_error, "{out:?}");
}

/// A normal file of a normal size is still read, edited and written as
/// before (the patch carries its original).
#[test]
fn normal_files_are_unaffected() {
    let (_d, ctx, root) = session();
    let file = root.join("a.txt");
    fs::write(&file, "a\n").unwrap();
    block_on(read_path(&ctx, &file));
    let answer = answer_within_limit(&ctx, "Edit", edit_input(&file));
    assert!(!answer.is_error, "{answer:?}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "b\n");
    let answer = answer_within_limit(&ctx, "Write", write_input(&file));
    assert!(!answer.is_error, "{answer:?}");
    let original = match answer.detail {
        Some(orbit_tool::ToolDetail::Write(change)) => change.original,
        other => panic!("{other:?}"),
    };
    assert_eq!(original.as_deref(), Some("b\n"));
}
