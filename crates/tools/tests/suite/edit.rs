//! Edit through the erased contract (parse → validate → call) on real temp
//! files: the §8 texts, T5, line endings, permissions, the plan carried
//! from validate to call.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

use orbit_tool::{CallFacts, ToolError};
use orbit_tools::{CallContext, ToolOutput, ToolUseContext};
use serde_json::{Value, json};

use super::harness::{
    Refusal, builtin, edit, facts, mode, output, p, parse, read_file, run, session, text,
};

/// An Edit call with a whole input (one the path helpers do not cover).
async fn edit_input(ctx: &ToolUseContext, input: Value) -> Result<ToolOutput, ToolError> {
    run(&builtin("Edit"), ctx, input).await
}

#[tokio::test]
async fn replaces_a_unique_string() {
    let (_d, ctx, _) = session();
    let path = read_file(&ctx, "a.rs", b"fn main() {\n    println!(\"hi\");\n}\n").await;
    let out = edit(&ctx, &path, "\"hi\"", "\"hello\"").await.unwrap();
    assert!(!out.is_error);
    assert_eq!(
        text(&out),
        format!("The file {} has been updated successfully.", path.display())
    );
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "fn main() {\n    println!(\"hello\");\n}\n"
    );
}

/// Edits of a read file that are refused, each with its §8 text; the file
/// is left as it was.
#[tokio::test]
async fn refused_edits_of_a_read_file() {
    let rows = [
        (
            "abc",
            "xyz",
            "q",
            "String to replace not found in file.\nString: xyz",
        ),
        (
            "foo bar foo baz foo\n",
            "foo",
            "qux",
            "Found 3 matches of the string to replace, but replace_all is false. To replace all occurrences, \
set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify \
the instance.\nString: foo",
        ),
        (
            "same",
            "same",
            "same",
            "No changes to make: old_string and new_string are exactly the same.",
        ),
        (
            "content",
            "",
            "x",
            "Cannot create new file - file already exists.",
        ),
    ];
    let (_d, ctx, _) = session();
    for (content, old, new, expected) in rows {
        let path = read_file(&ctx, "a.txt", content.as_bytes()).await;
        let err = edit(&ctx, &path, old, new).await.unwrap_refusal();
        assert_eq!(err, expected, "{old:?} in {content:?}");
        assert_eq!(fs::read_to_string(&path).unwrap(), content);
    }
}

#[tokio::test]
async fn replace_all_replaces_every_match() {
    let (_d, ctx, _) = session();
    let path = read_file(&ctx, "a.txt", b"foo bar foo baz foo\n").await;
    let input = json!({"file_path": p(&path), "old_string": "foo", "new_string": "qux", "replace_all": true});
    let out = edit_input(&ctx, input).await.unwrap();
    assert_eq!(
        text(&out),
        format!(
            "The file {} has been updated. All occurrences were successfully replaced.",
            path.display()
        )
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "qux bar qux baz qux\n");
}

#[tokio::test]
async fn empty_old_string_creates_a_missing_file() {
    let (_d, ctx, _) = session();
    let path = ctx.cwd().join("new/dir/file.txt");
    let out = edit(&ctx, &path, "", "born\n").await.unwrap();
    assert!(!out.is_error);
    assert_eq!(
        text(&out),
        format!("The file {} has been updated successfully.", path.display())
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "born\n");
    // And the new file may be edited at once.
    edit(&ctx, &path, "born", "grown").await.unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "grown\n");
}

