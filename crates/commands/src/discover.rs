//! Finding and reading the command files.
//!
//! Data flow: [`CommandSources`] names the directories, in the order a
//! later one wins a name clash: the user's `$CLAUDE_CONFIG_DIR/commands`
//! (or `~/.claude/commands`), `~/.orbit/commands`, then the project's
//! `.claude/commands` and `.orbit/commands`. Each is walked (subfolders to
//! [`COMMAND_DIR_MAX_DEPTH`]; `frontend/component.md` is named
//! `frontend:component`, as Claude Code names it) and every `*.md` file is
//! read through `orbit_untrusted`: the project's files are hostile input (a
//! FIFO, `/dev/zero`, a link out of the project, a 100 MB file are refused
//! without blocking, one warning each); the user's own directories follow
//! links. The result is a [`CommandSet`], sorted by name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use orbit_untrusted::{ReadOpts, read_untrusted};

use crate::front::{FrontMatter, split_front_matter};

/// How deep subdirectories of a commands directory are read.
const COMMAND_DIR_MAX_DEPTH: usize = 4;
/// Largest command file read, in bytes (a larger one is left out).
pub const COMMAND_FILE_MAX_BYTES: usize = 256 * 1024;
/// Descriptions are cut to this many chars.
const DESCRIPTION_MAX_CHARS: usize = 80;
/// Most command files read from one directory tree.
const COMMAND_FILES_MAX: usize = 1000;

/// Whose command it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// From the user's own directories.
    User,
    /// From the project (it came with the repository).
    Project,
}

/// One custom slash command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomCommand {
    /// The name typed after `/` (`dir:name` for a file in a subdirectory).
    pub name: String,
    /// One line shown in the completion popup.
    pub description: String,
    /// The prompt template (the file without its front matter).
    pub body: String,
    /// The file it came from.
    pub source: PathBuf,
    /// Whose it is.
    pub scope: Scope,
    /// The front matter as written.
    pub front: FrontMatter,
}

impl CustomCommand {
    /// The body with the argument placeholders filled (no `!` or `@`
    /// inlining; see [`crate::prepare_prompt`] for the whole expansion).
    pub fn expand(&self, args: &str) -> String {
        crate::expand::expand_arguments(&self.body, args)
    }
}

