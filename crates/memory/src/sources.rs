//! Where a session's memory files may be ([`Sources`]) and the ordered
//! list of candidates [`Sources::candidates`] gives the loader: each with
//! its [`Kind`] and the root its links and imports must stay under.
//!
//! Only directory listings happen here (`.claude/rules`); no file is read.

use std::path::{Path, PathBuf};

use crate::{Kind, MAX_RULE_FILES};

/// The managed policy file's default path (Linux, as Claude Code).
pub const MANAGED_MEMORY_PATH: &str = "/etc/claude-code/CLAUDE.md";

/// Where a session's memory files may be.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sources {
    /// The working directory (canonical).
    pub cwd: PathBuf,
    /// The user's home folder (labels, `~/` imports).
    pub home: Option<PathBuf>,
    /// Claude Code's user folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`;
    /// None = no user files.
    pub claude_dir: Option<PathBuf>,
    /// The managed policy file; None = none.
    pub managed: Option<PathBuf>,
}

impl Sources {
    /// Only the working directory and its parents (no user or managed
    /// file): tests, callers without a home.
    pub fn project_only(cwd: &Path) -> Self {
        Self {
            cwd: cwd.to_path_buf(),
            ..Self::default()
        }
    }
}

/// What a file's links and imports must stay under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Root {
    /// A user (or managed) file: anything the deny predicate allows.
    User,
    /// A project's file: links and imports out of this folder only in a
    /// trusted folder.
    Project(PathBuf),
}

/// One place a memory file may be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub(crate) path: PathBuf,
    pub(crate) kind: Kind,
    pub(crate) root: Root,
    /// Its `@path` imports are followed (not for AGENTS.md, as Codex).
    pub(crate) imports: bool,
}

/// The git root above `cwd` (the nearest folder holding `.git`), else
/// `cwd`: the project memory files and AGENTS.md belong to.
pub fn project_root(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(cwd)
        .to_path_buf()
}

impl Sources {
    /// Every candidate, in prompt order.
    pub(crate) fn candidates(&self) -> Vec<Candidate> {
        let mut out = Vec::new();
        let mut push = |path: PathBuf, kind: Kind, root: Root, imports: bool| {
            out.push(Candidate {
                path,
                kind,
                root,
                imports,
            })
        };
        if let Some(managed) = &self.managed {
            push(managed.clone(), Kind::Managed, Root::User, true);
        }
        if let Some(dir) = &self.claude_dir {
            push(dir.join("CLAUDE.md"), Kind::User, Root::User, true);
            for rule in rule_files(dir) {
                push(rule, Kind::User, Root::User, true);
            }
        }
        let project = project_root(&self.cwd);
        let in_git = project.join(".git").exists();
        // The top folder first, `/` itself left out (as Claude Code).
        let mut dirs: Vec<&Path> = self
            .cwd
            .ancestors()
            .filter(|d| d.parent().is_some())
            .collect();
        dirs.reverse();
        for dir in &dirs {
            // Folders above a repository are the user's (a clone does not
            // reach them): their links and imports are followed like a
            // user file's. Without a repository, a parent folder may be
            // part of what was downloaded: its files stay inside it.
            let root = if dir.starts_with(&project) {
                Root::Project(project.clone())
            } else if in_git {
                Root::User
            } else {
                Root::Project(dir.to_path_buf())
            };
            let here = *dir == self.cwd.as_path();
            let checked_in = if here { Kind::Project } else { Kind::Parent };
            for file in folder_files(dir) {
                let kind = if file.ends_with("CLAUDE.local.md") {
                    Kind::Local
                } else {
                    checked_in.clone()
                };
                push(file, kind, root.clone(), true);
            }
        }
        for dir in dirs.iter().filter(|d| d.starts_with(&project)) {
            let kind = if *dir == self.cwd.as_path() {
                Kind::Project
            } else {
                Kind::Parent
            };
            push(
                dir.join("AGENTS.md"),
                kind,
                Root::Project(project.clone()),
                false,
            );
        }
        out
    }
}

/// One folder's checked-in and local files, in Claude Code's order:
/// CLAUDE.md, .claude/CLAUDE.md, .claude/rules/*.md, CLAUDE.local.md.
pub(crate) fn folder_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = vec![dir.join("CLAUDE.md"), dir.join(".claude/CLAUDE.md")];
    files.extend(rule_files(&dir.join(".claude")));
    files.push(dir.join("CLAUDE.local.md"));
    files
}

/// `<dir>/rules/**/*.md`, sorted by path, at most [`MAX_RULE_FILES`].
fn rule_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.join("rules")];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            if found.len() >= MAX_RULE_FILES {
                break;
            }
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                // Links and special files too: the loader refuses what
                // it must, with one line.
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn candidates_run_from_the_top_folder_down_then_agents_md() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().canonicalize().unwrap();
        let cwd = top.join("repo/sub");
        std::fs::create_dir_all(cwd.join(".claude/rules/z")).unwrap();
        std::fs::create_dir_all(top.join("repo/.git")).unwrap();
        std::fs::write(cwd.join(".claude/rules/b.md"), "").unwrap();
        std::fs::write(cwd.join(".claude/rules/a.md"), "").unwrap();
        std::fs::write(cwd.join(".claude/rules/z/c.md"), "").unwrap();
        std::fs::write(cwd.join(".claude/rules/notes.txt"), "").unwrap();
        let sources = Sources {
            cwd: cwd.clone(),
            home: None,
            claude_dir: Some(top.join("home/.claude")),
            managed: Some(top.join("managed.md")),
        };
        let all = sources.candidates();
        let rel: Vec<String> = all
            .iter()
            .filter_map(|c| c.path.strip_prefix(&top).ok())
            .map(|p| p.display().to_string())
            .collect();
        let tail: Vec<&str> = rel
            .iter()
            .map(String::as_str)
            .skip_while(|p| *p != "repo/CLAUDE.md")
            .collect();
        assert_eq!(rel[..2], ["managed.md", "home/.claude/CLAUDE.md"]);
        assert_eq!(
            tail,
            [
                "repo/CLAUDE.md",
                "repo/.claude/CLAUDE.md",
                "repo/CLAUDE.local.md",
                "repo/sub/CLAUDE.md",
                "repo/sub/.claude/CLAUDE.md",
                "repo/sub/.claude/rules/a.md",
                "repo/sub/.claude/rules/b.md",
                "repo/sub/.claude/rules/z/c.md",
                "repo/sub/CLAUDE.local.md",
                "repo/AGENTS.md",
                "repo/sub/AGENTS.md",
            ]
        );
        let local = all.iter().find(|c| c.path.ends_with("sub/CLAUDE.local.md"));
        assert_eq!(local.unwrap().kind, Kind::Local);
        let parent = all.iter().find(|c| c.path == top.join("repo/CLAUDE.md"));
        assert_eq!(parent.unwrap().kind, Kind::Parent);
        assert_eq!(parent.unwrap().root, Root::Project(top.join("repo")));
        // Above the repository: the user's folders.
        let above = all.iter().find(|c| c.path == top.join("CLAUDE.md"));
        assert_eq!(above.unwrap().root, Root::User);
    }
}
