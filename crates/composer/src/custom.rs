//! Custom slash commands: Markdown prompt files, as Claude Code reads them.
//!
//! Data flow: [`load_custom_commands`] reads `*.md` files from
//! `~/.claude/commands`, `~/.orbit/commands`, then the project's
//! `.claude/commands` and `.orbit/commands`; a later directory wins on a name
//! clash, so the project overrides the user and `.orbit` overrides `.claude`.
//! A file in a subdirectory is named `dir:name`. Optional YAML front matter
//! gives `description:`; without it the first non-empty line of the body is
//! the description. [`CustomCommand::expand`] turns a command and its
//! arguments into the prompt the model sees.
//!
//! The project's command files come with the repository: they are read
//! through `orbit_untrusted` (a regular file only, at most
//! [`COMMAND_FILE_MAX_BYTES`], a link must stay inside the project); a
//! refused file is left out of the list. The user's own directories follow
//! links.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use orbit_untrusted::{ReadOpts, read_untrusted};

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
}

impl CustomCommand {
    /// The prompt for `/name args`: `$ARGUMENTS` becomes `args`, `$1`, `$2`
    /// … its whitespace-separated words (empty when missing). When the body
    /// uses no placeholder and `args` is not empty, the arguments are
    /// appended as a final `ARGUMENTS: …` paragraph so they are not lost.
    pub fn expand(&self, args: &str) -> String {
        let args = args.trim();
        let words: Vec<&str> = args.split_whitespace().collect();
        let mut out = String::with_capacity(self.body.len() + args.len());
        let mut used = false;
        let mut rest = self.body.as_str();
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            if let Some(tail) = after.strip_prefix("ARGUMENTS") {
                out.push_str(args);
                used = true;
                rest = tail;
                continue;
            }
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            match after[..digits].parse::<usize>() {
                Ok(n) if n > 0 => {
                    out.push_str(words.get(n - 1).copied().unwrap_or(""));
                    used = true;
                    rest = &after[digits..];
                }
                _ => {
                    out.push('$');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        if !used && !args.is_empty() {
            out = format!("{}\n\nARGUMENTS: {args}", out.trim_end());
        }
        out
    }
}

/// How deep subdirectories of a commands directory are read.
const COMMAND_DIR_MAX_DEPTH: usize = 4;
/// Largest command file read, in bytes (a larger one is left out).
pub const COMMAND_FILE_MAX_BYTES: usize = 256 * 1024;
/// Descriptions are cut to this many chars.
const DESCRIPTION_MAX_CHARS: usize = 80;

/// The custom commands visible in `project_root`, sorted by name.
pub fn load_custom_commands(project_root: &Path, home: Option<&Path>) -> Vec<CustomCommand> {
    let mut dirs = Vec::new();
    let user = ReadOpts::user_file(COMMAND_FILE_MAX_BYTES).refuse_over_cap();
    let project = ReadOpts::in_project(project_root, COMMAND_FILE_MAX_BYTES).refuse_over_cap();
    if let Some(home) = home {
        dirs.push((home.join(".claude/commands"), user));
        dirs.push((home.join(".orbit/commands"), user));
    }
    dirs.push((project_root.join(".claude/commands"), project));
    dirs.push((project_root.join(".orbit/commands"), project));
    let mut by_name = BTreeMap::new();
    for (dir, opts) in dirs {
        let mut found = Vec::new();
        collect(&dir, &[], 0, &opts, &mut found);
        for command in found {
            by_name.insert(command.name.clone(), command);
        }
    }
    by_name.into_values().collect()
}

/// Reads the `*.md` files under `dir` (prefix: the subdirectories so far).
fn collect(
    dir: &Path,
    prefix: &[String],
    depth: usize,
    opts: &ReadOpts<'_>,
    out: &mut Vec<CustomCommand>,
) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = read.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            let dir_name = path.file_name().and_then(|s| s.to_str());
            if let Some(dir_name) = dir_name.filter(|_| depth < COMMAND_DIR_MAX_DEPTH) {
                let mut inner = prefix.to_vec();
                inner.push(dir_name.to_string());
                collect(&path, &inner, depth + 1, opts, out);
            }
            continue;
        }
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let Ok(file) = read_untrusted(&path, opts) else {
            continue;
        };
        let content = file.text();
        let mut name = prefix.join(":");
        if !name.is_empty() {
            name.push(':');
        }
        name.push_str(stem);
        let (front, body) = split_front_matter(&content);
        let description = front
            .and_then(|f| front_matter_field(f, "description"))
            .or_else(|| first_line(body))
            .unwrap_or_default();
        out.push(CustomCommand {
            name,
            description: truncate(&description, DESCRIPTION_MAX_CHARS),
            body: body.to_string(),
            source: path,
        });
    }
}

/// Splits `---\n…\n---` front matter from the body.
fn split_front_matter(content: &str) -> (Option<&str>, &str) {
    let Some(rest) = content
        .strip_prefix("---\n")
        .or_else(|| content.strip_prefix("---\r\n"))
    else {
        return (None, content);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let body = &rest[offset + line.len()..];
            return (Some(&rest[..offset]), body.trim_start_matches(['\r', '\n']));
        }
        offset += line.len();
    }
    (None, content)
}

/// A top-level `key: value` of simple YAML front matter, unquoted.
fn front_matter_field(front: &str, key: &str) -> Option<String> {
    front.lines().find_map(|line| {
        let value = line
            .strip_prefix(key)?
            .trim_start()
            .strip_prefix(':')?
            .trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(value);
        (!value.is_empty()).then(|| value.to_string())
    })
}

/// The body's first non-empty line, without a Markdown heading marker.
fn first_line(body: &str) -> Option<String> {
    body.lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}
