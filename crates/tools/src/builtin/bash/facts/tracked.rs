//! The files a repository holds copies of (its index and every commit
//! reachable from a ref or the reflog), listed once per session and
//! repository state, for Read deny rules: a git command that can print
//! committed files must not print a denied one without a person's say.
//!
//! Flow: a git directory → [`fingerprint`] (modification times of the
//! index, `HEAD`, the refs and the packs) → the session's cache
//! ([`TrackedCache`], a `ToolUseContext` extension) → on a miss, `git
//! ls-files --cached` and `git log --all --reflog --name-only -m` run with
//! every program-running setting neutralised (no system config, no fsmonitor,
//! hooks, pager or signatures, no lazy fetch, no inherited `GIT_*`),
//! bounded by [`LIST_TIMEOUT_MS`] and [`MAX_TRACKED_PATHS`] → the paths
//! → joined to the roots the command's paths are relative to and passed
//! through the session's read filter → the denied ones.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use orbit_tool::ReadFilter;

use super::repos::common_dir;

/// Longest a listing may take; what was read by then is used.
const LIST_TIMEOUT_MS: u64 = 10_000;
/// Most distinct paths kept per repository.
const MAX_TRACKED_PATHS: usize = 500_000;
/// Most denied paths reported for one command (one is enough to ask).
const MAX_DENIED_PATHS: usize = 16;
/// How often the listing's end is polled.
const POLL_MS: u64 = 10;

/// What a repository's listing depends on.
type Fingerprint = Vec<Option<SystemTime>>;

/// A repository's listing and the fingerprint it was made at.
type Listing = (Fingerprint, Arc<Vec<String>>);

/// The session's listings, per git directory.
#[derive(Default)]
pub(crate) struct TrackedCache {
    lists: Mutex<HashMap<PathBuf, Listing>>,
}

/// The session extension's key.
pub(crate) const TRACKED_CACHE_KEY: &str = "bash.git-tracked-paths";

impl TrackedCache {
    /// The paths `git_dir` tracks, from the cache while the repository is
    /// unchanged.
    fn paths(&self, git_dir: &Path) -> Arc<Vec<String>> {
        let print = fingerprint(git_dir);
        let mut lists = match self.lists.lock() {
            Ok(l) => l,
            Err(p) => p.into_inner(),
        };
        if let Some((old, paths)) = lists.get(git_dir)
            && *old == print
        {
            return Arc::clone(paths);
        }
        let paths = Arc::new(list_paths(git_dir));
        lists.insert(git_dir.to_path_buf(), (print, Arc::clone(&paths)));
        paths
    }

    /// The files `git_dir` tracks that `filter` hides, each joined to every
    /// root in `roots` (the working tree's top, the command's directory).
    pub(crate) fn denied(
        &self,
        git_dir: &Path,
        roots: &[PathBuf],
        filter: &ReadFilter,
    ) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for rel in self.paths(git_dir).iter() {
            for root in roots {
                let path = root.join(rel);
                if filter.is_hidden(&path) && !out.contains(&path) {
                    out.push(path);
                    if out.len() >= MAX_DENIED_PATHS {
                        return out;
                    }
                }
            }
        }
        out
    }
}

/// Modification times of what changes when the repository's index, refs,
/// reflog or objects do.
fn fingerprint(git_dir: &Path) -> Fingerprint {
    let common = common_dir(git_dir);
    let mtime = |p: PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    vec![
        mtime(git_dir.join("index")),
        mtime(git_dir.join("HEAD")),
        mtime(git_dir.join("logs/HEAD")),
        mtime(common.join("packed-refs")),
        mtime(common.join("refs")),
        mtime(common.join("refs/heads")),
        mtime(common.join("refs/tags")),
        mtime(common.join("refs/stash")),
        mtime(common.join("objects/pack")),
    ]
}

