//! The `git` commands of a script: which repository each works in, read
//! from git's global options the way git reads them, and whether it can
//! print (or copy elsewhere) the contents of committed files.
//!
//! Flow: every `command` node of the tree (`commands::all_commands`: also
//! inside `if`, loops, functions and substitutions) → past the wrappers
//! the classifier knows (`nice`, `timeout`, …) and `env` with its
//! assignments → a name that is `git` (or a path ending in `/git`) → its
//! assignment prefixes (`GIT_DIR=…`, `GIT_WORK_TREE=…`) and global options
//! (`-C DIR` applied in order, `--git-dir`, `--work-tree`, `--bare`, …) →
//! a [`GitInvocation`]. The Bash tool checks the configuration of the
//! repository each one names (a bare repository too) and, when a Read deny
//! rule covers a file that repository tracks, makes
//! [`GitInvocation::can_print_contents`] calls ask.

use crate::SimpleCommand;
use crate::options::OptionSet;
use crate::readonly::command_start_from;

/// One `git` command as git will read its global options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitInvocation {
    /// The directory git works from: the command's directory with every
    /// `-C DIR` applied in order (`.` when none; an absolute `-C` replaces
    /// what came before).
    pub dir: String,
    /// The repository named by `--git-dir`, `GIT_DIR=` or `--bare`,
    /// relative to [`Self::dir`] unless absolute; `None`: git discovers it
    /// from `dir` upwards.
    pub git_dir: Option<String>,
    /// The working tree named by `--work-tree` or `GIT_WORK_TREE=`,
    /// relative to [`Self::dir`] unless absolute.
    pub work_tree: Option<String>,
    /// False when a value that says where git works is unknown (an
    /// expansion in `-C $d`, `--git-dir=$x`, `GIT_DIR="$x"`): then the
    /// fields above are not the whole story.
    pub known: bool,
    /// The subcommand (`diff`, `show`), when static; `None` for `git`
    /// alone, an unknown global option or a computed name.
    pub subcommand: Option<String>,
    /// The subcommand's arguments; `None` for a word whose value is unknown.
    pub args: Vec<Option<String>>,
}

/// Global options that take a value as the next word (or after `=` for the
/// long ones).
const VALUE_OPTIONS: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--super-prefix",
    "--attr-source",
    "--config-env",
];

/// Every `git` command of `commands` (see the module docs).
pub(crate) fn invocations(commands: &[SimpleCommand]) -> Vec<GitInvocation> {
    commands.iter().filter_map(invocation).collect()
}

/// The git command `command` runs, if it runs one.
fn invocation(command: &SimpleCommand) -> Option<GitInvocation> {
    let mut assignments: Vec<(String, Option<String>)> = command
        .assignments
        .iter()
        .map(|a| assignment_value(a))
        .collect();
    let mut at = 0;
    loop {
        at = command_start_from(command, at);
        let name = command.words.get(at)?.value.as_deref()?;
        if name == "env" {
            at = env_assignments(command, at + 1, &mut assignments)?;
            continue;
        }
        if name != "git" && !name.ends_with("/git") {
            return None;
        }
        break;
    }
    let mut git = GitInvocation {
        dir: ".".into(),
        git_dir: None,
        work_tree: None,
        known: true,
        subcommand: None,
        args: Vec::new(),
    };
    for (name, value) in assignments {
        let slot = match name.as_str() {
            "GIT_DIR" => &mut git.git_dir,
            "GIT_WORK_TREE" => &mut git.work_tree,
            _ => continue,
        };
        match value {
            Some(v) => *slot = Some(v),
            None => git.known = false,
        }
    }
    let words: Vec<Option<&str>> = command.words[at + 1..]
        .iter()
        .map(|w| w.value.as_deref())
        .collect();
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let Some(a) = *word else {
            // A computed word: an option or the subcommand, who knows.
            git.known = false;
            return Some(git);
        };
        if !a.starts_with('-') {
            git.subcommand = Some(a.to_string());
            git.args = words[i + 1..]
                .iter()
                .map(|w| w.map(str::to_string))
                .collect();
            return Some(git);
        }
        let (option, attached) = match a.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v.to_string())),
            _ => (a, None),
        };
        let value = if VALUE_OPTIONS.contains(&option) {
            match attached {
                Some(v) => Some(Some(v)),
                None => {
                    i += 1;
                    Some(words.get(i).copied().flatten().map(str::to_string))
                }
            }
        } else {
            None
        };
        match (option, value) {
            ("-C", Some(Some(d))) => git.dir = join(&git.dir, &d),
            ("--git-dir", Some(Some(d))) => git.git_dir = Some(d),
            ("--work-tree", Some(Some(d))) => git.work_tree = Some(d),
            ("-C" | "--git-dir" | "--work-tree", Some(None)) => git.known = false,
            ("--bare", None) => git.git_dir = Some(".".into()),
            (_, Some(_)) => {}
            (_, None) if is_flag(option) => {}
            // git refuses an unknown option and runs nothing.
            _ => return Some(git),
        }
        i += 1;
    }
    Some(git)
}