/// Edits of a read file, byte for byte: a blank file takes new_string
/// whole; CRLF files stay CRLF (old_string and new_string given with LF);
/// a final newline and its absence are kept, also when old_string reaches
/// the last line; bytes that are not UTF-8 survive around the match.
#[tokio::test]
async fn edits_of_a_read_file_keep_its_bytes() {
    let (_d, ctx, _) = session();
    let table: [(&[u8], &str, &str, &[u8]); 7] = [
        // file, old_string, new_string, file after
        (b"  \n", "", "filled", b"filled"),
        (
            b"one\r\ntwo\r\nthree\r\n",
            "one\ntwo",
            "uno\ndos\ndos-bis",
            b"uno\r\ndos\r\ndos-bis\r\nthree\r\n",
        ),
        (b"a\nb\n", "b", "c", b"a\nc\n"),
        (b"a\nb", "b", "c", b"a\nc"),
        (b"x\ny\nz\n", "y\nz", "w", b"x\nw\n"),
        (b"x\r\ny\r\nz\r\n", "y\nz", "w\nv", b"x\r\nw\r\nv\r\n"),
        (b"caf\xe9 old\n", "old", "new", b"caf\xe9 new\n"),
    ];
    for (i, (before, old, new, after)) in table.into_iter().enumerate() {
        let path = read_file(&ctx, &format!("case{i}.txt"), before).await;
        let out = edit(&ctx, &path, old, new).await.unwrap();
        assert!(!out.is_error, "{old:?} in {before:?}");
        assert_eq!(fs::read(&path).unwrap(), after, "{old:?} in {before:?}");
    }
}

#[tokio::test]
async fn missing_file_with_old_string() {
    let (_d, ctx, _) = session();
    let err = edit_input(
        &ctx,
        json!({"file_path": "ghost.txt", "old_string": "a", "new_string": "b"}),
    )
    .await
    .unwrap_refusal();
    assert_eq!(
        err,
        format!(
            "File does not exist. Note: your current working directory is {}.",
            ctx.cwd().display()
        )
    );
}

/// T5 as Claude Code 2.1.332: an existing file never read may be edited
/// (the exact `old_string` match proves the model knows the text), and a
/// wrong `old_string` still gets its own refusal; a file read and then
/// changed on disk is refused and left as it is.
#[tokio::test]
async fn unread_files_may_be_edited_modified_ones_are_refused() {
    let (_d, ctx, _) = session();
    let path = ctx.cwd().join("u.txt");
    fs::write(&path, "alpha").unwrap();
    let input = |old: &str| json!({"file_path": p(&path), "old_string": old, "new_string": old.to_uppercase()});
    assert_eq!(
        edit_input(&ctx, input("gamma")).await.unwrap_refusal(),
        "String to replace not found in file.\nString: gamma"
    );
    let out = edit_input(&ctx, input("alpha")).await.unwrap();
    assert!(!out.is_error, "{}", text(&out));
    assert_eq!(fs::read_to_string(&path).unwrap(), "ALPHA");

    let path = read_file(&ctx, "u.txt", b"beta").await;
    fs::write(&path, "beta!").unwrap();
    assert_eq!(
        edit_input(&ctx, input("beta")).await.unwrap_refusal(),
        "File has been modified since read, either by the user or by a linter. Read it again before \
attempting to write it."
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "beta!");
}

#[tokio::test]
async fn touch_without_change_is_not_a_modification() {
    let (_d, ctx, _) = session();
    let path = read_file(&ctx, "t.txt", b"same bytes").await;
    let f = fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    drop(f);
    edit(&ctx, &path, "same", "new").await.unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "new bytes");
}

#[tokio::test]
async fn permissions_are_kept_and_consecutive_edits_need_no_reread() {
    let (_d, ctx, _) = session();
    let path = read_file(&ctx, "run.sh", b"#!/bin/sh\necho 1\n").await;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o700)).unwrap();
    // chmod changes ctime only; size and mtime are unchanged, so still fresh.
    edit(&ctx, &path, "1", "2").await.unwrap();
    edit(&ctx, &path, "2", "3").await.unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "#!/bin/sh\necho 3\n");
    assert_eq!(mode(&path), 0o700);
}

