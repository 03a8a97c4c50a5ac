//! The files a simple command reads and writes, as far as its words show
//! them: the operands of read commands (`cat`, `head`, `grep` after its
//! pattern, `find` roots, `git`'s repository, …), the files write commands
//! name (`tee`, `touch`, `cp`'s target, `sort -o`, `sed -i`, `perl -i`, …) and the
//! targets of its redirections. The permission policy applies Read deny
//! rules and workspace boundaries to them.
//!
//! Paths are strings as the shell would pass them, relative to the
//! command's directory; `~/…` (an unquoted tilde) means the home directory,
//! a quoted `~` file is written `./~…`. A glob contributes the directory it
//! cannot leave (`src/*.rs` → `src`); a directory stands for everything
//! below it (`ls`, `grep -r x .`, `find src`). A read operand with an
//! expansion (`cat $F`) has no known location: [`CommandPaths::unknown`]
//! is set, and such a command is never read-only.

use crate::SimpleCommand;
use crate::commands::Redirect;

/// What one command reads and writes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CommandPaths {
    pub(crate) reads: Vec<String>,
    pub(crate) writes: Vec<String>,
    /// A path it reads or writes has no known location.
    pub(crate) unknown: bool,
    /// The written words that are plain globs (`*.py`, `src/*.rs`): each
    /// pattern as written with the directory `writes` holds for it.
    pub(crate) write_globs: Vec<(String, String)>,
}

/// What the operands of a command are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Every operand is read.
    Read,
    /// Every operand is written (or removed).
    Write,
    /// The last operand is written, the others read (`cp a b dir`).
    LastWritten,
    /// The first operand is read, a second written (`uniq in out`).
    ReadThenWrite,
}

/// How a command's words name files.
struct Spec {
    names: &'static [&'static str],
    role: Role,
    /// Operands before the paths (a pattern, a program, a filter), unless
    /// an option in `program_options` gave it.
    leading: usize,
    program_options: &'static [&'static str],
    /// Options whose value is a file written (`sort -o F`).
    write_options: &'static [&'static str],
    /// With no path operand it reads the current directory.
    reads_cwd: bool,
}

const BASE: Spec = Spec {
    names: &[],
    role: Role::Read,
    leading: 0,
    program_options: &[],
    write_options: &[],
    reads_cwd: false,
};

const SPECS: &[Spec] = &[
    Spec {
        names: &[
            "cat",
            "tac",
            "nl",
            "wc",
            "stat",
            "file",
            "md5sum",
            "sha1sum",
            "sha256sum",
            "sha512sum",
            "cksum",
            "b2sum",
            "readlink",
            "realpath",
            "diff",
            "cmp",
            "comm",
            "strings",
            "od",
            "xxd",
            "hexdump",
            "base64",
            "less",
            "more",
            "cut",
            "paste",
            "column",
            "fold",
            "fmt",
            "expand",
            "unexpand",
            "rev",
        ],
        ..BASE
    },
    Spec {
        names: &["head", "tail"],
        ..BASE
    },
    Spec {
        names: &["ls", "du", "tree"],
        write_options: &["-o"],
        reads_cwd: true,
        ..BASE
    },
    Spec {
        names: &["grep", "egrep", "fgrep", "rg"],
        leading: 1,
        program_options: &["-e", "--regexp", "-f", "--file"],
        reads_cwd: true,
        ..BASE
    },
    Spec {
        names: &["sort"],
        write_options: &["-o", "--output"],
        ..BASE
    },
    Spec {
        names: &["uniq"],
        role: Role::ReadThenWrite,
        ..BASE
    },
    Spec {
        names: &["jq"],
        leading: 1,
        program_options: &["-f", "--from-file"],
        ..BASE
    },
    Spec {
        names: &["sed"],
        leading: 1,
        program_options: &["-e", "--expression", "-f", "--file"],
        ..BASE
    },
    Spec {
        names: &["awk", "gawk", "mawk"],
        leading: 1,
        program_options: &["-f"],
        ..BASE
    },
    Spec {
        names: &[
            "tee", "touch", "mkdir", "rm", "rmdir", "unlink", "shred", "truncate", "chmod",
            "chown", "chgrp",
        ],
        role: Role::Write,
        ..BASE
    },
    Spec {
        names: &["mv"],
        role: Role::Write,
        ..BASE
    },
    Spec {
        names: &["cp", "ln", "install"],
        role: Role::LastWritten,
        ..BASE
    },
];

