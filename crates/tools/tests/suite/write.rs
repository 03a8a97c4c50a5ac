//! Write through the erased contract (parse → validate → call) on real
//! temp files (T5 included).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use orbit_tool::{CallFacts, ToolError};
use orbit_tools::CallContext;
use orbit_tools::file_state::{sha256_hex, state_key};
use serde_json::json;

use super::harness::{
    Refusal, builtin, edit, facts, mode, p, parse, read_file, read_path, session, text, write,
};

const NOT_READ: &str = "File has not been read yet. Read it first before writing to it.";
const MODIFIED: &str = "File has been modified since read, either by the user or by a linter. \
Read it again before attempting to write it.";

/// A new file is created with its parent directories and the ordinary
/// umask-derived mode (not a copied one); its state is recorded, so an Edit
/// needs no re-read.
#[tokio::test]
async fn creates_a_new_file_with_parent_directories() {
    let (_d, ctx, _) = session();
    let path = ctx.cwd().join("a/b/c/new.txt");
    let out = write(&ctx, &path, "hi two\n").await.unwrap();
    assert!(!out.is_error);
    assert_eq!(
        text(&out),
        format!("File created successfully at: {}", path.display())
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "hi two\n");
    let state = ctx.file_state.get(&state_key(&path)).unwrap();
    assert_eq!(state.hash, sha256_hex(b"hi two\n"));
    let umask_mode = {
        let probe = ctx.cwd().join("probe");
        fs::File::create(&probe).unwrap();
        mode(&probe)
    };
    assert_eq!(mode(&path), umask_mode);
    let out = edit(&ctx, &path, "two", "2").await.unwrap();
    assert!(!out.is_error, "{out:?}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "hi 2\n");
}

#[tokio::test]
async fn relative_path_is_resolved_and_reported_absolute() {
    let (_d, ctx, _) = session();
    let out = write(&ctx, Path::new("rel.txt"), "x").await.unwrap();
    let abs = ctx.cwd().join("rel.txt");
    assert_eq!(
        text(&out),
        format!("File created successfully at: {}", abs.display())
    );
    assert_eq!(fs::read_to_string(abs).unwrap(), "x");
}

#[tokio::test]
async fn overwriting_an_unread_file_is_refused() {
    let (_d, ctx, _) = session();
    let path = ctx.cwd().join("old.txt");
    fs::write(&path, "keep me").unwrap();
    let err = write(&ctx, &path, "x").await.unwrap_refusal();
    assert_eq!(err, NOT_READ);
    assert_eq!(fs::read_to_string(&path).unwrap(), "keep me");
}

/// Overwriting a read file replaces its content in place: the mode is
/// kept (0o640 is not the umask default 0o644, so a plain create + rename
/// would lose it) and no temp file is left behind.
#[tokio::test]
async fn overwriting_after_read_succeeds_and_keeps_permissions() {
    let rows = [
        ("script.sh", 0o751, "echo old\n", "echo new\n"),
        ("secret.env", 0o640, "TOKEN=old\n", "TOKEN=new\n"),
    ];
    for (name, bits, old, new) in rows {
        let (_d, ctx, _) = session();
        let path = ctx.cwd().join(name);
        fs::write(&path, old).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(bits)).unwrap();
        read_path(&ctx, &path).await;
        let out = write(&ctx, &path, new).await.unwrap();
        assert!(!out.is_error, "{out:?}");
        let updated = format!("The file {} has been updated successfully.", path.display());
        assert_eq!(text(&out), updated);
        assert_eq!(fs::read_to_string(&path).unwrap(), new);
        assert_eq!(mode(&path), bits, "{name}");
        let names: Vec<_> = fs::read_dir(ctx.cwd())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from(name)]);
    }
}

#[tokio::test]
async fn a_file_changed_since_read_is_refused() {
    let (_d, ctx, _) = session();
    let path = read_file(&ctx, "lint.rs", b"fn a() {}\n").await;
    fs::write(&path, "fn a() { }\n").unwrap();
    let err = write(&ctx, &path, "x").await.unwrap_refusal();
    assert_eq!(err, MODIFIED);
    // Reading again clears it.
    read_path(&ctx, &path).await;
    assert!(write(&ctx, &path, "x").await.is_ok());
}

#[tokio::test]
async fn a_change_between_validation_and_call_is_caught() {
    let (_d, ctx, _) = session();
    let path = read_file(&ctx, "race.txt", b"v1").await;
    let input = json!({"file_path": p(&path), "content": "mine"});
    let mut call = parse(&builtin("Write"), &ctx, &input);
    call.validate(&ctx).await.unwrap();
    // The user edits the file while a permission prompt is open.
    fs::write(&path, "theirs!").unwrap();
    let out = call.call(&ctx, &CallContext::detached("t")).await;
    assert_eq!(out.unwrap_err(), ToolError::RespondToModel(MODIFIED.into()));
    assert_eq!(fs::read_to_string(&path).unwrap(), "theirs!");
}

#[tokio::test]
async fn writes_through_a_symlink_to_its_target() {
    let (_d, ctx, _) = session();
    let real = ctx.cwd().join("real.txt");
    let link = ctx.cwd().join("link.txt");
    fs::write(&real, "r").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    read_path(&ctx, &link).await;
    write(&ctx, &link, "via link").await.unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&real).unwrap(), "via link");
}

#[tokio::test]
async fn a_directory_is_refused() {
    let (_d, ctx, _) = session();
    let dir = ctx.cwd().join("d");
    fs::create_dir(&dir).unwrap();
    let err = write(&ctx, &dir, "x").await.unwrap_refusal();
    assert_eq!(
        err,
        format!(
            "EISDIR: illegal operation on a directory, open '{}'",
            dir.display()
        )
    );
}

#[test]
fn write_declares_itself_honestly() {
    let (_d, ctx, _) = session();
    let tool = builtin("Write");
    fs::write(ctx.cwd().join("e.txt"), "x").unwrap();
    // Relative paths are resolved against the session's cwd; only an
    // existing file is overwritten, so only that is destructive.
    for (name, destructive) in [("n.txt", false), ("e.txt", true)] {
        assert_eq!(
            facts(&tool, &ctx, &json!({"file_path": name, "content": ""})),
            CallFacts {
                destructive,
                writes: vec![ctx.cwd().join(name)],
                subject: name.into(),
                ..CallFacts::default()
            },
            "{name}"
        );
    }
}

#[tokio::test]
async fn read_only_files_are_refused() {
    let (_d, ctx, _) = session();
    let path = read_file(&ctx, "locked.txt", b"locked").await;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    let err = write(&ctx, &path, "x").await.unwrap_refusal();
    assert_eq!(
        err,
        format!("EACCES: permission denied, open '{}'", path.display())
    );
    let err = edit(&ctx, &path, "locked", "open").await.unwrap_refusal();
    assert_eq!(
        err,
        format!("EACCES: permission denied, open '{}'", path.display())
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "locked");
}
