//! Per-command rules of the read-only classifier: which commands only read,
//! which of their options would write or run other programs, and which
//! commands count as destructive.
//!
//! Input is a command's literal name and its arguments as
//! [`Arg`]s (already unquoted by the walker). Commands in
//! [`READ_ONLY_COMMANDS`] have no option that writes a file or runs a
//! program, so any arguments are fine. The others are checked option by
//! option below and refuse opaque arguments (an expansion or glob could turn
//! into `-delete`).

use super::programs::{awk_is_read_only, sed_is_read_only};
use super::wrappers::{Wrapped, wrapped};
use crate::options::OptionSet;
use crate::words::Arg;

/// Commands that cannot write files or run other programs, whatever their
/// arguments.
pub const READ_ONLY_COMMANDS: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "grep",
    "egrep",
    "fgrep",
    "echo",
    "pwd",
    "which",
    "stat",
    "du",
    "df",
    "cut",
    "tr",
    "diff",
    "cmp",
    "comm",
    "true",
    "false",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "printenv",
    "jq",
    "nl",
    "id",
    "whoami",
    "uname",
    "seq",
    "sleep",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "type",
    // Text filters that only print (no option writes a file or runs a
    // program): a command built of them changed nothing.
    "tac",
    "rev",
    "paste",
    "fold",
    "expand",
    "unexpand",
    "fmt",
    "column",
    "od",
    "hexdump",
    "strings",
    "numfmt",
    "tsort",
    "nproc",
];

/// Commands that delete or overwrite data.
pub const DESTRUCTIVE_COMMANDS: &[&str] = &[
    "rm", "rmdir", "unlink", "shred", "dd", "mv", "truncate", "wipefs", "mkfs", "fdisk", "parted",
    "sfdisk",
];

/// Decides one plain command (see the module docs): a wrapper is judged
/// by the command it wraps.
pub(crate) fn command_is_read_only(name: &str, args: &[Arg]) -> bool {
    match wrapped(name, args) {
        Wrapped::NotWrapper => {}
        Wrapped::RunsNothing => return true,
        Wrapped::Refused => return false,
        Wrapped::Runs(at) => {
            return match args[at].literal() {
                Some(inner) if !inner.contains('/') && !inner.starts_with('~') => {
                    command_is_read_only(inner, &args[at + 1..])
                }
                _ => false,
            };
        }
    }
    if READ_ONLY_COMMANDS.contains(&name) {
        return true;
    }
    match name {
        "sed" => return sed_is_read_only(args),
        "awk" => return awk_is_read_only(args),
        // `-v NAME` assigns NAME (and evaluates its subscript); only the
        // first argument can be an option.
        "printf" => {
            return args
                .first()
                .is_none_or(|a| a.literal().is_some_and(|a| !a.starts_with("-v")));
        }
        _ => {}
    }
    let Some(args) = literals(args) else {
        return false;
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match name {
        "find" => !args.iter().any(|a| {
            matches!(
                *a,
                "-exec"
                    | "-execdir"
                    | "-ok"
                    | "-okdir"
                    | "-delete"
                    | "-fls"
                    | "-fprint"
                    | "-fprint0"
                    | "-fprintf"
            )
        }),
        "sort" => !args.iter().any(|a| {
            long_option_is(a, "--output")
                || long_option_is(a, "--compress-program")
                || short_cluster_has(a, 'o')
        }),
        "uniq" => uniq_is_read_only(&args),
        "tree" => !args.iter().any(|a| a.starts_with("-o")),
        "file" => !args
            .iter()
            .any(|a| long_option_is(a, "--compile") || short_cluster_has(a, 'C')),
        "date" => !args
            .iter()
            .any(|a| long_option_is(a, "--set") || short_cluster_has(a, 's')),
        // `-v`/`-R` read a variable name, evaluating its subscript.
        "test" | "[" => !args.iter().any(|a| matches!(*a, "-v" | "-R")),
        "rg" => !args.iter().any(|a| a.starts_with("--pre")),
        "git" => git_is_read_only(&args),
        _ => false,
    }
}

/// All arguments' literal values, or `None` when one is opaque.
fn literals(args: &[Arg]) -> Option<Vec<String>> {
    args.iter()
        .map(|a| a.literal().map(str::to_string))
        .collect()
}

/// `arg` is the long option `full` or an abbreviation of it (getopt_long
/// and git's parse-options accept unique prefixes: `--out=f` is
/// `--output=f`).
fn long_option_is(arg: &str, full: &str) -> bool {
    let name = arg.split('=').next().unwrap_or(arg);
    name.len() > 2 && name.starts_with("--") && full.starts_with(name)
}

/// `-xyz` style option cluster containing `flag`.
fn short_cluster_has(arg: &str, flag: char) -> bool {
    arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(flag)
}

/// `uniq [OPTION]... [INPUT [OUTPUT]]`: a second operand is written to.
fn uniq_is_read_only(args: &[&str]) -> bool {
    let mut operands = 0;
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        match *a {
            "-f" | "-s" | "-w" => {
                iter.next();
            }
            a if a.starts_with('-') && a.len() > 1 => {}
            _ => operands += 1,
        }
    }
    operands <= 1
}

