//! Claude Code's stored configuration as a read-only source: where its
//! files are (`CLAUDE_CONFIG_DIR` moves them, as in Claude Code 2.1.332)
//! and the MCP servers of its global file (`~/.claude.json`).
//!
//! Data flow: [`ClaudeCodePaths::from_env`] names the directory
//! (`$CLAUDE_CONFIG_DIR`, else `~/.claude`) and the global file
//! (`$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`; a non-empty
//! legacy `<dir>/.config.json` wins, as Claude Code decides) → no I/O yet
//! → [`ClaudeJson::load`] reads the file through `orbit_untrusted` (a user
//! file: links followed, only a regular file, at most
//! [`CLAUDE_JSON_MAX_BYTES`], refused over it) and keeps only the top-level
//! `mcpServers` (user scope) and `projects[<project key>].mcpServers` (local
//! scope), skipping everything else while parsing → the CLI parses the
//! server entries (`orbit_mcp`). orbit never writes these files, except
//! `orbit mcp add|remove --scope user|local` where the user asks it to.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use orbit_untrusted::{ReadOpts, read_untrusted};
use serde::Deserialize;
use serde_json::Value;

use crate::env::Env;
use crate::vars;

/// The largest `~/.claude.json` read: users have multi-megabyte ones (it
/// keeps every project's history); far above that, far below what hurts.
pub const CLAUDE_JSON_MAX_BYTES: usize = 64 * 1024 * 1024;

/// Where Claude Code keeps its files for this environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeCodePaths {
    /// `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude` (settings.json, CLAUDE.md,
    /// commands/, …).
    pub dir: PathBuf,
    /// The global file: `$CLAUDE_CONFIG_DIR/.claude.json`, else
    /// `$HOME/.claude.json` — or `<dir>/.config.json` when that legacy file
    /// is a non-empty regular file (Claude Code reads it then).
    pub global_file: PathBuf,
}

impl ClaudeCodePaths {
    /// The paths for `env`; None without `CLAUDE_CONFIG_DIR` and `HOME`.
    /// Stats the legacy file only.
    pub fn from_env(env: &Env) -> Option<Self> {
        let dir = claude_config_dir(env)?;
        let global_file = env
            .path(vars::CLAUDE_CONFIG_DIR)
            .or_else(|| env.path(vars::HOME))?
            .join(".claude.json");
        let legacy = dir.join(".config.json");
        let legacy_used = std::fs::metadata(&legacy).is_ok_and(|m| m.is_file() && m.len() > 0);
        Some(Self {
            global_file: if legacy_used { legacy } else { global_file },
            dir,
        })
    }
}

/// Claude Code's configuration directory: `$CLAUDE_CONFIG_DIR`, else
/// `$HOME/.claude`; None without either. No I/O.
pub fn claude_config_dir(env: &Env) -> Option<PathBuf> {
    env.path(vars::CLAUDE_CONFIG_DIR)
        .or_else(|| env.path(vars::HOME).map(|h| h.join(".claude")))
}

/// What orbit takes from Claude Code's global file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClaudeJson {
    /// The file read.
    pub path: PathBuf,
    /// The top-level `mcpServers` object (user scope), as written.
    pub user_servers: Option<Value>,
    /// `projects[<key>].mcpServers` (local scope) of the session's project.
    pub local_servers: Option<Value>,
    /// The `projects` key of the session's project ([`project_key`]).
    pub project_key: String,
}

/// Why the global file could not be used (the caller prints one warning
/// line and goes on without it).
#[derive(Debug, thiserror::Error)]
pub enum ClaudeJsonError {
    /// Refused or unreadable (a FIFO, over the cap, no permission, …).
    #[error("{path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: orbit_untrusted::UntrustedError,
    },
    /// Not a JSON object of Claude Code's shape.
    #[error("{path}: not valid JSON: {detail}")]
    Json {
        /// The file.
        path: String,
        /// serde_json's message (line and column).
        detail: String,
    },
}

/// Only the parts orbit reads; every other key is skipped unparsed.
#[derive(Deserialize)]
struct Doc {
    #[serde(rename = "mcpServers", default)]
    mcp_servers: Option<Value>,
    #[serde(default)]
    projects: Option<BTreeMap<String, ProjectEntry>>,
}

#[derive(Deserialize)]
struct ProjectEntry {
    #[serde(rename = "mcpServers", default)]
    mcp_servers: Option<Value>,
}