/// The paths `command` reads and writes (see the module docs). `words` are
/// the command's name and arguments from where the real command starts
/// (past any wrapper).
pub(crate) fn command_paths(command: &SimpleCommand, start: usize) -> CommandPaths {
    let mut paths = CommandPaths::default();
    for redirect in &command.redirects {
        match redirect {
            Redirect::Input(source) => paths.read(source),
            Redirect::Output(target) if target.value.as_deref() != Some("/dev/null") => {
                paths.write(target)
            }
            _ => {}
        }
    }
    let words = &command.words[start.min(command.words.len())..];
    let Some(name) = words.first().and_then(|w| w.value.as_deref()) else {
        return paths;
    };
    let args = &words[1..];
    match name {
        "find" => find_paths(args, &mut paths),
        "git" => git_paths(args, &mut paths),
        "sed" if args.iter().any(|a| in_place(a.value.as_deref())) => {
            spec_paths(&SED_IN_PLACE, args, &mut paths)
        }
        "perl" if args.iter().any(|a| in_place(a.value.as_deref())) => {
            spec_paths(&PERL_IN_PLACE, args, &mut paths)
        }
        _ => {
            if let Some(spec) = SPECS.iter().find(|s| s.names.contains(&name)) {
                spec_paths(spec, args, &mut paths);
            }
        }
    }
    paths
}

/// `-i`, `-i.bak`, `--in-place`, or a short cluster with `i` (`-ni`).
fn in_place(arg: Option<&str>) -> bool {
    arg.is_some_and(|a| {
        a.starts_with("--in-place")
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('i'))
    })
}

const SED_IN_PLACE: Spec = Spec {
    names: &["sed"],
    role: Role::Write,
    leading: 1,
    program_options: &["-e", "--expression", "-f", "--file"],
    ..BASE
};

/// `perl -pi -e PROGRAM FILE…` (`-i`, `-i.bak`, a cluster with `i`):
/// the files are written; without `-e` the first operand is the script.
const PERL_IN_PLACE: Spec = Spec {
    names: &["perl"],
    role: Role::Write,
    leading: 1,
    program_options: &["-e", "-E"],
    ..BASE
};

impl CommandPaths {
    fn read(&mut self, word: &crate::Word) {
        match locate(word) {
            Some(p) => self.reads.push(p),
            None => self.unknown = true,
        }
    }

    fn write(&mut self, word: &crate::Word) {
        match locate(word) {
            Some(p) => {
                if word.value.is_none() && plain_glob(&word.text) {
                    self.write_globs.push((word.text.clone(), p.clone()));
                }
                self.writes.push(p)
            }
            None => self.unknown = true,
        }
    }
}