/// Global options git may take before the subcommand; the rest (`-c`,
/// `--config-env`, `--exec-path`, `-p`/`--paginate`, …) can run programs.
fn git_is_read_only(args: &[&str]) -> bool {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match *a {
            "--no-pager"
            | "-P"
            | "--no-optional-locks"
            | "--literal-pathspecs"
            | "--no-replace-objects" => i += 1,
            "-C" => i += 2,
            a if a.starts_with('-') => return false,
            _ => break,
        }
    }
    let Some(sub) = args.get(i) else {
        // `git` alone prints usage.
        return true;
    };
    let rest = &args[i + 1..];
    let writes_output = |a: &&str| long_option_is(a, "--output") || long_option_is(a, "--ext-diff");
    match *sub {
        "status" | "blame" | "shortlog" | "describe" | "rev-parse" | "ls-files" | "ls-tree"
        | "rev-list" | "merge-base" | "show-ref" | "log" | "diff" | "show" => {
            !rest.iter().any(writes_output)
        }
        // `--filters`/`--textconv` run the repository's drivers.
        "cat-file" => !rest
            .iter()
            .any(|a| writes_output(a) || a.starts_with("--filters") || a.starts_with("--textconv")),
        "grep" => !rest.iter().any(|a| {
            long_option_is(a, "--open-files-in-pager")
                || a.starts_with("-O")
                || long_option_is(a, "--textconv")
        }),
        "branch" => git_branch_is_listing(rest),
        "tag" => git_tag_is_listing(rest),
        "remote" => matches!(rest, [] | ["-v"] | ["--verbose"] | ["get-url", _]),
        "stash" => matches!(rest.first(), Some(&"list") | Some(&"show")),
        "reflog" => rest.is_empty() || rest.first() == Some(&"show"),
        "config" => git_config_is_get(rest),
        _ => false,
    }
}

/// The options of a `git branch` that only lists.
const BRANCH_LISTING_OPTIONS: OptionSet = OptionSet {
    exact: &[
        "-a",
        "--all",
        "-r",
        "--remotes",
        "-v",
        "-vv",
        "--verbose",
        "--show-current",
        "--no-color",
        "--color",
        "-l",
        "--list",
        "--merged",
        "--no-merged",
        "--contains",
        "--no-contains",
    ],
    prefixes: &["--format=", "--sort=", "--color="],
};

/// The options of a `git tag` that only lists.
const TAG_LISTING_OPTIONS: OptionSet = OptionSet {
    exact: &["-l", "--list", "--column", "--no-column"],
    prefixes: &["-n", "--format=", "--sort="],
};

fn git_branch_is_listing(rest: &[&str]) -> bool {
    is_listing(rest, &BRANCH_LISTING_OPTIONS)
}

fn git_tag_is_listing(rest: &[&str]) -> bool {
    is_listing(rest, &TAG_LISTING_OPTIONS)
}

/// Every argument is a listing option, or a pattern once `-l`/`--list`
/// made the command list.
fn is_listing(rest: &[&str], options: &OptionSet) -> bool {
    let listing = rest.iter().any(|a| matches!(*a, "-l" | "--list"));
    rest.iter()
        .all(|a| options.matches(a) || (listing && !a.starts_with('-')))
}

fn git_config_is_get(rest: &[&str]) -> bool {
    let getter = rest
        .iter()
        .any(|a| matches!(*a, "--get" | "--get-all" | "--get-regexp" | "--list" | "-l"));
    getter
        && rest.iter().all(|a| {
            !a.starts_with('-')
                || matches!(
                    *a,
                    "--get"
                        | "--get-all"
                        | "--get-regexp"
                        | "--list"
                        | "-l"
                        | "--global"
                        | "--local"
                        | "--system"
                        | "--show-origin"
                        | "--name-only"
                        | "--null"
                        | "-z"
                )
        })
}

/// The destructive heuristic for one command (see
/// [`crate::is_destructive`]).
pub(crate) fn command_is_destructive(name: &str, args: &[Arg]) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    if DESTRUCTIVE_COMMANDS.contains(&base) || base.starts_with("mkfs.") {
        return true;
    }
    let lit: Vec<&str> = args.iter().filter_map(Arg::literal).collect();
    let has = |flag: &str| lit.contains(&flag);
    match base {
        "find" => {
            has("-delete")
                || lit
                    .windows(2)
                    .any(|w| w[0].starts_with("-exec") && w[1] == "rm")
        }
        "git" => git_is_destructive(&lit),
        w if crate::runs_its_arguments(w) => {
            // The wrapped command is the first argument that is neither an
            // option nor an assignment (`env X=1 rm f`, `sudo -u me rm f`).
            let Some(pos) = args.iter().position(|a| {
                a.literal()
                    .is_some_and(|s| !s.starts_with('-') && !s.contains('='))
            }) else {
                return false;
            };
            match args[pos].literal() {
                Some(inner) => command_is_destructive(inner, &args[pos + 1..]),
                None => false,
            }
        }
        _ => false,
    }
}

fn git_is_destructive(lit: &[&str]) -> bool {
    let mut pos = 0;
    while let Some(a) = lit.get(pos) {
        match *a {
            "-C" | "-c" => pos += 2,
            a if a.starts_with('-') => pos += 1,
            _ => break,
        }
    }
    if pos >= lit.len() {
        return false;
    }
    let rest = &lit[pos + 1..];
    let has = |flag: &str| rest.contains(&flag);
    match lit[pos] {
        "reset" => has("--hard") || has("--merge") || has("--keep"),
        "clean" => rest
            .iter()
            .any(|a| *a == "--force" || short_cluster_has(a, 'f')),
        "push" => rest.iter().any(|a| {
            *a == "--force"
                || a.starts_with("--force-with-lease")
                || *a == "--delete"
                || *a == "--mirror"
                || short_cluster_has(a, 'f')
                || short_cluster_has(a, 'd')
                || (a.starts_with('+') && a.len() > 1)
        }),
        "checkout" => has("--") || has(".") || has("-f") || has("--force"),
        "restore" => !has("--staged") || has("--worktree") || has("-W"),
        "branch" => has("-D") || (has("-d") && has("--force")),
        "stash" => matches!(rest.first(), Some(&"drop") | Some(&"clear")),
        "rm" => true,
        _ => false,
    }
}