/// git's global options that take no value.
fn is_flag(option: &str) -> bool {
    matches!(
        option,
        "-p" | "--paginate"
            | "-P"
            | "--no-pager"
            | "--no-replace-objects"
            | "--literal-pathspecs"
            | "--no-literal-pathspecs"
            | "--glob-pathspecs"
            | "--noglob-pathspecs"
            | "--icase-pathspecs"
            | "--no-optional-locks"
            | "--no-lazy-fetch"
            | "--no-advice"
            | "--exec-path"
            | "--list-cmds"
            | "--html-path"
            | "--man-path"
            | "--info-path"
    )
}

/// `NAME=value` as written → the name and the value when it is static
/// (plain, single- or double-quoted without expansions).
fn assignment_value(text: &str) -> (String, Option<String>) {
    let Some((name, value)) = text.split_once('=') else {
        return (text.to_string(), None);
    };
    let value = if let Some(inner) = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
        (!inner.contains('\'')).then(|| inner.to_string())
    } else if let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        (!inner.contains(['$', '`', '\\', '"'])).then(|| inner.to_string())
    } else {
        (!value.contains(['$', '`', '\\', '\'', '"', '*', '?', '[', '{', '~']))
            .then(|| value.to_string())
    };
    (name.to_string(), value)
}

/// Reads `env`'s options and assignments from word `from`; the index of
/// the command it runs, or `None` when there is none or an option is
/// unknown.
fn env_assignments(
    command: &SimpleCommand,
    from: usize,
    out: &mut Vec<(String, Option<String>)>,
) -> Option<usize> {
    let mut i = from;
    while let Some(word) = command.words.get(i) {
        match word.value.as_deref()? {
            "-i" | "--ignore-environment" | "-0" | "--null" | "-" | "--" => i += 1,
            "-u" => i += 2,
            a if a.starts_with("--unset=") || (a.starts_with("-u") && a.len() > 2) => i += 1,
            a if a.starts_with('-') => return None,
            a if a.contains('=') => {
                let (name, value) = a.split_once('=')?;
                out.push((name.to_string(), Some(value.to_string())));
                i += 1;
            }
            _ => return Some(i),
        }
    }
    None
}

/// `base` with `-C dir` applied: an absolute `dir` replaces it, an empty
/// one changes nothing.
fn join(base: &str, dir: &str) -> String {
    if dir.is_empty() {
        base.to_string()
    } else if dir.starts_with('/') || dir.starts_with('~') || base == "." {
        dir.to_string()
    } else {
        format!("{}/{dir}", base.trim_end_matches('/'))
    }
}

/// Subcommands that print, export or copy elsewhere the contents of
/// committed files whatever their options.
const CONTENT_SUBCOMMANDS: &[&str] = &[
    "show",
    "grep",
    "blame",
    "annotate",
    "cat-file",
    "archive",
    "format-patch",
    "fast-export",
    "bundle",
    "clone",
    "worktree",
    "checkout-index",
    "read-tree",
    "unpack-file",
    "merge-tree",
    "range-diff",
    "difftool",
    "request-pull",
    "stash",
];

