//! Workspace roots: where the session's working directory may be. A tool
//! that changes directory (Bash's `cd`) reports where it ended
//! ([`ToolOutput::cwd`]); the orchestrator then calls [`apply_cwd_policy`],
//! which keeps that directory when it is inside the project root or a
//! directory allowed with [`ToolUseContext::allow_directory`] (or below
//! one), and otherwise resets the session to the project root and tells the
//! model so ([`cwd_reset_note`]). [`lexical`] folds `.` and `..` out of
//! a path by name, for the crates that judge where a path lands without
//! reading the file system (checkpoints, permissions).

use std::path::{Component, Path, PathBuf};

use crate::context::ToolUseContext;
use crate::tool::ToolOutput;

/// The project root, canonical when it can be (the directory a reset goes
/// back to and the one containment is measured against).
pub fn canonical_project_root(ctx: &ToolUseContext) -> PathBuf {
    ctx.project_root
        .canonicalize()
        .unwrap_or_else(|_| ctx.project_root.clone())
}

pub use crate::texts::engine::cwd_reset_note;

/// `path` with `.` and `..` folded by name, no file-system access
/// (`/r/proj/../top.txt` is `/r/top.txt`, outside `/r/proj`; a `..` at the
/// root stays at the root).
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// True when `dir` (canonical) is the project root, an allowed directory,
/// or below one of them.
pub(crate) fn is_within_workspace(ctx: &ToolUseContext, dir: &Path) -> bool {
    dir.starts_with(canonical_project_root(ctx))
        || ctx
            .allowed_directories()
            .iter()
            .any(|allowed| dir.starts_with(allowed))
}

/// Applies a call's reported working directory ([`ToolOutput::cwd`]) to
/// the session: kept when it is within the workspace
/// (`is_within_workspace`, after resolving symlinks), else the session
/// goes back to the project root and the note is appended to the output on
/// a line of its own (the raw `full_text` is dropped: the text the model
/// got is what a persisted copy must hold). No reported directory: nothing
/// changes. Call it on every output, failed or not.
pub fn apply_cwd_policy(ctx: &ToolUseContext, output: &mut ToolOutput) {
    let Some(reported) = output.cwd.clone() else {
        return;
    };
    let dir = reported.canonicalize().unwrap_or(reported);
    if is_within_workspace(ctx, &dir) {
        ctx.set_cwd(dir);
        return;
    }
    let root = canonical_project_root(ctx);
    ctx.set_cwd(root.clone());
    output.content.push_line(&cwd_reset_note(&root));
    output.full_text = None;
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn session() -> (tempfile::TempDir, ToolUseContext, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("project");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        let ctx = ToolUseContext::new("s", root.clone(), dir.path().join("data"));
        (dir, ctx, root)
    }

    fn text(output: &ToolOutput) -> String {
        output.content.as_text()
    }

    #[test]
    fn a_directory_inside_the_project_is_kept() {
        let (_d, ctx, root) = session();
        let mut output = ToolOutput::text("out")
            .with_full_text("out\n".into())
            .with_cwd(root.join("sub"));
        apply_cwd_policy(&ctx, &mut output);
        assert_eq!(ctx.cwd(), root.join("sub"));
        assert_eq!(text(&output), "out");
        assert_eq!(output.full_text.as_deref(), Some("out\n"));
    }

    #[test]
    fn a_directory_outside_is_reset_with_a_note() {
        let (d, ctx, root) = session();
        ctx.set_cwd(root.join("sub"));
        let outside = d.path().canonicalize().unwrap();
        let mut output = ToolOutput::text("/")
            .with_full_text("/\n".into())
            .with_cwd(outside.clone());
        apply_cwd_policy(&ctx, &mut output);
        assert_eq!(ctx.cwd(), root);
        assert_eq!(
            text(&output),
            format!("/\nShell cwd was reset to {}", root.display())
        );
        assert_eq!(output.full_text, None);

        // An empty result is the note alone; a failed one keeps is_error.
        let mut output = ToolOutput::error("").with_cwd(outside);
        apply_cwd_policy(&ctx, &mut output);
        assert_eq!(
            text(&output),
            format!("Shell cwd was reset to {}", root.display())
        );
        assert!(output.is_error);
    }

    #[test]
    fn allowed_directories_and_below_are_kept_but_not_their_siblings() {
        let (d, ctx, root) = session();
        let extra = d.path().canonicalize().unwrap().join("extra");
        std::fs::create_dir_all(extra.join("deep")).unwrap();
        std::fs::create_dir_all(d.path().join("extra-sibling")).unwrap();
        ctx.allow_directory(extra.clone());
        let mut output = ToolOutput::text("").with_cwd(extra.join("deep"));
        apply_cwd_policy(&ctx, &mut output);
        assert_eq!(ctx.cwd(), extra.join("deep"));
        assert_eq!(text(&output), "");

        let mut output = ToolOutput::text("").with_cwd(d.path().join("extra-sibling"));
        apply_cwd_policy(&ctx, &mut output);
        assert_eq!(ctx.cwd(), root);
    }

    /// A write through `..` is judged where it lands (checkpoints), and a
    /// `..` above the root stays at the root (permissions).
    #[test]
    fn lexical_folds_dots_by_name() {
        let table = [
            ("/r/proj/../top.txt", "/r/top.txt"),
            ("/r/proj/./a/b", "/r/proj/a/b"),
            ("/p/../../x", "/x"),
            ("a/./b/../c", "a/c"),
        ];
        for (path, want) in table {
            assert_eq!(lexical(Path::new(path)), PathBuf::from(want), "{path}");
        }
    }

    #[test]
    fn no_reported_directory_changes_nothing() {
        let (_d, ctx, root) = session();
        ctx.set_cwd(root.join("sub"));
        let mut output = ToolOutput::text("x");
        apply_cwd_policy(&ctx, &mut output);
        assert_eq!(ctx.cwd(), root.join("sub"));
        assert_eq!(text(&output), "x");
    }
}
