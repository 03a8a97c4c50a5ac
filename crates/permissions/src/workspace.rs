//! Workspace boundaries (DESIGN P4): where a call's paths really point, whether that
//! is inside the session's directories, and which files inside them are
//! protected anyway.
//!
//! A path is judged on its canonical final target ([`canonical_target`]):
//! every symlink on the way resolved (the last component too), `.` and
//! `..` removed, and a path that does not exist yet resolved through its
//! nearest existing ancestor. Containment is by whole components
//! (`/work/proj2` is not inside `/work/proj`). This module reads the file
//! system (metadata and links only, never contents).

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

/// Symlinks followed while resolving one path before giving up (as the
/// kernel's `ELOOP` limit).
const MAX_LINK_HOPS: usize = 40;

/// The path with `.` and `..` folded lexically (no file-system access);
/// relative paths are taken from `base`.
pub(crate) fn lexical(path: &Path, base: &Path) -> PathBuf {
    orbit_tool::workspace::lexical(&lexical_abs(path, base))
}

/// Where `path` (relative paths from `base`) really points: see the module
/// docs. A chain of more than 40 links stops at the link reached.
pub fn canonical_target(path: &Path, base: &Path) -> PathBuf {
    let mut hops = 0;
    resolve(&lexical_abs(path, base), &mut hops)
}

fn lexical_abs(path: &Path, base: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

fn resolve(path: &Path, hops: &mut usize) -> PathBuf {
    let mut out = PathBuf::from("/");
    for comp in path.components() {
        match comp {
            Component::Prefix(_) | Component::RootDir => out = PathBuf::from("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out = step(&out, name, hops),
        }
    }
    out
}

/// `dir` (canonical) joined with `name`, resolved when it exists or is a
/// dangling link.
fn step(dir: &Path, name: &OsStr, hops: &mut usize) -> PathBuf {
    let next = dir.join(name);
    if let Ok(canonical) = next.canonicalize() {
        return canonical;
    }
    // Missing, or a link whose target does not exist (yet): a write would
    // create the target, so follow the link by hand.
    match std::fs::read_link(&next) {
        Ok(target) if *hops < MAX_LINK_HOPS => {
            *hops += 1;
            resolve(&lexical_abs(&target, dir), hops)
        }
        _ => next,
    }
}

/// Whether `path` (canonical) is one of `roots` (canonical) or below one.
pub(crate) fn is_within(path: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|root| path.starts_with(root))
}

/// Shell start-up files: a write there runs code in every later shell.
const SHELL_RC_FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".cshrc",
    ".tcshrc",
    ".kshrc",
    ".inputrc",
    ".gitconfig",
];

/// Directories whose contents configure git, orbit or Claude Code: a
/// write there can run code (hooks) or change permissions (settings).
const PROTECTED_DIRS: &[&str] = &[".git", ".orbit", ".claude"];

/// Files that configure tools the session starts (MCP servers, git).
const PROTECTED_FILES: &[&str] = &[".mcp.json", ".gitmodules"];

/// Why a write to `path` must be confirmed even inside the workspace, or
/// None. Judged on the components of the path below its root, and on the
/// file name (shell rc files, `.env*`).
pub(crate) fn protected_write(path: &Path, roots: &[PathBuf]) -> Option<&'static str> {
    let below = roots
        .iter()
        .filter_map(|root| path.strip_prefix(root).ok())
        .min_by_key(|rest| rest.components().count())
        .unwrap_or(path);
    let in_protected_dir = below.components().any(|comp| {
        matches!(comp, Component::Normal(name) if PROTECTED_DIRS.contains(&name.to_string_lossy().as_ref()))
    });
    if in_protected_dir {
        return Some("it is inside a directory that configures git, orbit or Claude Code");
    }
    let name = path.file_name()?.to_string_lossy();
    if PROTECTED_FILES.contains(&name.as_ref()) {
        return Some("it configures git, orbit, Claude Code or MCP servers");
    }
    if SHELL_RC_FILES.contains(&name.as_ref()) {
        return Some("it is a shell start-up file");
    }
    if name.starts_with(".env") {
        return Some("it is an environment file that may hold secrets");
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn lexical_folds_dots() {
        assert_eq!(
            lexical(Path::new("a/./b/../c"), Path::new("/p")),
            PathBuf::from("/p/a/c")
        );
        assert_eq!(
            lexical(Path::new("/p/../../x"), Path::new("/")),
            PathBuf::from("/x")
        );
    }

    #[test]
    fn canonical_target_follows_links_in_every_component() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let proj = root.join("proj");
        let outside = root.join("outside");
        std::fs::create_dir_all(&proj).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("f"), "x").unwrap();
        std::os::unix::fs::symlink(&outside, proj.join("dirlink")).unwrap();
        std::os::unix::fs::symlink(outside.join("f"), proj.join("filelink")).unwrap();
        std::os::unix::fs::symlink(outside.join("new"), proj.join("dangling")).unwrap();
        let table = [
            ("dirlink/f", outside.join("f")),
            ("dirlink/missing/x", outside.join("missing/x")),
            ("filelink", outside.join("f")),
            ("dangling", outside.join("new")),
            ("sub/../../outside/f", outside.join("f")),
            ("new.txt", proj.join("new.txt")),
            ("dirlink/../proj/x", root.join("proj/x")),
        ];
        for (rel, want) in table {
            assert_eq!(canonical_target(Path::new(rel), &proj), want, "{rel}");
        }
        // A loop ends at the link reached, without hanging.
        std::os::unix::fs::symlink(proj.join("loop"), proj.join("loop")).unwrap();
        assert!(canonical_target(Path::new("loop"), &proj).starts_with(&proj));
    }

    #[test]
    fn containment_is_by_component() {
        let roots = [PathBuf::from("/work/proj")];
        assert!(is_within(Path::new("/work/proj"), &roots));
        assert!(is_within(Path::new("/work/proj/a"), &roots));
        assert!(!is_within(Path::new("/work/proj2/a"), &roots));
        assert!(!is_within(Path::new("/work"), &roots));
    }

    #[test]
    fn protected_files() {
        let roots = [PathBuf::from("/p")];
        let table = [
            ("/p/.git/hooks/pre-commit", true),
            ("/p/.git/config", true),
            ("/p/.git", true),
            ("/p/sub/.git/HEAD", true),
            ("/p/.orbit/settings.json", true),
            ("/p/.claude/settings.local.json", true),
            ("/p/.mcp.json", true),
            ("/p/.bashrc", true),
            ("/h/.zshrc", true),
            ("/p/.env", true),
            ("/p/.env.local", true),
            ("/p/src/.envrc", true),
            ("/p/src/main.rs", false),
            ("/p/.github/workflows/ci.yml", false),
            ("/p/git/hooks", false),
            ("/p/environment.txt", false),
            ("/p/docs/.gitignore", false),
        ];
        for (path, want) in table {
            assert_eq!(
                protected_write(Path::new(path), &roots).is_some(),
                want,
                "{path}"
            );
        }
    }
}
