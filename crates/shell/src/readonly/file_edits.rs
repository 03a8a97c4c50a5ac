//! The file-management classifier behind [`crate::Script::only_manages_files`]
//! (Bash's `file_management` fact): the commands Claude Code's `acceptEdits`
//! mode runs without asking — `mkdir`, `touch`, `rm`, `rmdir`, `mv`, `cp`
//! and `sed -i` — with a strict reading of their options.
//!
//! A script qualifies only when the walk knew every construct, nothing
//! evaluates code (no substitution, arithmetic or `${…}` beyond `${NAME}`),
//! and every part is one of those commands, called by its bare name (no
//! wrapper, no path, no assignment prefix), every word literal (no
//! expansion or glob: each path is known), no redirection that touches a
//! file, and only the options listed below (any other option, a cluster
//! with another letter, or an option taking a value refuses). Refused on
//! purpose: `rm -r` (a whole tree, the workspace root included), `cp`/`mv`
//! `-t`/`-S`/`-b` and `sed -i.SUFFIX` (paths the operands do not show),
//! `sed -f` and any sed program that is not inert (`e`, `w`, `r`, the `e`
//! and `w` flags of `s`: `programs::sed_script_is_inert`). Where the paths
//! may go — inside the workspace, not a protected path — is the
//! permission policy's check, on the paths `crate::paths` reports.

use super::args_of;
use super::programs::sed_call;
use crate::SimpleCommand;
use crate::commands::{Part, Parts};
use crate::expansions::Hazards;
use crate::words::Arg;

/// One command's allowed options: whole long options, and the letters a
/// short option or cluster may hold.
struct Options {
    long: &'static [&'static str],
    short: &'static str,
}

/// The file-management commands and their allowed options (sed apart).
const COMMANDS: &[(&str, Options)] = &[
    (
        "mkdir",
        Options {
            long: &["--parents", "--verbose"],
            short: "pv",
        },
    ),
    (
        "touch",
        Options {
            long: &["--no-create"],
            short: "acm",
        },
    ),
    (
        "rmdir",
        Options {
            long: &["--parents", "--verbose", "--ignore-fail-on-non-empty"],
            short: "pv",
        },
    ),
    (
        "rm",
        Options {
            long: &["--force", "--verbose", "--dir"],
            short: "fvd",
        },
    ),
    (
        "mv",
        Options {
            long: &[
                "--force",
                "--no-clobber",
                "--verbose",
                "--no-target-directory",
            ],
            short: "fnvT",
        },
    ),
    (
        "cp",
        Options {
            long: &[
                "--recursive",
                "--archive",
                "--force",
                "--no-clobber",
                "--verbose",
                "--no-target-directory",
            ],
            short: "rRapfnvT",
        },
    ),
];

/// True when the script whose walk is `parts` and whose scan found
/// `hazards` only manages files (see the module docs).
pub(crate) fn parts_only_manage_files(parts: &Parts, hazards: Hazards) -> bool {
    parts.complete
        && !hazards.substitution
        && !hazards.evaluation
        && !parts.parts.is_empty()
        && parts.parts.iter().all(|part| match part {
            Part::Command(command) => manages_files(command),
            Part::Test { .. } => false,
        })
}

/// One simple command: a bare allowed name, literal words, no assignment,
/// no redirection that touches a file, allowed options only.
fn manages_files(command: &SimpleCommand) -> bool {
    let Some(name) = command.name() else {
        return false;
    };
    if !command.assignments.is_empty()
        || command.has_expansion
        || command.has_substitution
        || !command.redirects.iter().all(|r| r.touches_no_file())
        || command.words[0].text != name
    {
        return false;
    }
    let args = args_of(command);
    let Some(args) = args.iter().map(Arg::literal).collect::<Option<Vec<_>>>() else {
        return false;
    };
    if name == "sed" {
        return sed_in_place(&args);
    }
    let Some((_, options)) = COMMANDS.iter().find(|(n, _)| *n == name) else {
        return false;
    };
    let mut operands = 0;
    let mut options_done = false;
    for a in args {
        if options_done || a == "-" || !a.starts_with('-') {
            operands += 1;
        } else if a == "--" {
            options_done = true;
        } else if a.starts_with("--") {
            if !options.long.contains(&a) {
                return false;
            }
        } else if !a[1..].chars().all(|c| options.short.contains(c)) {
            return false;
        }
    }
    operands > 0
}

/// `sed -i [-E|-r|-s|-z|-u|--posix] [-e SCRIPT]… [SCRIPT] FILE…` whose
/// scripts are inert; exactly `-i` / `--in-place` (no suffix: the backup
/// file is a path the operands do not show), never `-n` (it would empty
/// the files it edits), `-f` or an unknown option ([`sed_call`]).
fn sed_in_place(args: &[&str]) -> bool {
    sed_call(args).is_some_and(|call| {
        call.in_place && !call.quiet && !call.operands.is_empty() && call.scripts_are_inert()
    })
}