/// Every path in `git_dir`'s index and reachable history (see the module
/// docs); what could be read when git fails or runs out of time.
fn list_paths(git_dir: &Path) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_millis(LIST_TIMEOUT_MS);
    let mut seen = HashSet::new();
    let mut paths = Vec::new();
    let work_tree = format!("--work-tree={}", git_dir.display());
    for args in [
        // The index (`--work-tree` only so git does not refuse a bare
        // repository; `--cached` reads no working file).
        &[work_tree.as_str(), "ls-files", "-z", "--cached"][..],
        // Every path any commit of a ref or the reflog added, changed or
        // removed; merges against each parent.
        &[
            "log",
            "--all",
            "--reflog",
            "--format=",
            "--name-only",
            "-z",
            "-m",
            "--no-renames",
        ][..],
    ] {
        for path in run_git(git_dir, args, deadline) {
            if paths.len() >= MAX_TRACKED_PATHS {
                return paths;
            }
            if seen.insert(path.clone()) {
                paths.push(path);
            }
        }
    }
    paths
}

/// The NUL-separated records `git --git-dir=GIT_DIR ARGS` prints by
/// `deadline`, run with every program-running setting neutralised.
fn run_git(git_dir: &Path, args: &[&str], deadline: Instant) -> Vec<String> {
    let mut command = Command::new("git");
    command
        .args([
            "--no-pager",
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "log.showSignature=false",
            "-c",
            "core.untrackedCache=false",
            "-c",
            "diff.external=",
        ])
        .arg(format!("--git-dir={}", git_dir.display()))
        .args(args)
        .current_dir(git_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("GIT_") {
            command.env_remove(name);
        }
    }
    command
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_NO_LAZY_FETCH", "1")
        .env("GIT_PAGER", "cat")
        .env("LC_ALL", "C");
    let Ok(mut child) = command.spawn() else {
        return Vec::new();
    };
    let Some(stdout) = child.stdout.take() else {
        let _ = child.kill();
        let _ = child.wait();
        return Vec::new();
    };
    let reader = std::thread::spawn(move || {
        let mut records = Vec::new();
        for record in BufReader::new(stdout).split(0) {
            let Ok(record) = record else { break };
            let record = String::from_utf8_lossy(&record)
                .trim_matches('\n')
                .to_string();
            if !record.is_empty() {
                records.push(record);
                if records.len() >= MAX_TRACKED_PATHS {
                    break;
                }
            }
        }
        records
    });
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline && !reader.is_finished() => {
                std::thread::sleep(Duration::from_millis(POLL_MS));
            }
            _ => {
                let _ = child.kill();
                break;
            }
        }
    }
    let _ = child.wait();
    reader.join().unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use orbit_test_support::files::put;

    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    /// Index and history both count; an untracked file does not; a new
    /// commit is seen.
    #[test]
    fn tracked_paths_come_from_index_and_history() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        put(&root, "secrets/old.txt", "x");
        put(&root, "a.txt", "a");
        git(&root, &["init", "-q"]);
        git(&root, &["add", "."]);
        git(&root, &["commit", "-qm", "one"]);
        git(&root, &["rm", "-q", "secrets/old.txt"]);
        git(&root, &["commit", "-qm", "two"]);
        put(&root, "secrets/staged.txt", "x");
        git(&root, &["add", "secrets/staged.txt"]);
        put(&root, ".env", "untracked");
        let cache = TrackedCache::default();
        let git_dir = root.join(".git");
        let paths = cache.paths(&git_dir);
        for want in ["a.txt", "secrets/old.txt", "secrets/staged.txt"] {
            assert!(paths.iter().any(|p| p == want), "{want} in {paths:?}");
        }
        assert!(!paths.iter().any(|p| p == ".env"));
        let hidden = root.join("secrets");
        let mut ctx = orbit_tool::ToolUseContext::new("s", root.clone(), root.join("data"));
        ctx.set_read_filter(move |p: &Path| p.starts_with(&hidden));
        let filter = ctx.read_filter().unwrap();
        let denied = cache.denied(&git_dir, std::slice::from_ref(&root), &filter);
        assert!(denied.contains(&root.join("secrets/old.txt")), "{denied:?}");
        // A later commit is listed.
        put(&root, "b.txt", "b");
        git(&root, &["add", "b.txt"]);
        git(&root, &["commit", "-qm", "three"]);
        assert!(cache.paths(&git_dir).iter().any(|p| p == "b.txt"));
    }
}