/// What happens to the file between `validate` (which planned the edit)
/// and `call` (a permission prompt may take minutes).
enum Meanwhile {
    Write(&'static [u8]),
    /// Written with a later mtime (a write within the filesystem's
    /// timestamp granularity may keep the mtime; then the edit is planned
    /// again on the new bytes, and fails or applies to them).
    Rewrite(&'static [u8]),
    Touch,
    Delete,
}

#[tokio::test]
async fn the_plan_is_rechecked_against_the_file_before_writing() {
    const MODIFIED: &str = "File has been modified since read, either by the user or by a linter. \
Read it again before attempting to write it.";
    let (_d, ctx, _) = session();
    let missing = |cwd: &Path| {
        format!(
            "File does not exist. Note: your current working directory is {}.",
            cwd.display()
        )
    };
    // (case, file before (None: missing, else read first), edit, meanwhile,
    //  Ok(file after the write) or Err(refusal, file left as is))
    type Case = (
        &'static str,
        Option<&'static [u8]>,
        (&'static str, &'static str),
        Meanwhile,
        Result<&'static [u8], String>,
    );
    let table: Vec<Case> = vec![
        (
            "rewritten, other size",
            Some(b"x = 1\n"),
            ("1", "2"),
            Meanwhile::Write(b"x = 10\n"),
            Err(MODIFIED.into()),
        ),
        (
            "rewritten, same size",
            Some(b"x = 1\n"),
            ("1", "2"),
            Meanwhile::Rewrite(b"x = 3\n"),
            Err(MODIFIED.into()),
        ),
        (
            "touched, same bytes",
            Some(b"x = 1\n"),
            ("1", "2"),
            Meanwhile::Touch,
            Ok(b"x = 2\n"),
        ),
        (
            "deleted",
            Some(b"x = 1\n"),
            ("1", "2"),
            Meanwhile::Delete,
            Err(missing(&ctx.cwd())),
        ),
        (
            "created by someone else, with content",
            None,
            ("", "mine"),
            Meanwhile::Write(b"theirs"),
            Err("Cannot create new file - file already exists.".into()),
        ),
        (
            "created by someone else, blank",
            None,
            ("", "mine"),
            Meanwhile::Write(b""),
            Ok(b"mine"),
        ),
    ];
    for (i, (what, before, (old, new), meanwhile, expected)) in table.into_iter().enumerate() {
        let name = format!("case{i}.txt");
        let path = match before {
            Some(content) => read_file(&ctx, &name, content).await,
            None => ctx.cwd().join(&name),
        };
        let input = json!({"file_path": p(&path), "old_string": old, "new_string": new});
        let mut call = parse(&builtin("Edit"), &ctx, &input);
        call.validate(&ctx).await.unwrap();
        let later = || {
            let f = fs::File::options().write(true).open(&path).unwrap();
            f.set_modified(SystemTime::now() + Duration::from_secs(5))
                .unwrap();
        };
        match meanwhile {
            Meanwhile::Write(content) => fs::write(&path, content).unwrap(),
            Meanwhile::Rewrite(content) => {
                fs::write(&path, content).unwrap();
                later();
            }
            Meanwhile::Touch => later(),
            Meanwhile::Delete => fs::remove_file(&path).unwrap(),
        }
        let on_disk = fs::read(&path).ok();
        let out = call.call(&ctx, &CallContext::detached("t")).await;
        match expected {
            Ok(after) => {
                assert!(!output(out).is_error, "{what}");
                assert_eq!(fs::read(&path).unwrap(), after, "{what}");
            }
            Err(refusal) => {
                assert_eq!(out.unwrap_refusal(), refusal, "{what}");
                assert_eq!(fs::read(&path).ok(), on_disk, "{what}: left as is");
            }
        }
    }
}

#[test]
fn edit_declares_itself_honestly() {
    let (_d, ctx, _) = session();
    let tool = builtin("Edit");
    fs::write(ctx.cwd().join("a.txt"), "a").unwrap();
    // Not destructive, even on an existing file: a targeted replacement.
    let input = json!({"file_path": "a.txt", "old_string": "a", "new_string": "b"});
    assert_eq!(
        facts(&tool, &ctx, &input),
        CallFacts {
            writes: vec![ctx.cwd().join("a.txt")],
            subject: "a.txt".into(),
            ..CallFacts::default()
        }
    );
    let schema = tool.input_schema();
    assert_eq!(
        schema["required"],
        json!(["file_path", "old_string", "new_string"])
    );
    assert_eq!(schema["properties"]["replace_all"]["type"], "boolean");
}
