//! The git backend: a snapshot is a tree object written with git plumbing
//! into the session's own object store, never the user's.
//!
//! Per snapshot, two processes (`git add -A -- .` then `git write-tree`)
//! run with `GIT_INDEX_FILE` = the store's private index (first a copy of
//! the user's index, so git's stat cache makes `add` rehash only what
//! changed), `GIT_OBJECT_DIRECTORY` = the store's `objects/` and the
//! repository's objects as an alternate: only blobs the repository does
//! not already hold are written, and they are written into the session's
//! directory. No ref, branch, stash, `HEAD` or the user's index is read for
//! writing or written; no commit is made (the tree id is the snapshot).
//! Restoring reads blobs with `git cat-file` through the same environment.
//! Every `GIT_*` variable of orbit's environment is cleared first, and the
//! repository's fsmonitor program and hooks are switched off for these
//! commands.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::CheckpointError;
use crate::state::{FileEntry, State};

/// The tree id of an empty directory.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// A project inside a git work tree.
#[derive(Debug, Clone)]
pub(crate) struct GitRepo {
    git_dir: PathBuf,
    common_dir: PathBuf,
    top: PathBuf,
    /// The project's path inside the work tree (`sub/dir/`, or empty).
    prefix: String,
    /// The project directory.
    root: PathBuf,
}

impl GitRepo {
    /// The repository `root` belongs to; None outside git (or without a
    /// `git` program).
    pub(crate) fn discover(root: &Path) -> Option<Self> {
        let out = base_command(root)
            .args([
                "rev-parse",
                "--absolute-git-dir",
                "--git-common-dir",
                "--show-toplevel",
                "--show-prefix",
            ])
            .stderr(Stdio::null())
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        let text = String::from_utf8(out.stdout).ok()?;
        let mut lines = text.lines();
        let git_dir = PathBuf::from(lines.next()?);
        let common = PathBuf::from(lines.next()?);
        let top = PathBuf::from(lines.next()?);
        let prefix = lines.next().unwrap_or_default().to_string();
        let common_dir = if common.is_absolute() {
            common
        } else {
            root.join(common)
        };
        Some(Self {
            git_dir,
            common_dir,
            top,
            prefix,
            root: root.to_path_buf(),
        })
    }

    /// A git command over the store in `store` (see the module docs).
    fn git(&self, store: &Path) -> Command {
        let mut cmd = base_command(&self.root);
        cmd.env("GIT_DIR", &self.git_dir)
            .env("GIT_WORK_TREE", &self.top)
            .env("GIT_INDEX_FILE", store.join("index"))
            .env("GIT_OBJECT_DIRECTORY", store.join("objects"))
            .env(
                "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                self.common_dir.join("objects"),
            );
        cmd
    }

    /// Snapshots the project's tracked and untracked, non-ignored files:
    /// the tree id and what it holds.
    pub(crate) fn snapshot(&self, store: &Path) -> Result<(String, State), CheckpointError> {
        std::fs::create_dir_all(store.join("objects")).map_err(CheckpointError::io(store))?;
        let index = store.join("index");
        if !index.exists() {
            // The user's index as a warm stat cache; only read.
            let _ = std::fs::copy(self.git_dir.join("index"), &index);
        }
        let add = ["add", "-A", "--ignore-errors", "--", "."];
        if run(self.git(store).args(add)).is_err() {
            // A copied index git cannot use here (a split index): start
            // from an empty one.
            let _ = std::fs::remove_file(&index);
            run(self.git(store).args(add))?;
        }
        let mut write = self.git(store);
        write.arg("write-tree");
        if !self.prefix.is_empty() {
            write.arg(format!("--prefix={}", self.prefix));
        }
        let tree = match run(&mut write) {
            Ok(out) => String::from_utf8_lossy(&out.stdout).trim().to_string(),
            // An empty project directory has no tree of its own.
            Err(_) if !self.prefix.is_empty() => EMPTY_TREE.to_string(),
            Err(err) => return Err(err),
        };
        let state = self.state(store, &tree)?;
        Ok((tree, state))
    }

    /// What the snapshot `tree` holds.
    pub(crate) fn state(&self, store: &Path, tree: &str) -> Result<State, CheckpointError> {
        if tree == EMPTY_TREE {
            return Ok(State::new());
        }
        let out = run(self
            .git(store)
            .args(["ls-tree", "-r", "-z", "--full-tree", tree]))?;
        let mut state = State::new();
        for record in out.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            // `<mode> SP <type> SP <id> TAB <path>`
            let Some(tab) = record.iter().position(|b| *b == b'\t') else {
                continue;
            };
            let head = String::from_utf8_lossy(&record[..tab]);
            let mut fields = head.split(' ');
            let (Some(mode), Some(kind), Some(id)) = (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            let (Ok(mode), "blob", Ok(path)) = (
                u32::from_str_radix(mode, 8),
                kind,
                std::str::from_utf8(&record[tab + 1..]),
            ) else {
                continue;
            };
            state.insert(
                path.to_string(),
                FileEntry {
                    id: id.to_string(),
                    mode,
                },
            );
        }
        Ok(state)
    }

    /// The content of blob `id`.
    pub(crate) fn read_blob(&self, store: &Path, id: &str) -> Result<Vec<u8>, CheckpointError> {
        Ok(run(self.git(store).args(["cat-file", "blob", id]))?.stdout)
    }

    /// Which of `paths` (relative to the project) git ignores.
    pub(crate) fn ignored(&self, store: &Path, paths: &[String]) -> Vec<String> {
        if paths.is_empty() {
            return Vec::new();
        }
        let mut cmd = self.git(store);
        cmd.args(["check-ignore", "--"]).args(paths);
        let Ok(out) = cmd.stderr(Stdio::null()).output() else {
            return Vec::new();
        };
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect()
    }
}

/// `git` in `dir` with orbit's own `GIT_*` variables cleared and the
/// repository's programs (fsmonitor, hooks) and automatic gc off.
fn base_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    for (key, _) in std::env::vars_os() {
        if key.as_bytes().starts_with(b"GIT_") {
            cmd.env_remove(&key);
        }
    }
    cmd.current_dir(dir)
        .args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "gc.auto=0",
            "-c",
            "maintenance.auto=false",
        ])
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null());
    cmd
}

/// Runs `cmd`; its stdout, or an error with its stderr.
fn run(cmd: &mut Command) -> Result<Output, CheckpointError> {
    let out = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| CheckpointError::Git(format!("cannot run git: {e}")))?;
    if out.status.success() {
        return Ok(out);
    }
    let args: Vec<_> = cmd.get_args().map(OsStr::to_string_lossy).collect();
    Err(CheckpointError::Git(format!(
        "git {} failed: {}",
        args.iter().skip(8).cloned().collect::<Vec<_>>().join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    )))
}
