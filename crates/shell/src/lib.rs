//! orbit's shell analysis: what a bash command line will do, read from its
//! tree-sitter-bash syntax tree, never from a scan of its characters.
//!
//! One module answers every question orbit asks about a command:
//! - [`Script::is_read_only`] (Bash's `read_only` and `concurrency_safe`
//!   facts): only allow-listed commands with checked arguments, nothing
//!   that evaluates code, no redirection that writes (see `readonly`);
//! - [`Script::file_access`]: the files its commands read and write (Bash's
//!   `reads` and `writes` facts, for Read deny rules and workspace
//!   boundaries), and [`Script::git_invocations`] (which repository each
//!   `git` command works in, and whether it can print committed files);
//! - [`is_destructive`]: does it delete or overwrite data irreversibly;
//! - [`Script::simple_commands`]: the simple commands a compound command is
//!   made of, each with its words as written and as the shell passes them;
//! - [`Script::last_command_name`]: whose exit status the command ends with
//!   (Bash's "exit 1 of grep is an answer" rule);
//! - [`command_matches_prefix`] and [`CommandPattern`]: the permission rules'
//!   matching (`Bash(git log:*)`, `Bash(touch *)`), where every simple
//!   command must match;
//! - [`path_has_relative_entry`]: whether a bare command name could resolve
//!   to a program in the project.
//!
//! Data flow: [`parse`] → the tree of the command's ASCII shadow (`shadow`:
//! byte for byte the command, non-ASCII characters as `%`, because
//! tree-sitter-bash's scanner crashes on some of them) → (error-free, or
//! [`ParseError`]) → ONE
//! walk of its statements (`commands::parts`: simple commands and tests with
//! their redirections) and one scan of its nodes (`expansions::scan`:
//! substitutions, arithmetic, subscripts) → a [`Script`] holding both → the
//! questions above, which read them and walk nothing again. Every answer
//! errs on the safe side: what the walker does not know is not read-only
//! and matches no rule.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod builtins;
mod commands;
mod expansions;
mod git;
mod options;
mod paths;
mod pattern;
mod readonly;
mod shadow;
mod words;

use std::cell::RefCell;
use std::fmt;

use tree_sitter::{Parser, Tree};

use commands::{Part, Parts};
use expansions::Hazards;
use paths::CommandPaths;

pub use builtins::ArgumentCode;
pub use commands::{Redirect, SimpleCommand, Word};
pub use git::GitInvocation;
pub use pattern::{CommandPattern, command_matches_prefix, runs_its_arguments};
pub use readonly::{DESTRUCTIVE_COMMANDS, READ_ONLY_COMMANDS};

/// Why a command could not be analysed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The parser produced no tree (it could not be set up).
    #[error("the bash parser is unavailable")]
    Unavailable,
    /// The command is not valid bash (an unterminated quote, a dangling
    /// `|` or `&&`, …).
    #[error("the command is not valid bash")]
    Syntax,
}

/// A parsed, syntactically valid command line, with its one walk.
#[derive(Clone)]
pub struct Script {
    source: String,
    tree: Tree,
    parts: Parts,
    hazards: Hazards,
    /// The paths of each `Part::Command`, in order.
    paths: Vec<CommandPaths>,
}

impl fmt::Debug for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Script")
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

/// The files a script reads and writes, as its words name them (see
/// [`Script::file_access`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileAccess {
    /// Paths read, relative to the command's directory unless absolute;
    /// `~/…` is in the home directory; a directory covers what is below it.
    pub reads: Vec<String>,
    /// Paths written, created or removed (redirection targets, `tee`,
    /// `cp`'s target, `sed -i`, …), in the same form.
    pub writes: Vec<String>,
    /// False when some read or write could not be located (an expansion in
    /// a path, a construct the walk does not know, a substitution): then
    /// the lists are not the whole story.
    pub complete: bool,
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `src` with tree-sitter-bash (one parser per thread, reused),
/// keeping a tree with errors. The parser reads the ASCII shadow of `src`
/// (`shadow`: tree-sitter-bash crashes on some non-ASCII input); `None`
/// when a node of the tree would split one of `src`'s characters.
fn parse_tree(src: &str) -> Option<Tree> {
    let shadow = shadow::ascii_shadow(src);
    let tree = parse_ascii(&shadow)?;
    (!shadow::splits_a_char(&tree, src)).then_some(tree)
}

