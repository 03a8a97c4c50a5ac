//! `isolation: "worktree"`: a subagent working in a fresh `git worktree`.
//!
//! [`Worktree::create`] finds the repository of the parent's working
//! directory and adds `<repo>/.claude/worktrees/agent-<id>` on a new branch
//! `worktree-agent-<id>` at `HEAD`, locked while the subagent runs (Claude
//! Code 2.1.332's names and places); the subagent works in the same
//! relative directory inside it. [`Worktree::finish`] removes the worktree
//! and its branch when the subagent left it clean (no change to a tracked
//! or untracked file, no new commit), and otherwise keeps both and says
//! where they are. Outside a git repository the call is refused with a
//! clear text, and so is a `.claude` or `.claude/worktrees` that is a link. git runs with the repository's hooks and fsmonitor turned
//! off (`-c core.hooksPath=/dev/null -c core.fsmonitor=false`): adding a
//! worktree must not run a program the repository names.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where worktrees go, under the repository's top directory.
const WORKTREES_DIR: &str = ".claude/worktrees";

/// A subagent's worktree.
#[derive(Debug)]
pub(super) struct Worktree {
    /// The repository's top directory (of the parent's checkout).
    repo: PathBuf,
    /// The worktree's top directory.
    root: PathBuf,
    /// Where the subagent works (the parent's cwd, relative to the
    /// repository, inside the worktree).
    pub(super) cwd: PathBuf,
    branch: String,
    /// The commit it started from.
    base: String,
}

impl Worktree {
    /// Adds the worktree for `agent_id` in the repository of `cwd`.
    pub(super) fn create(cwd: &Path, agent_id: &str) -> Result<Self, String> {
        let top = git(cwd, &["rev-parse", "--show-toplevel"]).map_err(|_| {
            format!(
                "isolation \"worktree\" needs a git repository, and {} is not in one: run the agent without isolation",
                cwd.display()
            )
        })?;
        let repo = PathBuf::from(top.trim());
        let repo = repo.canonicalize().unwrap_or(repo);
        let base = git(&repo, &["rev-parse", "--verify", "HEAD"])
            .map_err(|_| {
                "isolation \"worktree\" needs a commit to check out: the repository has none yet"
                    .to_string()
            })?
            .trim()
            .to_string();
        let name = format!("agent-{agent_id}");
        let root = worktrees_dir(&repo)?.join(&name);
        let branch = format!("worktree-{name}");
        let root_arg = root.to_string_lossy().into_owned();
        git(
            &repo,
            &["worktree", "add", "--lock", "-b", &branch, &root_arg, &base],
        )
        .map_err(|why| format!("cannot create the agent's worktree: {why}"))?;
        let relative = cwd.strip_prefix(&repo).unwrap_or(Path::new(""));
        let inside = root.join(relative);
        let cwd = if inside.is_dir() {
            inside
        } else {
            root.clone()
        };
        let cwd = cwd.canonicalize().unwrap_or(cwd);
        Ok(Self {
            repo,
            root,
            cwd,
            branch,
            base,
        })
    }

    /// Removes the worktree and its branch when nothing changed in it;
    /// otherwise keeps them: Some((path, branch)).
    pub(super) fn finish(self) -> Option<(PathBuf, String)> {
        let untouched = git(&self.root, &["status", "--porcelain"])
            .is_ok_and(|s| s.trim().is_empty())
            && git(&self.root, &["rev-parse", "HEAD"]).is_ok_and(|h| h.trim() == self.base);
        if untouched {
            let root_arg = self.root.to_string_lossy().into_owned();
            // Twice `--force`: the worktree is locked.
            let removed = git(
                &self.repo,
                &["worktree", "remove", "--force", "--force", &root_arg],
            );
            if removed.is_ok() {
                let _ = git(&self.repo, &["branch", "-D", &self.branch]);
                return None;
            }
        }
        Some((self.root, self.branch))
    }
}

/// `<repo>/.claude/worktrees`, made if missing; refused when a part of it
/// is a link or not a directory (a repository could commit `.claude` as a
/// link to put the checkout somewhere else).
fn worktrees_dir(repo: &Path) -> Result<PathBuf, String> {
    let mut dir = repo.to_path_buf();
    for part in Path::new(WORKTREES_DIR).components() {
        dir.push(part);
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(format!(
                    "cannot create the agent's worktree: {} is a link or a file, not a directory",
                    dir.display()
                ));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&dir).map_err(|e| {
                    format!("cannot create the agent's worktree: {}: {e}", dir.display())
                })?;
            }
            Err(e) => {
                return Err(format!(
                    "cannot create the agent's worktree: {}: {e}",
                    dir.display()
                ));
            }
        }
    }
    Ok(dir)
}

/// `git ARGS` in `dir` with the repository's hooks and fsmonitor off; its
/// stdout, or stderr as the error.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "core.fsmonitor=false",
        ])
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}
