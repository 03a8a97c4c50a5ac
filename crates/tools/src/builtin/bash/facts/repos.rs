//! Which repository a git command works in, found the way git finds it,
//! and whether that repository's own config runs a program.
//!
//! Flow: a [`GitInvocation`] (its `-C` directory, `--git-dir`/`GIT_DIR`,
//! `--work-tree`) and the session cwd → [`locate`]: the named git
//! directory, else discovery from the directory upwards — at each level
//! `DIR/.git` (a directory, or a `gitdir:` file), then `DIR` itself when it
//! is a bare repository (`HEAD` with `objects`, `refs` or `config`) → a
//! [`Repo`] → [`runs_programs`]: its `config`, `config.worktree` and the
//! common dir's `config` read for keys that run programs (attacker-owned
//! in a downloaded project, unlike the user's global config).

use std::path::{Path, PathBuf};

use orbit_shell::GitInvocation;
use orbit_untrusted::{ReadOpts, UntrustedError, read_untrusted};

/// The most of a repository's `.git` file, `commondir` or config file
/// read; a larger one is refused (and a config then counts as running
/// programs).
const GIT_FILE_MAX_BYTES: usize = 1024 * 1024;

/// A file of a repository the command names (hostile input: a FIFO, a
/// device or a huge file is refused, never read whole or waited on);
/// `Ok(None)` when absent.
fn read_repo_file(path: &Path) -> Result<Option<String>, UntrustedError> {
    match read_untrusted(
        path,
        &ReadOpts::user_file(GIT_FILE_MAX_BYTES).refuse_over_cap(),
    ) {
        Ok(file) => Ok(Some(file.text())),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}

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

/// A repository a git command works in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Repo {
    /// Its git directory (`.git`, a bare repository, a worktree's gitdir).
    pub(super) git_dir: PathBuf,
    /// The top of its working tree, when it has one.
    pub(super) work_root: Option<PathBuf>,
}

/// The repository `git` works in for `inv` run in `cwd` (`None` when
/// there is none); `resolve` makes the invocation's paths absolute.
pub(super) fn locate(
    inv: &GitInvocation,
    base: &Path,
    resolve: impl Fn(&Path, &str) -> PathBuf,
) -> Option<Repo> {
    let work_tree = inv.work_tree.as_deref().map(|w| resolve(base, w));
    if let Some(dir) = inv.git_dir.as_deref() {
        return Some(Repo {
            git_dir: resolve(base, dir),
            work_root: work_tree.or_else(|| Some(base.to_path_buf())),
        });
    }
    let (git_dir, found_root) = discover(base)?;
    Some(Repo {
        git_dir,
        work_root: work_tree.or(found_root),
    })
}

/// git's discovery from `dir` upwards: the git directory and the top of
/// its working tree (none for a bare repository).
fn discover(dir: &Path) -> Option<(PathBuf, Option<PathBuf>)> {
    for d in dir.ancestors() {
        let dot_git = d.join(".git");
        if dot_git.is_dir() {
            return Some((dot_git, Some(d.to_path_buf())));
        }
        if dot_git.is_file() {
            let text = read_repo_file(&dot_git).ok()??;
            let target = text.trim().strip_prefix("gitdir:")?.trim().to_string();
            return Some((d.join(target), Some(d.to_path_buf())));
        }
        if is_bare_repository(d) {
            return Some((d.to_path_buf(), None));
        }
    }
    None
}

/// A directory git takes for a repository: a `HEAD` and one of `objects`,
/// `refs` or `config` (looser than git, so no repository is missed).
fn is_bare_repository(dir: &Path) -> bool {
    dir.join("HEAD").is_file()
        && ["objects", "refs", "config"]
            .iter()
            .any(|name| dir.join(name).exists())
}

/// The common directory of a git directory (a linked worktree's gitdir
/// names it in `commondir`), else the git directory itself.
pub(super) fn common_dir(git_dir: &Path) -> PathBuf {
    match read_repo_file(&git_dir.join("commondir")) {
        Ok(Some(common)) => git_dir.join(common.trim()),
        _ => git_dir.to_path_buf(),
    }
}

/// True when `repo` has, in its own config files, a key that runs a
/// program (or a config file exists but cannot be read).
pub(super) fn runs_programs(repo: &Repo) -> bool {
    let git_dir = &repo.git_dir;
    let files = [
        git_dir.join("config"),
        git_dir.join("config.worktree"),
        common_dir(git_dir).join("config"),
    ];
    files.iter().any(|file| match read_repo_file(file) {
        Ok(Some(text)) => config_runs_programs(&text),
        Ok(None) => false,
        Err(_) => true,
    })
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
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use orbit_test_support::files::put;

    use super::*;

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

    /// A bare repository named by `-C`, `--git-dir`, `GIT_DIR` or found
    /// by discovery is the one whose config is read, not the project's.
    #[test]
    fn bare_repositories_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        put(&root, ".git/config", "[core]\n\tbare = false\n");
        let bare = root.join("vendor/bare.git");
        std::fs::create_dir_all(bare.join("objects")).unwrap();
        std::fs::create_dir_all(bare.join("refs")).unwrap();
        put(&bare, "HEAD", "ref: refs/heads/main\n");
        put(&bare, "config", "[diff]\n\texternal = ./x.sh\n");
        let resolve = |base: &Path, p: &str| base.join(p);
        for (command, git_dir, evil) in [
            ("git -C vendor/bare.git diff", bare.clone(), true),
            ("git --git-dir=vendor/bare.git diff", bare.clone(), true),
            ("GIT_DIR=vendor/bare.git git diff", bare.clone(), true),
            ("git -C vendor --git-dir bare.git log", bare.clone(), true),
            ("git -C vendor/bare.git/objects log", bare.clone(), true),
            ("git diff", root.join(".git"), false),
            ("git -C vendor diff", root.join(".git"), false),
        ] {
            let script = orbit_shell::parse(command).unwrap();
            let inv = &script.git_invocations()[0];
            let base = root.join(&inv.dir);
            let repo = locate(inv, &base, resolve).unwrap();
            assert_eq!(repo.git_dir, git_dir, "{command}");
            assert_eq!(runs_programs(&repo), evil, "{command}");
        }
    }

    /// A repository's config, `.git` file or `commondir` that is a FIFO
    /// or `/dev/zero` is refused at once (never waited on or read whole):
    /// a config that cannot be read counts as running programs.
    #[test]
    fn hostile_repository_files_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        orbit_test_support::files::mkfifo(&root.join(".git/config"));
        std::os::unix::fs::symlink("/dev/zero", root.join(".git/commondir")).unwrap();
        let started = std::time::Instant::now();
        let repo = Repo {
            git_dir: root.join(".git"),
            work_root: Some(root.clone()),
        };
        assert!(runs_programs(&repo));
        assert_eq!(common_dir(&repo.git_dir), root.join(".git"));
        let linked = root.join("linked");
        std::fs::create_dir_all(&linked).unwrap();
        orbit_test_support::files::mkfifo(&linked.join(".git"));
        // Not a gitdir file: discovery goes on upwards without reading it.
        assert_eq!(discover(&linked).map(|(d, _)| d), Some(root.join(".git")));
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }
}
