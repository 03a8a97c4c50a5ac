//! orbit's shell analysis: what a bash command line will do, read from its
//! tree-sitter-bash syntax tree, never from a scan of its characters.
//!
//! One module answers every question orbit asks about a command:
//! - [`Script::is_read_only`] (Bash's `read_only` and `concurrency_safe`
//!   facts): only plain read-only commands, no substitution, no redirection
//!   that writes (see `readonly`);
//! - [`is_destructive`]: does it delete or overwrite data irreversibly;
//! - [`Script::simple_commands`]: the simple commands a compound command is
//!   made of, each with its words as written and as the shell passes them;
//! - [`Script::last_command_name`]: whose exit status the command ends with
//!   (Bash's "exit 1 of grep is an answer" rule);
//! - [`command_matches_prefix`] and [`CommandPattern`]: the permission rules'
//!   matching (`Bash(git log:*)`, `Bash(touch *)`), where every simple
//!   command must match.
//!
//! Data flow: [`parse`] → a [`Script`] (an error-free tree, or
//! [`ParseError`]) → the questions above. Every answer errs on the safe
//! side: what the walker does not know is not read-only and matches no rule.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

mod commands;
mod pattern;
mod readonly;
mod words;

use std::cell::RefCell;
use std::fmt;

use tree_sitter::{Parser, Tree};

pub use commands::{Redirect, SimpleCommand, Word};
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

/// A parsed, syntactically valid command line.
#[derive(Clone)]
pub struct Script {
    source: String,
    tree: Tree,
}

impl fmt::Debug for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Script")
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `src` with tree-sitter-bash (one parser per thread, reused),
/// keeping a tree with errors.
fn parse_tree(src: &str) -> Option<Tree> {
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
    if tree.root_node().has_error() {
        return Err(ParseError::Syntax);
    }
    Ok(Script {
        source: command.to_string(),
        tree,
    })
}

impl Script {
    /// The command line as given.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// True when the command only reads: every statement is a plain
    /// read-only command (see `readonly`), with no command or process
    /// substitution and no redirection that writes a file.
    pub fn is_read_only(&self) -> bool {
        readonly::tree_is_read_only(&self.source, &self.tree)
    }

    /// See [`is_destructive`].
    pub fn is_destructive(&self) -> bool {
        readonly::tree_is_destructive(&self.source, &self.tree)
    }

    /// True when a command or process substitution (`$(…)`, `` `…` ``,
    /// `<(…)`, `>(…)`) appears anywhere: it runs a command wherever it is.
    pub fn has_substitution(&self) -> bool {
        words::contains_kind(self.tree.root_node(), words::SUBSTITUTION_KINDS)
    }

    /// The simple commands of the script in source order: those joined by
    /// `;`, `&&`, `||`, `|`, `|&`, `&`, newlines, or grouped in `( … )`,
    /// `{ …; }` or behind `!`. `None` when any other construct appears
    /// (`if`, loops, functions, `[[ … ]]`, a bare assignment, `export`, …):
    /// then the script is more than a list of simple commands and a caller
    /// matching them must not vouch for it.
    pub fn simple_commands(&self) -> Option<Vec<SimpleCommand>> {
        commands::simple_commands(&self.source, &self.tree)
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
