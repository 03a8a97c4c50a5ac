//! `tool_use_result` on stream-json `user` lines: Claude Code's structured
//! result of one built-in call, built from the call's input (remembered
//! from its `assistant` line) and the facts its tool reported
//! ([`ToolDetail`], carried by `EngineEvent::ToolResult`).
//!
//! Nothing here reads a file or parses a tool's text: Read's window and
//! line count, Edit's and Write's patch and Bash's separate streams come
//! from the tool. A result the tool gave no facts for (an error, a call the
//! engine answered itself) falls back to what the result block says: the
//! engine's interrupt answer, or the result text.

use orbit_tool::{
    BashDetail, ChangeKind, FileChange, INTERRUPT_MESSAGE_FOR_TOOL_USE, PatchHunk, ReadDetail,
    ToolDetail,
};
use serde_json::{Value, json};

/// One finished call as the writer saw it.
pub(crate) struct Finished<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// The input the model sent.
    pub input: &'a Value,
    /// The facts its tool reported.
    pub detail: Option<ToolDetail>,
    /// The result's text (for errors and tools without facts).
    pub text: &'a str,
    /// The result is an error.
    pub is_error: bool,
}

fn str_of<'a>(input: &'a Value, key: &str) -> &'a str {
    input.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// Claude Code's structured result of one built-in tool call; errors and
/// other tools carry the result text (as Claude Code's error results do).
pub(crate) fn structured(call: Finished<'_>) -> Option<Value> {
    let Finished {
        name,
        input,
        detail,
        text,
        is_error,
    } = call;
    match (name, detail) {
        ("Bash", Some(ToolDetail::Bash(bash))) => Some(bash_result(&bash)),
        // A call that never ran (a hook or the permission gate refused
        // it): the error text, as Claude Code gives it.
        ("Bash", None) if is_error && text != INTERRUPT_MESSAGE_FOR_TOOL_USE => {
            Some(Value::String(format!("Error: {text}")))
        }
        // No facts: the engine answered (an interrupt) or the command ran
        // in the background.
        ("Bash", _) => Some(json!({
            "stdout": text,
            "stderr": "",
            "interrupted": is_error && text == INTERRUPT_MESSAGE_FOR_TOOL_USE,
            "isImage": false,
        })),
        _ if is_error => Some(Value::String(format!("Error: {text}"))),
        ("Read", Some(ToolDetail::Read(read))) => Some(read_result(input, &read)),
        ("Write", Some(ToolDetail::Write(change))) => Some(write_result(input, &change)),
        ("Edit", Some(ToolDetail::Edit(change))) => {
            Some(edit_result(input, &change.structured_patch))
        }
        // A Read without a text window (an image, an empty file): its
        // answer as the content, no lines.
        ("Read", _) => Some(json!({
            "type": "text",
            "file": {
                "filePath": str_of(input, "file_path"),
                "content": text,
                "numLines": 0,
                "startLine": input.get("offset").and_then(Value::as_u64).unwrap_or(1),
                "totalLines": 0,
            }
        })),
        ("Edit", _) => Some(edit_result(input, &[])),
        // Claude Code's StructuredOutput result is its text.
        ("StructuredOutput", _) => Some(Value::String(text.to_string())),
        _ => None,
    }
}

/// Bash: its streams apart and whether its cancel token stopped it.
fn bash_result(bash: &BashDetail) -> Value {
    json!({
        "stdout": bash.stdout,
        "stderr": bash.stderr,
        "interrupted": bash.interrupted,
        "isImage": false,
    })
}

/// Read: the lines it showed, without orbit's `N\t` prefixes.
fn read_result(input: &Value, read: &ReadDetail) -> Value {
    json!({
        "type": "text",
        "file": {
            "filePath": str_of(input, "file_path"),
            "content": read.content,
            "numLines": read.num_lines,
            "startLine": read.start_line,
            // Unknown only for a file too large to count: what was seen.
            "totalLines": read.total_lines.unwrap_or(read.start_line - 1 + read.num_lines),
        }
    })
}

