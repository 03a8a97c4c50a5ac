//! Read, Write and Edit end to end through the engine (issue 3): the exact
//! tool_result the model receives, and what ends up on disk.

use std::fs;
use std::path::Path;

use orbit_test_support::{Reply, body};
use serde_json::{Value, json};

use super::builtin_tools::*;

const NOT_READ: &str = "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>";

/// Standard base64 (the API's image encoding), to build the expected block.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

// --------------------------------------------------------------------- Read

/// Every kind of file Read meets, in one session: what the model receives.
#[tokio::test]
async fn read_answers_each_kind_of_file_exactly() {
    let (_dir, root) = temp_dir();
    let long = "x".repeat(2_001);
    let files = [
        (
            "notes.txt",
            format!("alpha\nbeta\n{long}\ndelta\n").into_bytes(),
        ),
        ("short.txt", b"alpha\nbeta\n".to_vec()),
        ("empty.txt", Vec::new()),
        ("big.log", "y".repeat(300 * 1024 + 100).into_bytes()),
        ("data.bin", b"\x7fELF\0\0\x01\x02".to_vec()),
        ("latin1.txt", b"caf\xe9\r\nok\n".to_vec()),
    ];
    for (name, content) in files {
        fs::write(root.join(name), content).unwrap();
    }
    let sub = root.join("sub");
    fs::create_dir(&sub).unwrap();
    let read = |input: Value, text: &str, is_error: bool| (input, text.to_string(), is_error);
    assert_each_said(
        &root,
        "Read",
        &[
            // Numbered from `offset`, at most `limit` lines, long lines cut.
            read(
                json!({"file_path": "notes.txt", "offset": 2, "limit": 2}),
                &format!("2\tbeta\n3\t{}… [truncated]", "x".repeat(2_000)),
                false,
            ),
            // null for an optional parameter is taken as absent.
            read(
                json!({"file_path": "short.txt", "offset": null, "limit": null}),
                "1\talpha\n2\tbeta\n3\t",
                false,
            ),
            read(
                json!({"file_path": "nope.txt"}),
                &format!(
                    "File does not exist. Note: your current working directory is {}.",
                    root.display()
                ),
                true,
            ),
            read(
                json!({"file_path": sub}),
                &format!(
                    "EISDIR: illegal operation on a directory, read '{}'\nIt is an empty directory.",
                    sub.display()
                ),
                true,
            ),
            read(
                json!({"file_path": "empty.txt"}),
                "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>",
                false,
            ),
            // Too large for one read: points to offset/limit and Grep.
            read(
                json!({"file_path": "big.log"}),
                "File content (300.1KB) exceeds maximum allowed size (256KB). Please use offset and limit \
parameters to read specific portions of the file, or use the Grep tool to search for specific content.",
                true,
            ),
            read(
                json!({"file_path": "data.bin"}),
                "This tool cannot read binary files. The file appears to be a binary .bin file. \
Please use appropriate tools for binary file analysis.",
                true,
            ),
            // Invalid UTF-8 is shown lossily.
            read(
                json!({"file_path": "latin1.txt"}),
                "1\tcaf\u{fffd}\n2\tok\n3\t",
                false,
            ),
        ],
    )
    .await;
}

