//! Bash's facts for one command: `orbit_shell`'s analysis, plus what only
//! the session can know.
//!
//! Flow: parse → the command's git invocations, each located in its
//! repository (`repos`: `-C`, `--git-dir`, `GIT_DIR`, `--work-tree`, a
//! bare repository found by discovery) → `hidden_programs` when `PATH` has
//! a relative entry (a bare `ls` may be the project's `./ls`), a git
//! invocation's place is unknown, or its repository configures a program
//! in its own config files (attacker-controlled in a downloaded project,
//! unlike the user's global config) → read-only when the analysis says so
//! and there is no hidden program → `reads`/`writes`: the analysis' paths
//! resolved against the session cwd (`~/` against `HOME`) →
//! `file_management` when the analysis says the command only manages files
//! (`acceptEdits` allows it) under the same `PATH` condition → `may_read`:
//! for a git invocation that can print committed files, the files its
//! repository tracks (index or history, `tracked`, listed once per session
//! and repository state, only when the session has Read deny rules) that
//! those rules hide. A parse failure is neither read-only nor file
//! management.

mod repos;
mod tracked;

use std::path::{Path, PathBuf};

use orbit_shell::GitInvocation;
use orbit_tool::{CallFacts, ToolUseContext};
use tracked::{TRACKED_CACHE_KEY, TrackedCache};

/// The facts of running `command` in `ctx`'s session.
pub(crate) fn bash_facts(command: &str, ctx: &ToolUseContext) -> CallFacts {
    let cwd = ctx.cwd();
    let Ok(script) = orbit_shell::parse(command) else {
        return CallFacts {
            destructive: orbit_shell::is_destructive(command),
            ..shell_facts(command)
        };
    };
    let access = script.file_access();
    let invocations = script.git_invocations();
    // A bare name must be the system's program, not the project's.
    let system_names =
        std::env::var("PATH").is_ok_and(|p| !orbit_shell::path_has_relative_entry(&p));
    let repo_programs = invocations.iter().any(|inv| {
        !inv.known || located(&cwd, inv).is_some_and(|(repo, _)| repos::runs_programs(&repo))
    });
    let hidden_programs = !system_names || repo_programs;
    let read_only = script.is_read_only() && !hidden_programs;
    CallFacts {
        read_only,
        file_management: script.only_manages_files() && system_names,
        concurrency_safe: read_only,
        destructive: script.is_destructive(),
        reads: access.reads.iter().map(|p| resolve(&cwd, p)).collect(),
        writes: access.writes.iter().map(|p| resolve(&cwd, p)).collect(),
        may_read: denied_copies(&invocations, &cwd, ctx),
        hidden_programs,
        ..shell_facts(command)
    }
}

/// What every shell call declares.
fn shell_facts(command: &str) -> CallFacts {
    CallFacts {
        command: Some(command.to_string()),
        failure_cancels_siblings: true,
        subject: command.to_string(),
        ..CallFacts::default()
    }
}

/// The repository `inv` works in and the directory it works from.
fn located(cwd: &Path, inv: &GitInvocation) -> Option<(repos::Repo, PathBuf)> {
    let base = resolve(cwd, &inv.dir);
    let repo = repos::locate(inv, &base, resolve)?;
    Some((repo, base))
}

/// The read-denied files that the repositories of `invocations` that can
/// print committed files track (see the module docs). An invocation whose
/// place is unknown is checked in the session cwd's repository.
fn denied_copies(invocations: &[GitInvocation], cwd: &Path, ctx: &ToolUseContext) -> Vec<PathBuf> {
    let Some(filter) = ctx.read_filter() else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for inv in invocations.iter().filter(|inv| inv.can_print_contents()) {
        let mut places: Vec<(repos::Repo, PathBuf)> = located(cwd, inv).into_iter().collect();
        if !inv.known {
            let here = GitInvocation {
                dir: ".".into(),
                git_dir: None,
                work_tree: None,
                ..inv.clone()
            };
            places.extend(located(cwd, &here));
        }
        for (repo, base) in places {
            let mut roots: Vec<PathBuf> = repo.work_root.iter().cloned().collect();
            roots.push(base);
            roots.push(ctx.project_root.clone());
            let roots: Vec<PathBuf> = roots
                .into_iter()
                .map(|r| r.canonicalize().unwrap_or(r))
                .collect();
            let cache = ctx.extension(TRACKED_CACHE_KEY, TrackedCache::default);
            let git_dir = repo.git_dir.canonicalize().unwrap_or(repo.git_dir);
            for path in cache.denied(&git_dir, &roots, &filter) {
                if !out.contains(&path) {
                    out.push(path);
                }
            }
        }
    }
    out
}

/// A path of the analysis made absolute: `~`/`~/…` in `HOME`, relative in
/// `cwd`.
pub(super) fn resolve(cwd: &Path, path: &str) -> PathBuf {
    let home = || std::env::var_os("HOME").map(PathBuf::from);
    if path == "~" {
        if let Some(h) = home() {
            return h;
        }
    } else if let Some(rest) = path.strip_prefix("~/")
        && let Some(h) = home()
    {
        return h.join(rest);
    }
    cwd.join(path)
}
