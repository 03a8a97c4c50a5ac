//! The read-only classifier behind [`crate::Script::is_read_only`] (Bash's
//! `read_only` and `concurrency_safe` facts), and the destructive heuristic
//! behind [`crate::is_destructive`].
//!
//! It reads the one walk of the script (`commands::Parts`) and the scan of
//! its nodes (`expansions::Hazards`); it walks no tree itself. A script is
//! read-only only when it parsed without error, the walk knew every
//! construct (simple commands and tests joined by pipes, `&&`, `||`, `;`,
//! `&`, newlines, `( … )`, `{ …; }`, `!`), nothing evaluates code (no
//! substitution, arithmetic, subscript or `${…}` beyond `${NAME}`), and
//! every part passes:
//! - a test: inert (`expansions::test_is_inert`) with read-only redirects;
//! - a command: assignment prefixes only for locale/format variables with
//!   plain values; redirections only read a file (`< f`), duplicate or close
//!   a descriptor or write to `/dev/null`; its name is bare (`./ls`, `/x/ls`
//!   and `~/ls` are not: the Bash tool also refuses bare names when `PATH`
//!   has a relative entry); and the per-command rules (`rules.rs`; wrappers
//!   in `wrappers.rs`; sed and awk programs in `programs.rs`) accept its
//!   arguments, and every path it reads is known (`crate::paths`).
//!
//! Arguments are reduced to their literal value (quotes removed, backslashes
//! resolved, `-de''lete` → `-delete`); an argument with an expansion or an
//! unquoted glob is *opaque*, and commands whose options can write or run
//! code refuse opaque arguments. Anything unknown is not read-only.

mod file_edits;
mod programs;
mod rules;
mod wrappers;
mod written;

use tree_sitter::Tree;

use crate::commands::{Part, Parts};
use crate::expansions::Hazards;
use crate::words::{Arg, Walker, visit};
use crate::{Redirect, SimpleCommand};

pub(crate) use file_edits::parts_only_manage_files;
pub use rules::{DESTRUCTIVE_COMMANDS, READ_ONLY_COMMANDS};
pub(crate) use written::{changes_directory, writes_are_named};

/// True when the script whose walk is `parts` and whose scan found
/// `hazards` only reads (see the module docs).
pub(crate) fn parts_are_read_only(parts: &Parts, hazards: Hazards) -> bool {
    parts.complete
        && !hazards.substitution
        && !hazards.evaluation
        && parts.parts.iter().all(|part| match part {
            Part::Command(command) => command_is_read_only(command),
            Part::Test { inert, redirects } => *inert && redirects.iter().all(redirect_only_reads),
        })
}

/// One simple command: safe assignments, redirections that only read, a
/// bare name (never a path: `./ls` is the project's program), and the
/// per-command rules.
fn command_is_read_only(command: &SimpleCommand) -> bool {
    let Some(name) = command.name() else {
        return false;
    };
    command.assignments.iter().all(|a| safe_assignment(a))
        && command.redirects.iter().all(redirect_only_reads)
        && !name.contains('/')
        && !command.words[0].text.starts_with('~')
        && rules::command_is_read_only(name, &args_of(command))
}

/// The arguments of a command as the rules read them.
fn args_of(command: &SimpleCommand) -> Vec<Arg> {
    args_from(command, 1)
}

/// The words of `command` from index `from` as [`Arg`]s.
fn args_from(command: &SimpleCommand, from: usize) -> Vec<Arg> {
    command.words[from.min(command.words.len())..]
        .iter()
        .map(|w| match &w.value {
            Some(v) => Arg::Literal(v.clone()),
            None => Arg::Opaque,
        })
        .collect()
}

/// Where the command that really runs starts in `command.words`: past
/// every wrapper (`env LANG=C nice -n 5 grep x f` → the index of `grep`).
pub(crate) fn command_start(command: &SimpleCommand) -> usize {
    command_start_from(command, 0)
}

/// [`command_start`] for the command that starts at word `from`.
pub(crate) fn command_start_from(command: &SimpleCommand, from: usize) -> usize {
    let mut start = from;
    loop {
        let Some(name) = command.words.get(start).and_then(|w| w.value.as_deref()) else {
            return start;
        };
        match wrappers::wrapped(name, &args_from(command, start + 1)) {
            wrappers::Wrapped::Runs(at) => start += at + 1,
            _ => return start,
        }
    }
}

/// A redirection that writes nothing: descriptor duplication, inline
/// input, output to `/dev/null`, or input from a named file.
fn redirect_only_reads(redirect: &Redirect) -> bool {
    match redirect {
        Redirect::Input(source) => source.value.is_some(),
        other => other.touches_no_file(),
    }
}

/// The destructive heuristic over every command of `tree` (see
/// [`crate::is_destructive`]), parse errors and substitutions included.
pub(crate) fn tree_is_destructive(source: &str, tree: &Tree) -> bool {
    let walker = Walker::new(source);
    let mut found = false;
    visit(tree.root_node(), &mut |node| {
        if !found
            && node.kind() == "command"
            && let Some((name, args)) = walker.command_parts(node)
        {
            found = rules::command_is_destructive(&name, &args);
        }
    });
    found
}

/// Assignment prefixes that only change formatting or locale.
const SAFE_ASSIGNMENTS: &[&str] = &["LANG", "LANGUAGE", "TZ", "NO_COLOR", "COLUMNS", "TERM"];

/// `NAME=value` (as written) with a locale/format name and a plain value.
pub(crate) fn safe_assignment(text: &str) -> bool {
    let Some((name, value)) = text.split_once('=') else {
        return false;
    };
    let plain_value = value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/' | '@'));
    plain_value && (SAFE_ASSIGNMENTS.contains(&name) || name.starts_with("LC_"))
}

#[cfg(test)]
mod tests;