/// Write: a create has no patch and no original (as Claude Code); an
/// overwrite's patch is the diff from the content it replaced.
fn write_result(input: &Value, change: &FileChange) -> Value {
    let kind = match change.kind {
        ChangeKind::Create => "create",
        ChangeKind::Update => "update",
    };
    json!({
        "type": kind,
        "filePath": str_of(input, "file_path"),
        "content": str_of(input, "content"),
        "structuredPatch": hunks(&change.structured_patch),
        "originalFile": change.original,
    })
}

/// Edit: Claude Code's fields, the patch the tool computed.
fn edit_result(input: &Value, patch: &[PatchHunk]) -> Value {
    json!({
        "filePath": str_of(input, "file_path"),
        "oldString": str_of(input, "old_string"),
        "newString": str_of(input, "new_string"),
        "originalFile": Value::Null,
        "structuredPatch": hunks(patch),
        "userModified": false,
        "replaceAll": input.get("replace_all").and_then(Value::as_bool).unwrap_or(false),
    })
}

/// `structuredPatch`'s shape: Claude Code's camel-case keys.
fn hunks(patch: &[PatchHunk]) -> Vec<Value> {
    patch
        .iter()
        .map(|h| {
            json!({
                "oldStart": h.old_start,
                "oldLines": h.old_lines,
                "newStart": h.new_start,
                "newLines": h.new_lines,
                "lines": h.lines,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished<'a>(
        name: &'a str,
        input: &'a Value,
        detail: Option<ToolDetail>,
        text: &'a str,
        is_error: bool,
    ) -> Option<Value> {
        structured(Finished {
            name,
            input,
            detail,
            text,
            is_error,
        })
    }

    /// Each built-in's structured result comes from its tool's facts; a
    /// failed command that only mentions an interrupt was not interrupted,
    /// the engine's interrupt answer was.
    #[test]
    fn structured_results_come_from_the_tools_facts() {
        let bash = ToolDetail::Bash(BashDetail {
            stdout: "out".into(),
            stderr: "interrupted system call".into(),
            exit_code: Some(1),
            interrupted: false,
            changes: vec![],
            unshown: vec![],
        });
        let input = json!({"command": "x"});
        assert_eq!(
            finished(
                "Bash",
                &input,
                Some(bash),
                "Exit code 1\nout\ninterrupted system call",
                true
            ),
            Some(json!({"stdout": "out", "stderr": "interrupted system call",
                "interrupted": false, "isImage": false}))
        );
        let refused = finished(
            "Bash",
            &input,
            None,
            "Permission to use Bash was denied.",
            true,
        );
        assert_eq!(
            refused,
            Some(json!("Error: Permission to use Bash was denied."))
        );
        let stopped = finished("Bash", &input, None, INTERRUPT_MESSAGE_FOR_TOOL_USE, true);
        assert_eq!(stopped.map(|v| v["interrupted"].clone()), Some(json!(true)));
        let read = ToolDetail::Read(ReadDetail {
            file: "/p/a.txt".into(),
            content: "one\ntwo".into(),
            num_lines: 2,
            start_line: 1,
            total_lines: Some(5),
        });
        let input = json!({"file_path": "a.txt"});
        assert_eq!(
            finished("Read", &input, Some(read), "ignored", false),
            Some(
                json!({"type": "text", "file": {"filePath": "a.txt", "content": "one\ntwo",
                "numLines": 2, "startLine": 1, "totalLines": 5}})
            )
        );
        let glob = json!({"pattern": "*"});
        assert_eq!(
            finished("Glob", &glob, None, "boom", true),
            Some(json!("Error: boom"))
        );
        assert_eq!(finished("Glob", &glob, None, "a", false), None);
    }
}