/// Option values are not told apart from operands (a wrong guess would
/// hide a path): `head -n 5 f` reads `5` and `f`. Only a write option's
/// value (`sort -o F`) is taken out, as a write; an option giving the
/// pattern or program (`grep -e P`) means no operand is one.
fn spec_paths(spec: &Spec, args: &[crate::Word], paths: &mut CommandPaths) {
    let mut operands = Vec::new();
    let mut leading = spec.leading;
    let mut options_done = false;
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        let value = word.value.as_deref();
        match value {
            Some("--") if !options_done => options_done = true,
            Some(a) if !options_done && a.starts_with('-') && a.len() > 1 => {
                let opt = a.split_once('=').map_or(a, |(o, _)| o);
                if spec.program_options.iter().any(|o| a.starts_with(o)) {
                    leading = 0;
                }
                if spec.write_options.contains(&a) {
                    if let Some(target) = iter.next() {
                        paths.write(target);
                    }
                } else if let Some(o) = spec.write_options.iter().find(|o| {
                    (o.starts_with("--") && opt == **o && a.len() > opt.len())
                        || (!o.starts_with("--") && a.len() > o.len() && a.starts_with(*o))
                }) {
                    let target = a[o.len()..].trim_start_matches('=');
                    paths.write(&literal_word(target));
                }
            }
            _ => operands.push(word),
        }
    }
    let operands = &operands[leading.min(operands.len())..];
    if operands.is_empty() && spec.reads_cwd {
        paths.reads.push(".".into());
    }
    let last = operands.len().saturating_sub(1);
    for (n, word) in operands.iter().enumerate() {
        let written = match spec.role {
            Role::Read => false,
            Role::Write => true,
            Role::LastWritten => n == last && n > 0,
            Role::ReadThenWrite => n == 1,
        };
        if written {
            paths.write(word);
        } else {
            paths.read(word);
        }
    }
}

fn literal_word(value: &str) -> crate::Word {
    crate::Word {
        text: value.to_string(),
        value: Some(value.to_string()),
    }
}

/// `find [-H|-L|-P] [ROOT…] [EXPRESSION]`: the roots (`.` when none).
fn find_paths(args: &[crate::Word], paths: &mut CommandPaths) {
    let mut roots = 0;
    for word in args {
        match word.value.as_deref() {
            Some("-H" | "-L" | "-P") if roots == 0 => {}
            Some(a) if a.starts_with('-') || a == "(" || a == "!" => break,
            _ => {
                roots += 1;
                paths.read(word);
            }
        }
    }
    if roots == 0 {
        paths.reads.push(".".into());
    }
}

/// git reads the repository of `-C DIR` (else the current directory), and
/// writes `--output=F`.
fn git_paths(args: &[crate::Word], paths: &mut CommandPaths) {
    let mut dir = None;
    for pair in args.windows(2) {
        if pair[0].value.as_deref() == Some("-C") {
            dir = Some(pair[1].clone());
        }
    }
    match dir {
        Some(d) => paths.read(&d),
        None => paths.reads.push(".".into()),
    }
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        match word.value.as_deref() {
            Some("--output" | "-o") => {
                if let Some(target) = iter.next() {
                    paths.write(target);
                }
            }
            Some(a) if a.starts_with("--output=") => {
                paths.write(&literal_word(&a["--output=".len()..]));
            }
            _ => {}
        }
    }
}

/// Where a word points (see the module docs); `None` when unknown.
fn locate(word: &crate::Word) -> Option<String> {
    let unquoted_tilde = word.text.starts_with('~');
    match &word.value {
        Some(value) if unquoted_tilde => {
            (value == "~" || value.starts_with("~/")).then(|| value.clone())
        }
        Some(value) if value.starts_with('~') => Some(format!("./{value}")),
        Some(value) => Some(value.clone()),
        None => glob_root(&word.text),
    }
}

/// A glob whose text is its pattern: only `*`, `?` and `[…]` special, no
/// quote, escape, expansion, brace or tilde.
pub(crate) fn plain_glob(text: &str) -> bool {
    text.contains(['*', '?', '[']) && !text.contains(['\'', '"', '\\', '$', '`', '{', '}', '~'])
}

/// The directory a glob cannot leave: the text up to the last `/` before
/// the first glob character, when that part is plain (no quote, escape or
/// expansion); `.` for a glob in the current directory.
fn glob_root(text: &str) -> Option<String> {
    let first_glob = text.find(['*', '?', '[', '{'])?;
    let head = &text[..first_glob];
    if head.contains(['$', '`', '\'', '"', '\\']) {
        return None;
    }
    match head.rfind('/') {
        Some(0) => Some("/".into()),
        Some(slash) => {
            let dir = &head[..slash];
            (!dir.starts_with('~') || dir == "~" || dir.starts_with("~/")).then(|| dir.to_string())
        }
        None if head.starts_with('~') => None,
        None => Some(".".into()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