#[tokio::test]
async fn read_of_a_png_sends_an_image_block() {
    // A real 1×1 PNG.
    const PNG: &[u8] =
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\
\0\0\0\rIDATx\xdacd\xf8\xcfP\x0f\0\x03\x86\x01\x80Z4}k\0\0\0\0IEND\xaeB`\x82";
    assert_eq!(
        base64(PNG),
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    );
    let (_dir, root) = temp_dir();
    fs::write(root.join("dot.png"), PNG).unwrap();
    let run = run_calls(&root, &[("Read", json!({"file_path": "dot.png"}))]).await;
    let blocks = body::blocks(&body::last_message(&run.bodies[1]));
    let result: Vec<&Value> = blocks
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .collect();
    assert_eq!(result.len(), 1);
    assert_eq!(result[0]["tool_use_id"], "toolu_1");
    assert_eq!(result[0].get("is_error"), None);
    assert_eq!(
        result[0]["content"],
        json!([{"type": "image", "source": {
            "type": "base64", "media_type": "image/png", "data": base64(PNG)
        }}])
    );
}

// -------------------------------------------------------------------- Write

/// Write, and Edit with an empty `old_string`, create a missing file and
/// its parent directories: (tool, input, file, what the result says after
/// the path).
#[tokio::test]
async fn write_and_edit_create_missing_files_and_parents() {
    let (_dir, root) = temp_dir();
    let cases = [
        (
            "Write",
            json!({"file_path": "a/b/c.txt", "content": "hi\n"}),
            "a/b/c.txt",
            ("File created successfully at: ", ""),
        ),
        (
            "Edit",
            json!({"file_path": "new/made.txt", "old_string": "", "new_string": "hi\n"}),
            "new/made.txt",
            ("The file ", " has been updated successfully."),
        ),
    ];
    let calls: Vec<(&str, Value)> = cases.iter().map(|(t, i, ..)| (*t, i.clone())).collect();
    let run = run_calls(&root, &calls).await;
    for ((tool, _, file, (before, after)), r) in cases.iter().zip(&run.results) {
        let path = root.join(file);
        let expected = format!("{before}{}{after}", path.display());
        assert_eq!(said(r), (expected.as_str(), false), "{tool}");
        assert_eq!(fs::read_to_string(path).unwrap(), "hi\n", "{tool}");
    }
}

#[tokio::test]
async fn write_refuses_to_overwrite_a_file_not_read_first() {
    let (_dir, root) = temp_dir();
    fs::write(root.join("f.txt"), "original").unwrap();
    let r = call_one(
        &root,
        "Write",
        json!({"file_path": "f.txt", "content": "clobbered"}),
    )
    .await;
    assert_eq!(said(&r), (NOT_READ, true));
    assert_eq!(fs::read_to_string(root.join("f.txt")).unwrap(), "original");
}

/// Reads `f.txt` (holding `initial`), lets `change` alter it on disk, then
/// asks to write it: the Write is refused as modified since read and the
/// file keeps what `change` left. The session, for further checks.
async fn write_after_change(initial: &str, change: impl FnOnce(&Path)) -> Session {
    let (_dir, root) = temp_dir();
    let file = root.join("f.txt");
    fs::write(&file, initial).unwrap();
    let mut session = Session::new(
        &root,
        vec![
            Reply::tool_use("toolu_read", "Read", json!({"file_path": "f.txt"})),
            Reply::text("read"),
            Reply::tool_use(
                "toolu_write",
                "Write",
                json!({"file_path": "f.txt", "content": "mine\n"}),
            ),
            Reply::text("done"),
        ],
    );
    session.prompt("read it").await;
    change(&file);
    let left = fs::read_to_string(&file).unwrap();
    session.prompt("now write it").await;
    assert_eq!(
        said(&session.result_in(3, "toolu_write")),
        (
            "<tool_use_error>File has been modified since read, either by the user or by a linter. \
Read it again before attempting to write it.</tool_use_error>",
            true
        )
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), left);
    session
}

#[tokio::test]
async fn write_refuses_a_file_changed_on_disk_since_it_was_read() {
    let session = write_after_change("v1\n", |file| {
        fs::write(file, "changed by the user\n").unwrap();
    })
    .await;
    assert_eq!(
        said(&session.result_in(1, "toolu_read")),
        ("1\tv1\n2\t", false)
    );
}

// --------------------------------------------------------------------- Edit

/// Reads `f.txt` (holding `content`), then edits it with `edit`; returns
/// the Edit's result and the file afterwards.
async fn read_then_edit(content: &str, edit: Value) -> (body::ToolResultView, String, String) {
    let (_dir, root) = temp_dir();
    let file = root.join("f.txt");
    fs::write(&file, content).unwrap();
    let mut input = edit;
    input["file_path"] = json!("f.txt");
    let run = run_calls(
        &root,
        &[("Read", json!({"file_path": "f.txt"})), ("Edit", input)],
    )
    .await;
    let shown = file.display().to_string();
    let after = fs::read_to_string(&file).unwrap();
    (run.results[1].clone(), shown, after)
}

#[tokio::test]
async fn edit_refusals_name_the_problem_and_leave_the_file() {
    // (case, file content, edit, the refusal the model sees)
    let table = [
        (
            "missing string",
            "alpha\n",
            json!({"old_string": "zeta", "new_string": "z"}),
            "<tool_use_error>String to replace not found in file.\nString: zeta</tool_use_error>",
        ),
        (
            "ambiguous string",
            "a1 a2 a3\n",
            json!({"old_string": "a", "new_string": "b"}),
            "<tool_use_error>Found 3 matches of the string to replace, but replace_all is false. \
To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide \
more context to uniquely identify the instance.\nString: a</tool_use_error>",
        ),
        (
            "identical strings",
            "same\n",
            json!({"old_string": "same", "new_string": "same"}),
            "<tool_use_error>No changes to make: old_string and new_string are exactly the same.</tool_use_error>",
        ),
    ];
    for (case, content, edit, refusal) in table {
        let (r, _, after) = read_then_edit(content, edit).await;
        assert_eq!(said(&r), (refusal, true), "{case}");
        assert_eq!(after, content, "{case}: file left as is");
    }
}

#[tokio::test]
async fn edit_applies_and_says_so() {
    const ONE: &str = "has been updated successfully.";
    const ALL: &str = "has been updated. All occurrences were successfully replaced.";
    // (case, file content, edit, what the result says after the path, file after)
    let table = [
        (
            "unique string",
            "fn main() {}\n",
            json!({"old_string": "main", "new_string": "start"}),
            ONE,
            "fn start() {}\n",
        ),
        (
            "replace_all",
            "a1 a2 a3\n",
            json!({"old_string": "a", "new_string": "b", "replace_all": true}),
            ALL,
            "b1 b2 b3\n",
        ),
        (
            "CRLF kept",
            "one\r\ntwo\r\nthree\r\n",
            json!({"old_string": "one\ntwo", "new_string": "uno\ndos"}),
            ONE,
            "uno\r\ndos\r\nthree\r\n",
        ),
    ];
    for (case, content, edit, says, expected_after) in table {
        let (r, shown, after) = read_then_edit(content, edit).await;
        let expected = format!("The file {shown} {says}");
        assert_eq!(said(&r), (expected.as_str(), false), "{case}");
        assert_eq!(after, expected_after, "{case}");
    }
}

// ------------------------------------------- permissions and final newlines

fn mode_of(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A 0o640 file (not the umask default 0o644) keeps its mode through an
/// atomic Write and Edit (temp file + rename), and Edit keeps the file's
/// final newline even when `old_string` reaches the last line.
#[tokio::test]
async fn write_and_edit_keep_a_0640_mode_and_the_final_newline() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, root) = temp_dir();
    let file = root.join("secret.env");
    fs::write(&file, "KEY=1\n").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    let run = run_calls(
        &root,
        &[
            ("Read", json!({"file_path": "secret.env"})),
            (
                "Write",
                json!({"file_path": "secret.env", "content": "KEY=2\nOTHER=3\n"}),
            ),
            (
                "Edit",
                json!({"file_path": "secret.env", "old_string": "2\nOTHER=3", "new_string": "4"}),
            ),
        ],
    )
    .await;
    let updated = format!("The file {} has been updated successfully.", file.display());
    assert_eq!(said(&run.results[0]), ("1\tKEY=1\n2\t", false));
    assert_eq!(said(&run.results[1]), (updated.as_str(), false));
    assert_eq!(said(&run.results[2]), (updated.as_str(), false));
    assert_eq!(fs::read_to_string(&file).unwrap(), "KEY=4\n");
    assert_eq!(mode_of(&file), 0o640);
    // Nothing but the file itself is left in the directory (no temp files).
    let names: Vec<_> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != ".orbit")
        .collect();
    assert_eq!(names, vec!["secret.env".to_string()]);
}

/// Every Read records the file's state (size, mtime, hash), so a Write
/// right after it is allowed; a file changed by the same byte count with a
/// new mtime is caught by the hash.
#[tokio::test]
async fn read_records_state_so_an_equal_size_change_is_still_caught() {
    write_after_change("aaaa\n", |file| {
        // Same size, different bytes, mtime moved on.
        fs::write(file, "bbbb\n").unwrap();
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
        fs::File::options()
            .write(true)
            .open(file)
            .unwrap()
            .set_modified(later)
            .unwrap();
    })
    .await;
}
