//! Bash's facts for one command: `orbit_shell`'s analysis, plus what only
//! the session can know.
//!
//! Flow: parse → read-only when the analysis says so AND `PATH` has no
//! relative entry (else a bare `ls` may be the project's `./ls`) AND no
//! repository a git command works in configures a program in its own
//! config files (`.git/config`, `config.worktree`, the common dir's:
//! attacker-controlled in a downloaded project, unlike the user's global
//! config) → `reads`/`writes`: the analysis' paths resolved against the
//! session cwd (`~/` against `HOME`); `file_management` when the analysis
//! says the command only manages files (`acceptEdits` allows it) under the
//! same `PATH` condition. A parse failure is neither.

use std::path::{Path, PathBuf};

use orbit_tool::{CallFacts, ToolUseContext};

/// Config keys (by a part of their name, lower-case) that make git run a
/// program, and sections that define programs or pull in other files.
const PROGRAM_KEY_PARTS: &[&str] = &[
    "fsmonitor",
    "pager",
    "external",
    "textconv",
    "command",
    "program",
    "showsignature",
    "hookspath",
    "editor",
    "askpass",
    "proxy",
    "cmd",
];
const PROGRAM_SECTIONS: &[&str] = &["alias", "filter", "include", "includeif", "pager"];

/// The facts of running `command` in `ctx`'s session.
pub(crate) fn bash_facts(command: &str, ctx: &ToolUseContext) -> CallFacts {
    let cwd = ctx.cwd();
    let (read_only, file_management, reads, writes) = match orbit_shell::parse(command) {
        Ok(script) => {
            let access = script.file_access();
            // A bare name must be the system's program, not the project's.
            let system_names =
                std::env::var("PATH").is_ok_and(|p| !orbit_shell::path_has_relative_entry(&p));
            let read_only = script.is_read_only()
                && system_names
                && script
                    .git_directories()
                    .iter()
                    .all(|dir| !repository_runs_programs(&resolve(&cwd, dir)));
            let file_management = script.only_manages_files() && system_names;
            (
                read_only,
                file_management,
                access.reads.iter().map(|p| resolve(&cwd, p)).collect(),
                access.writes.iter().map(|p| resolve(&cwd, p)).collect(),
            )
        }
        Err(_) => (false, false, Vec::new(), Vec::new()),
    };
    CallFacts {
        read_only,
        file_management,
        concurrency_safe: read_only,
        destructive: orbit_shell::is_destructive(command),
        reads,
        writes,
        command: Some(command.to_string()),
        failure_cancels_siblings: true,
        subject: command.to_string(),
        ..CallFacts::default()
    }
}

/// A path of the analysis made absolute: `~`/`~/…` in `HOME`, relative in
/// `cwd`.
fn resolve(cwd: &Path, path: &str) -> PathBuf {
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

/// True when the repository containing `dir` has, in its own config files,
/// a key that runs a program (or the files cannot be read).
fn repository_runs_programs(dir: &Path) -> bool {
    let Some(git_dir) = find_git_dir(dir) else {
        return false;
    };
    let mut files = vec![git_dir.join("config"), git_dir.join("config.worktree")];
    if let Ok(common) = std::fs::read_to_string(git_dir.join("commondir")) {
        files.push(git_dir.join(common.trim()).join("config"));
    }
    files
        .iter()
        .any(|file| match std::fs::read_to_string(file) {
            Ok(text) => config_runs_programs(&text),
            Err(e) => e.kind() != std::io::ErrorKind::NotFound,
        })
}

/// The `.git` directory of the repository `dir` is in: `dir/.git` (a
/// directory, or a file `gitdir: PATH`), else the parents'.
fn find_git_dir(dir: &Path) -> Option<PathBuf> {
    for d in dir.ancestors() {
        let dot_git = d.join(".git");
        if dot_git.is_dir() {
            return Some(dot_git);
        }
        if let Ok(text) = std::fs::read_to_string(&dot_git) {
            let target = text.trim().strip_prefix("gitdir:")?.trim().to_string();
            return Some(d.join(target));
        }
    }
    None
}

/// Reads a git config file's section and key names (values are never
/// looked at: a URL may say anything).
fn config_runs_programs(text: &str) -> bool {
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.starts_with(';') || line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let header = rest.split([']', ' ', '"', '.']).next().unwrap_or("");
            if PROGRAM_SECTIONS.contains(&header.to_ascii_lowercase().as_str()) {
                return true;
            }
            // `[core] fsmonitor = x` on one line.
            if let Some((_, after)) = rest.split_once(']')
                && key_runs_program(after)
            {
                return true;
            }
            continue;
        }
        if key_runs_program(line) {
            return true;
        }
    }
    false
}

fn key_runs_program(line: &str) -> bool {
    let key = line
        .split('=')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    !key.is_empty() && PROGRAM_KEY_PARTS.iter().any(|part| key.contains(part))
}

#[cfg(test)]
mod tests {
    use super::config_runs_programs;

    #[test]
    fn config_keys_that_run_programs() {
        let plain = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n[remote \"origin\"]\n\turl = https://example.com/alias-pager-textconv.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n";
        assert!(!config_runs_programs(plain));
        for bad in [
            "[core]\n\tfsmonitor = ./x.sh",
            "[core]\n\tFSMonitor=./x.sh",
            "[core] pager = ./x.sh",
            "[diff]\n\texternal = ./x.sh",
            "[diff \"bin\"]\n\ttextconv = ./x.sh",
            "[diff \"bin\"]\n\tcommand = ./x.sh",
            "[filter \"lfs\"]\n\tclean = ./x.sh",
            "[alias]\n\tst = !./x.sh",
            "[include]\n\tpath = other",
            "[includeIf \"gitdir:/\"]\n\tpath = other",
            "[gpg]\n\tprogram = ./x.sh",
            "[log]\n\tshowSignature = true",
            "[pager]\n\tlog = ./x.sh",
            "[core]\n\tsshCommand = ./x.sh",
        ] {
            assert!(config_runs_programs(bad), "{bad:?}");
        }
    }
}