/// Where commands come from.
#[derive(Debug, Clone)]
pub struct CommandSources {
    /// The project directory (its `.claude/commands`, `.orbit/commands`).
    pub project_root: PathBuf,
    /// The home directory (`~/.orbit/commands`, and `~/.claude/commands`
    /// when no Claude config directory is set). None: no user commands.
    pub home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR`: Claude Code's config directory, used instead of
    /// `~/.claude`.
    pub claude_config_dir: Option<PathBuf>,
}

impl CommandSources {
    /// The sources of `project_root` with `home`, `CLAUDE_CONFIG_DIR` read
    /// from the process environment.
    pub fn from_env(project_root: &Path, home: Option<&Path>) -> Self {
        Self {
            project_root: project_root.to_path_buf(),
            home: home.map(Path::to_path_buf),
            claude_config_dir: std::env::var_os("CLAUDE_CONFIG_DIR")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
        }
    }

    /// The command directories, lowest precedence first (the skills'
    /// folders sit beside them).
    pub(crate) fn dirs(&self) -> Vec<(PathBuf, Scope)> {
        let mut dirs = Vec::new();
        let claude = self
            .claude_config_dir
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".claude")));
        if let Some(claude) = claude {
            dirs.push((claude.join("commands"), Scope::User));
        }
        if let Some(home) = &self.home {
            dirs.push((home.join(".orbit/commands"), Scope::User));
        }
        dirs.push((self.project_root.join(".claude/commands"), Scope::Project));
        dirs.push((self.project_root.join(".orbit/commands"), Scope::Project));
        dirs
    }
}

/// The commands visible in a session, sorted by name, and the files that
/// were refused.
#[derive(Debug, Clone, Default)]
pub struct CommandSet {
    commands: Vec<CustomCommand>,
    /// One line per refused command file (`skipped command file P: why`).
    pub warnings: Vec<String>,
}

impl CommandSet {
    /// Reads every command of `sources`.
    pub fn load(sources: &CommandSources) -> Self {
        let mut by_name = BTreeMap::new();
        let mut warnings = Vec::new();
        let root = sources.project_root.as_path();
        for (dir, scope) in sources.dirs() {
            let opts = match scope {
                Scope::User => ReadOpts::user_file(COMMAND_FILE_MAX_BYTES),
                Scope::Project => ReadOpts::in_project(root, COMMAND_FILE_MAX_BYTES),
            }
            .refuse_over_cap();
            let mut walk = Walk {
                opts: &opts,
                scope,
                found: Vec::new(),
                warnings: &mut warnings,
            };
            walk.dir(&dir, &[], 0);
            for command in walk.found {
                by_name.insert(command.name.clone(), command);
            }
        }
        Self {
            commands: by_name.into_values().collect(),
            warnings,
        }
    }

    /// The commands, sorted by name.
    pub fn commands(&self) -> &[CustomCommand] {
        &self.commands
    }

    /// The command named `name` (without the `/`).
    pub fn find(&self, name: &str) -> Option<&CustomCommand> {
        self.commands.iter().find(|c| c.name == name)
    }

    /// The names, sorted (the stream-json `init` line's `slash_commands`).
    pub fn names(&self) -> Vec<String> {
        self.commands.iter().map(|c| c.name.clone()).collect()
    }
}

/// The custom commands visible in `project_root`, sorted by name (the
/// user's from `home`; `CLAUDE_CONFIG_DIR` honoured).
pub fn load_custom_commands(project_root: &Path, home: Option<&Path>) -> Vec<CustomCommand> {
    CommandSet::load(&CommandSources::from_env(project_root, home)).commands
}

struct Walk<'a, 'o> {
    opts: &'a ReadOpts<'o>,
    scope: Scope,
    found: Vec<CustomCommand>,
    warnings: &'a mut Vec<String>,
}

impl Walk<'_, '_> {
    /// Reads the `*.md` files under `dir` (prefix: the subdirectories so far).
    fn dir(&mut self, dir: &Path, prefix: &[String], depth: usize) {
        let Ok(read) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = read.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            if self.found.len() >= COMMAND_FILES_MAX {
                return;
            }
            // A project's link to a directory is not walked (it may lead
            // anywhere, `/` included); the user's own links are.
            let is_link =
                std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
            if path.is_dir() {
                if is_link && self.scope == Scope::Project {
                    continue;
                }
                let dir_name = path.file_name().and_then(|s| s.to_str());
                if let Some(dir_name) = dir_name.filter(|_| depth < COMMAND_DIR_MAX_DEPTH) {
                    let mut inner = prefix.to_vec();
                    inner.push(dir_name.to_string());
                    self.dir(&path, &inner, depth + 1);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "md") {
                continue;
            }
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            let file = match read_untrusted(&path, self.opts) {
                Ok(file) => file,
                Err(err) => {
                    if !err.is_not_found() {
                        self.warnings
                            .push(format!("skipped command file {}: {err}", path.display()));
                    }
                    continue;
                }
            };
            let mut name = prefix.join(":");
            if !name.is_empty() {
                name.push(':');
            }
            name.push_str(stem);
            self.found
                .push(command(name, &file.text(), path, self.scope));
        }
    }
}

fn command(name: String, content: &str, source: PathBuf, scope: Scope) -> CustomCommand {
    let (front, body) = split_front_matter(content);
    let front = front.map(FrontMatter::parse).unwrap_or_default();
    let description = front
        .description
        .clone()
        .or_else(|| first_line(body))
        .unwrap_or_default();
    CustomCommand {
        name,
        description: truncate(&description, DESCRIPTION_MAX_CHARS),
        body: body.to_string(),
        source,
        scope,
        front,
    }
}

/// The body's first non-empty line, without a Markdown heading marker.
pub(crate) fn first_line(body: &str) -> Option<String> {
    body.lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

pub(crate) fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}