impl ClaudeJson {
    /// Reads the global file for the project at `cwd` (canonical). Ok(None)
    /// when there is no such file (or no home to find it in).
    pub fn load(env: &Env, cwd: &Path) -> Result<Option<Self>, ClaudeJsonError> {
        let Some(paths) = ClaudeCodePaths::from_env(env) else {
            return Ok(None);
        };
        Self::load_from(&paths.global_file, cwd)
    }

    /// [`Self::load`] of the file at `path`.
    pub fn load_from(path: &Path, cwd: &Path) -> Result<Option<Self>, ClaudeJsonError> {
        let opts = ReadOpts::user_file(CLAUDE_JSON_MAX_BYTES).refuse_over_cap();
        let file = match read_untrusted(path, &opts) {
            Ok(file) => file,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(source) => {
                return Err(ClaudeJsonError::Read {
                    path: path.display().to_string(),
                    source,
                });
            }
        };
        let doc: Doc = serde_json::from_slice(&file.bytes).map_err(|e| ClaudeJsonError::Json {
            path: path.display().to_string(),
            detail: e.to_string(),
        })?;
        let key = project_key(cwd);
        let local_servers = doc
            .projects
            .and_then(|mut projects| projects.remove(&key))
            .and_then(|p| p.mcp_servers);
        Ok(Some(Self {
            path: path.to_path_buf(),
            user_servers: doc.mcp_servers.filter(|v| !v.is_null()),
            local_servers: local_servers.filter(|v| !v.is_null()),
            project_key: key,
        }))
    }
}

/// The `projects` key Claude Code files a folder under: the root of the
/// git work tree holding `cwd` (the nearest ancestor with a `.git` entry),
/// else `cwd` itself. Stats one `.git` per ancestor, reads nothing.
pub fn project_key(cwd: &Path) -> String {
    let root = cwd
        .ancestors()
        .find(|dir| dir.join(".git").symlink_metadata().is_ok())
        .unwrap_or(cwd);
    root.display().to_string()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &Path)]) -> Env {
        Env::from_pairs(pairs.iter().map(|(k, v)| (k.to_string(), v.as_os_str())))
    }

    #[test]
    fn claude_config_dir_moves_both_files() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let moved = tmp.path().join("cfg");
        let plain = ClaudeCodePaths::from_env(&env(&[("HOME", &home)])).unwrap();
        assert_eq!(plain.dir, home.join(".claude"));
        assert_eq!(plain.global_file, home.join(".claude.json"));
        let both = env(&[("HOME", &home), ("CLAUDE_CONFIG_DIR", &moved)]);
        let paths = ClaudeCodePaths::from_env(&both).unwrap();
        assert_eq!(paths.dir, moved);
        assert_eq!(paths.global_file, moved.join(".claude.json"));
        // A non-empty legacy file wins; an empty one does not.
        std::fs::create_dir_all(&moved).unwrap();
        std::fs::write(moved.join(".config.json"), "").unwrap();
        assert_eq!(
            ClaudeCodePaths::from_env(&both).unwrap().global_file,
            moved.join(".claude.json")
        );
        std::fs::write(moved.join(".config.json"), "{}").unwrap();
        assert_eq!(
            ClaudeCodePaths::from_env(&both).unwrap().global_file,
            moved.join(".config.json")
        );
        assert_eq!(ClaudeCodePaths::from_env(&Env::default()), None);
    }

    #[test]
    fn servers_of_both_scopes_under_the_git_root() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("sub")).unwrap();
        let file = tmp.path().join(".claude.json");
        let doc = serde_json::json!({
            "numStartups": 3,
            "mcpServers": {"u": {"command": "u"}},
            "projects": {
                repo.display().to_string(): {"allowedTools": [], "mcpServers": {"l": {"command": "l"}}},
                "/elsewhere": {"mcpServers": {"x": {"command": "x"}}}
            }
        });
        std::fs::write(&file, doc.to_string()).unwrap();
        let got = ClaudeJson::load_from(&file, &repo.join("sub"))
            .unwrap()
            .unwrap();
        assert_eq!(got.project_key, repo.display().to_string());
        assert_eq!(got.user_servers.unwrap()["u"]["command"], "u");
        assert_eq!(got.local_servers.unwrap()["l"]["command"], "l");
        // Another folder: no local servers; a missing file: None.
        let other = ClaudeJson::load_from(&file, tmp.path()).unwrap().unwrap();
        assert_eq!(other.local_servers, None);
        assert!(
            ClaudeJson::load_from(&tmp.path().join("none"), tmp.path())
                .unwrap()
                .is_none()
        );
        std::fs::write(&file, "{ not json").unwrap();
        let err = ClaudeJson::load_from(&file, tmp.path()).unwrap_err();
        assert!(err.to_string().contains("not valid JSON"), "{err}");
    }
}