/// [`parse_tree`] for text that is ASCII.
fn parse_ascii(src: &str) -> Option<Tree> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .ok()?;
            *slot = Some(parser);
        }
        slot.as_mut()?.parse(src, None)
    })
}

/// Parses a command line; [`ParseError::Syntax`] when it is not valid bash.
pub fn parse(command: &str) -> Result<Script, ParseError> {
    let tree = parse_tree(command).ok_or(ParseError::Unavailable)?;
    let root = tree.root_node();
    if root.has_error() {
        return Err(ParseError::Syntax);
    }
    let walker = words::Walker::new(command);
    let hazards = expansions::scan(&walker, root);
    let parts = commands::parts(command, &tree);
    let paths = parts
        .parts
        .iter()
        .filter_map(|part| match part {
            Part::Command(c) => Some(paths::command_paths(c, readonly::command_start(c))),
            Part::Test { .. } => None,
        })
        .collect();
    Ok(Script {
        source: command.to_string(),
        tree,
        parts,
        hazards,
        paths,
    })
}

impl Script {
    /// The command line as given.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// True when the command only reads: every part is an allow-listed
    /// command whose arguments pass its checks (or an inert test), nothing
    /// evaluates code, no redirection writes a file, and every path it
    /// reads is known (see `readonly`).
    pub fn is_read_only(&self) -> bool {
        readonly::parts_are_read_only(&self.parts, self.hazards)
            && self.paths.iter().all(|p| !p.unknown)
    }

    /// True when the command only manages files the way Claude Code's
    /// `acceptEdits` mode allows without asking: `mkdir`, `touch`, `rm`
    /// (not `-r`), `rmdir`, `mv`, `cp` and `sed -i` with an inert program,
    /// with known options, literal words and every path known (see
    /// `readonly::file_edits`). Where those paths are is for the caller.
    pub fn only_manages_files(&self) -> bool {
        readonly::parts_only_manage_files(&self.parts, self.hazards)
            && self.paths.iter().all(|p| !p.unknown)
    }

    /// True when every file the script can write is among
    /// [`Script::file_access`]'s `writes`: each command is read-only, a
    /// plain writer whose written files are all operands (`tee`, `touch`,
    /// `mv`, `cp` without `-t`/backups, …) or `sed -i` with inert programs,
    /// no `cd`, nothing evaluates code, every path known. Then "those
    /// files are unchanged" means "the command changed no file".
    pub fn writes_are_named(&self) -> bool {
        readonly::writes_are_named(&self.parts, self.hazards, &self.paths)
    }

    /// True when the script may run in another directory than it started
    /// in (`cd`, `pushd`, `popd`, or a construct the walk does not know):
    /// then its relative paths are not where the caller's cwd puts them.
    pub fn changes_directory(&self) -> bool {
        readonly::changes_directory(&self.parts)
    }

    /// See [`is_destructive`].
    pub fn is_destructive(&self) -> bool {
        readonly::tree_is_destructive(&self.source, &self.tree)
    }

    /// True when a command or process substitution (`$(…)`, `` `…` ``,
    /// `<(…)`, `>(…)`) appears anywhere: it runs a command wherever it is.
    pub fn has_substitution(&self) -> bool {
        self.hazards.substitution
    }

    /// The simple commands of the script in source order: those joined by
    /// `;`, `&&`, `||`, `|`, `|&`, `&`, newlines, or grouped in `( … )`,
    /// `{ …; }` or behind `!`. `None` when any other construct appears
    /// (`if`, loops, functions, `[[ … ]]`, a bare assignment, `export`, …):
    /// then the script is more than a list of simple commands and a caller
    /// matching them must not vouch for it.
    pub fn simple_commands(&self) -> Option<Vec<SimpleCommand>> {
        if !self.parts.complete {
            return None;
        }
        self.parts
            .parts
            .iter()
            .map(|part| match part {
                Part::Command(c) => Some(c.clone()),
                Part::Test { .. } => None,
            })
            .collect()
    }