/// Subcommands that print no file contents (or only with the patch
/// options of `log`, checked separately). Anything else — an alias among
/// them — counts as printing contents.
const OTHER_SUBCOMMANDS: &[&str] = &[
    "status",
    "add",
    "commit",
    "push",
    "pull",
    "fetch",
    "branch",
    "tag",
    "remote",
    "config",
    "init",
    "rev-parse",
    "rev-list",
    "ls-files",
    "ls-tree",
    "ls-remote",
    "describe",
    "shortlog",
    "merge-base",
    "show-ref",
    "symbolic-ref",
    "update-ref",
    "for-each-ref",
    "reset",
    "checkout",
    "switch",
    "restore",
    "rm",
    "mv",
    "merge",
    "rebase",
    "cherry-pick",
    "revert",
    "gc",
    "help",
    "version",
    "clean",
    "am",
    "apply",
    "bisect",
    "notes",
    "count-objects",
    "var",
    "check-ignore",
    "check-attr",
    "hash-object",
    "update-index",
    "write-tree",
    "commit-tree",
    "mktree",
    "cherry",
    "prune",
    "submodule",
    "sparse-checkout",
    "maintenance",
    "verify-commit",
    "verify-tag",
    "name-rev",
    "show-branch",
    "fsck",
];

/// `log`-like subcommands: they print contents with a patch option.
const LOG_SUBCOMMANDS: &[&str] = &[
    "log",
    "whatchanged",
    "reflog",
    "diff-tree",
    "diff-index",
    "diff-files",
];

impl GitInvocation {
    /// True when the command can print (or copy to another path) the
    /// contents of committed files: `show`, `grep`, `blame`, `cat-file`,
    /// `archive`, `stash`, `format-patch`, … whatever their options; `diff`
    /// unless it only summarises; `log`/`whatchanged`/`reflog` with a patch
    /// or pickaxe option; an unknown subcommand (an alias may be any of
    /// these). A word whose value is unknown counts as the worst option.
    pub fn can_print_contents(&self) -> bool {
        let Some(sub) = self.subcommand.as_deref() else {
            return !self.known;
        };
        let args = || self.args.iter().map(|a| a.as_deref());
        if CONTENT_SUBCOMMANDS.contains(&sub) {
            return true;
        }
        if sub == "diff" {
            let summary = args().any(|a| a.is_some_and(|a| SUMMARY_OPTIONS.matches(a)));
            return !summary || args().any(|a| a.is_none_or(|a| PATCH_OPTIONS.matches(a)));
        }
        if LOG_SUBCOMMANDS.contains(&sub) {
            return args().any(|a| a.is_none_or(|a| PATCH_OPTIONS.matches(a)));
        }
        if sub == "fsck" {
            return args().any(|a| a.is_none_or(|a| a.starts_with("--lost")));
        }
        !OTHER_SUBCOMMANDS.contains(&sub)
    }
}

/// A diff/log option that prints file contents (a patch, a pickaxe that
/// tells whether a string is in a file, a line range's history).
const PATCH_OPTIONS: OptionSet = OptionSet {
    exact: &[
        "-p",
        "-u",
        "--patch",
        "--patch-with-stat",
        "--patch-with-raw",
        "--cc",
        "-c",
        "--dd",
        "--remerge-diff",
        "--binary",
        "--full-diff",
        "--textconv",
        "--ext-diff",
    ],
    prefixes: &[
        "-U",
        "--unified",
        "--word-diff",
        "--color-words",
        "-L",
        "-S",
        "-G",
        "--pickaxe",
    ],
};

/// A `diff` option that prints no contents by itself.
const SUMMARY_OPTIONS: OptionSet = OptionSet {
    exact: &[
        "--numstat",
        "--shortstat",
        "--name-only",
        "--name-status",
        "--raw",
        "--summary",
        "-s",
        "--no-patch",
        "--quiet",
    ],
    prefixes: &["--stat", "--dirstat"],
};

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