    /// The files the script's commands read and write (Bash's `reads` and
    /// `writes` facts), in source order.
    pub fn file_access(&self) -> FileAccess {
        let mut access = FileAccess {
            complete: self.parts.complete
                && !self.hazards.substitution
                && self.paths.iter().all(|p| !p.unknown),
            ..FileAccess::default()
        };
        for p in &self.paths {
            access.reads.extend(p.reads.iter().cloned());
            access.writes.extend(p.writes.iter().cloned());
        }
        for part in &self.parts.parts {
            if let Part::Test { redirects, .. } = part {
                for r in redirects {
                    match r {
                        Redirect::Output(w) if w.value.as_deref() != Some("/dev/null") => {
                            match &w.value {
                                Some(v) => access.writes.push(v.clone()),
                                None => access.complete = false,
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        access
    }

    /// The written words that are plain globs (`sed -i … *.py`): each
    /// pattern as written (only `*`, `?`, `[…]` special) with the
    /// directory [`Script::file_access`]'s `writes` holds in its place.
    /// The Bash tool expands them to probe the files themselves.
    pub fn written_globs(&self) -> Vec<(String, String)> {
        self.paths
            .iter()
            .flat_map(|p| p.write_globs.iter().cloned())
            .collect()
    }

    /// Every `git` command of the script, wherever it is (inside `if`,
    /// loops, substitutions too), wrappers and `env` seen through, with
    /// the repository its global options and `GIT_DIR`/`GIT_WORK_TREE`
    /// assignments name (see [`GitInvocation`]). The Bash tool checks
    /// their configuration before it lets a git command count as
    /// read-only, and what they track against the Read deny rules.
    pub fn git_invocations(&self) -> Vec<GitInvocation> {
        git::invocations(&commands::all_commands(&self.source, &self.tree))
    }

    /// The directory each `git` command of the script works from (`-C DIR`
    /// applied, else `.`): [`Script::git_invocations`]' `dir`s.
    pub fn git_directories(&self) -> Vec<String> {
        self.git_invocations().into_iter().map(|g| g.dir).collect()
    }

    /// The name of the command whose exit status the script ends with —
    /// the last statement, the last element of a `&&`/`||` list or of a
    /// pipeline — as the shell sees it (quotes removed; a path stays a
    /// path; `[` or `[[` for a test). `None` when that is not a plain
    /// command or a test (a subshell, `!`, `if`, a loop, a function, a
    /// heredoc carrying more commands, a name with an expansion).
    pub fn last_command_name(&self) -> Option<String> {
        commands::last_command_name(&self.source, &self.tree)
    }
}

/// True when a `PATH` value has an entry that is empty, `.` or relative:
/// then a bare command name (`ls`) may run a program from the current
/// directory, and no command can be called read-only by its name.
pub fn path_has_relative_entry(path: &str) -> bool {
    path.split(':').any(|entry| !entry.starts_with('/'))
}

/// True when `command` parses and only reads ([`Script::is_read_only`]).
pub fn is_read_only(command: &str) -> bool {
    parse(command).is_ok_and(|script| script.is_read_only())
}

/// Heuristic: does `command` delete or overwrite data irreversibly? Looks at
/// every command in the tree (also inside substitutions, also when the parse
/// has errors) for [`DESTRUCTIVE_COMMANDS`], `find -delete`/`-exec rm`,
/// `git reset --hard`, `git clean -f`, `git push --force`, `git checkout --`,
/// `git restore`, `git branch -D`, `git stash drop/clear`, and the same
/// behind `sudo`/`xargs`/`env`/`nohup`/`time`/`nice`/`exec`/`command`.
/// Redirections that truncate a file (`> f`) are not counted.
pub fn is_destructive(command: &str) -> bool {
    parse_tree(command).is_some_and(|tree| readonly::tree_is_destructive(command, &tree))
}
