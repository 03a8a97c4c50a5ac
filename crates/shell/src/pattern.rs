//! Command patterns, as permission rules write them (`Bash(SPEC)`), matched
//! word by word against every simple command of a parsed command line.
//!
//! A [`CommandPattern`] has one of three forms:
//! - exact, `git status`: a command with exactly these words;
//! - prefix, `git log:*` or `git log *` (a trailing ` *` that is the only
//!   wildcard): these words, then any arguments (none too). With `:*` the
//!   last word may also go on with `:` (`npm run test:*` covers
//!   `npm run test:unit`, as orbit always matched it);
//! - wildcard, `git * main`, `* --version`, `ls*`: `*` spans any characters,
//!   across words (`ls*` covers `lsof`; `ls *` does not).
//!
//! Words of a pattern are read like shell words (quotes and backslashes);
//! a pattern with an unquoted operator (`;`, `|`, `&`, `<`, `>`, `(`, `)`),
//! an expansion (`$`, `` ` ``) or an unterminated quote is not a pattern.
//!
//! A command line matches when it parses, holds no command or process
//! substitution anywhere, decomposes into simple commands
//! ([`crate::Script::simple_commands`]), and *every* one of them matches:
//! `git status; rm -rf ~` never matches `git status`. A simple command
//! matches only without assignment prefixes and without redirections that
//! touch a file ([`crate::Redirect::touches_no_file`]); the words a pattern
//! names must be static (an argument after a prefix may be `$x` or a glob:
//! it expands to arguments only). When a wildcard covers the command name,
//! commands that run their arguments as a command (`bash`, `sudo`, `env`,
//! …) never match: `* --version` must not vouch for
//! `bash -c 'rm -rf ~' --version`.

use crate::{SimpleCommand, parse};

/// Commands that run (part of) their arguments as another command: the
/// one list the permission matcher (a deny rule about `rm` cannot see the
/// `rm` they run: unsure, so the call asks) and the destructive heuristic
/// read. Builtins that run text from their arguments (`trap`, `mapfile
/// -C`, `alias`) are analysed instead (`builtins`).
const RUNS_ITS_ARGUMENTS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "fish",
    "csh",
    "tcsh",
    "busybox",
    "eval",
    "exec",
    "source",
    ".",
    "env",
    "xargs",
    "sudo",
    "doas",
    "su",
    "command",
    "builtin",
    "nohup",
    "time",
    "nice",
    "ionice",
    "timeout",
    "watch",
    "ssh",
    "parallel",
    "script",
    "stdbuf",
    "setsid",
    "chroot",
    "unshare",
    "nsenter",
    "strace",
    "ltrace",
    "flock",
    "find",
    "taskset",
    "prlimit",
    "setpriv",
    "chrt",
    "numactl",
    "cgexec",
    "runuser",
    "pkexec",
    "sg",
    "setarch",
    "linux32",
    "linux64",
    "fakeroot",
    "faketime",
    "firejail",
    "bwrap",
    "systemd-run",
    "unbuffer",
    "catchsegv",
    "valgrind",
    "torsocks",
    "proxychains",
    "proxychains4",
    "xvfb-run",
    "dbus-run-session",
    "mpirun",
    "eatmydata",
    "chronic",
    "sem",
    "tmux",
    "screen",
    "dtach",
    "expect",
    "gdb",
];

/// A pattern for shell commands (see the module docs for the forms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPattern {
    form: Form,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Form {
    Exact(Vec<String>),
    Prefix { words: Vec<String>, colon: bool },
    Wildcard(Vec<Vec<Piece>>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    Char(char),
    Star,
}

/// Separates words when a wildcard pattern is matched against a command:
/// no argument can hold a NUL byte.
const WORD_SEPARATOR: char = '\0';

impl CommandPattern {
    /// Reads a rule's specifier; `None` when it is not a pattern (empty, an
    /// unquoted operator or expansion, an unterminated quote).
    pub fn parse(spec: &str) -> Option<Self> {
        let spec = spec.trim();
        if let Some(prefix) = spec.strip_suffix(":*") {
            let words = static_words(split_spec(prefix)?)?;
            return (!words.is_empty()).then_some(Self {
                form: Form::Prefix { words, colon: true },
            });
        }
        let mut words = split_spec(spec)?;
        if words.is_empty() {
            return None;
        }
        let stars = words
            .iter()
            .flatten()
            .filter(|p| **p == Piece::Star)
            .count();
        let form = match (stars, words.last().map(Vec::as_slice)) {
            (0, _) => Form::Exact(static_words(words)?),
            (1, Some([Piece::Star])) if words.len() > 1 => {
                words.pop();
                Form::Prefix {
                    words: static_words(words)?,
                    colon: false,
                }
            }
            _ => Form::Wildcard(words),
        };
        Some(Self { form })
    }

    /// The prefix pattern of these words (`git log` → `git log *`); `None`
    /// for no words.
    pub fn prefix(words: &[&str]) -> Option<Self> {
        (!words.is_empty()).then(|| Self {
            form: Form::Prefix {
                words: words.iter().map(|w| w.to_string()).collect(),
                colon: false,
            },
        })
    }

    /// True when `command` parses into one or more simple commands, holds
    /// no substitution, and every simple command matches
    /// ([`Self::matches_simple`]).
    pub fn matches(&self, command: &str) -> bool {
        let Ok(script) = parse(command) else {
            return false;
        };
        if script.has_substitution() {
            return false;
        }
        match script.simple_commands() {
            Some(commands) if !commands.is_empty() => {
                commands.iter().all(|c| self.matches_simple(c))
            }
            _ => false,
        }
    }

    /// True when one simple command matches (see the module docs).
    pub fn matches_simple(&self, command: &SimpleCommand) -> bool {
        if !command.assignments.is_empty()
            || command.has_substitution
            || !command.redirects.iter().all(|r| r.touches_no_file())
        {
            return false;
        }
        let values: Option<Vec<&str>> = command.words.iter().map(|w| w.value.as_deref()).collect();
        match values {
            Some(values) => self.matches_words(&values),
            // Unknown words only after what a prefix names: they expand to
            // arguments only.
            None => match &self.form {
                Form::Prefix { words, .. } => {
                    let known: Option<Vec<&str>> = command
                        .words
                        .iter()
                        .take(words.len())
                        .map(|w| w.value.as_deref())
                        .collect();
                    known.is_some_and(|known| {
                        known.len() == words.len() && self.matches_words(&known)
                    })
                }
                _ => false,
            },
        }
    }

    /// True when the words of a command (its name, then its arguments, as
    /// the shell passes them) match the pattern, whatever surrounds the
    /// command (assignments, redirections). Deny rules use this: a
    /// `Bash(rm:*)` deny covers `X=1 rm -rf a > log` too.
    pub fn matches_words(&self, values: &[&str]) -> bool {
        match &self.form {
            Form::Exact(words) => {
                values.len() == words.len() && words.iter().zip(values).all(|(w, v)| w == v)
            }
            Form::Prefix { words, colon } => {
                let Some((last, init)) = words.split_last() else {
                    return false;
                };
                values.len() >= words.len()
                    && init.iter().zip(values).all(|(w, v)| w == v)
                    && values.get(init.len()).is_some_and(|v| {
                        v == last
                            || (*colon
                                && v.strip_prefix(last.as_str())
                                    .is_some_and(|rest| rest.starts_with(':')))
                    })
            }
            Form::Wildcard(pattern) => {
                let name_is_wild = pattern.first().is_some_and(|w| w.contains(&Piece::Star));
                if name_is_wild && values.first().is_some_and(|name| runs_its_arguments(name)) {
                    return false;
                }
                let subject: Vec<char> = values.join(&WORD_SEPARATOR.to_string()).chars().collect();
                let pattern: Vec<Piece> = pattern
                    .join(&Piece::Char(WORD_SEPARATOR))
                    .into_iter()
                    .collect();
                glob_match(&pattern, &subject)
            }
        }
    }
}

/// True when `name` (a command name, a path's last component counts) runs
/// (part of) its arguments as another command: `bash`, `sudo`, `env`,
/// `xargs`, `find`, `nohup`, `time`, … A rule about `rm` cannot see the
/// `rm` such a command runs.
pub fn runs_its_arguments(name: &str) -> bool {
    RUNS_ITS_ARGUMENTS.contains(&name.rsplit('/').next().unwrap_or(name))
}

/// True when every simple command of `command` starts with the words of
/// `prefix` (`["git", "log"]` covers `git log --oneline && git log -1`),
/// under the rules of [`CommandPattern::matches`]: unparsable, a
/// substitution, a redirection to a file, an assignment prefix or anything
/// not a simple command → false. An empty prefix matches nothing.
pub fn command_matches_prefix(command: &str, prefix: &[&str]) -> bool {
    CommandPattern::prefix(prefix).is_some_and(|p| p.matches(command))
}

/// The words of a pattern without wildcards, as strings; `None` if one has
/// a `*`.
fn static_words(words: Vec<Vec<Piece>>) -> Option<Vec<String>> {
    words
        .into_iter()
        .map(|w| {
            w.into_iter()
                .map(|p| match p {
                    Piece::Char(c) => Some(c),
                    Piece::Star => None,
                })
                .collect()
        })
        .collect()
}

/// Splits a specifier into shell-like words; an unquoted `*` is a wildcard.
fn split_spec(spec: &str) -> Option<Vec<Vec<Piece>>> {
    let mut words = Vec::new();
    let mut word: Vec<Piece> = Vec::new();
    let mut in_word = false;
    let mut chars = spec.chars();
    while let Some(c) = chars.next() {
        match c {
            WORD_SEPARATOR => return None,
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
                continue;
            }
            '*' => word.push(Piece::Star),
            '\\' => word.push(Piece::Char(chars.next()?)),
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c => word.push(Piece::Char(c)),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '$' | '`' => return None,
                    '\\' => match chars.next()? {
                        c @ ('$' | '`' | '"' | '\\') => word.push(Piece::Char(c)),
                        '\n' => {}
                        c => word.extend([Piece::Char('\\'), Piece::Char(c)]),
                    },
                    c => word.push(Piece::Char(c)),
                }
            },
            ';' | '&' | '|' | '<' | '>' | '(' | ')' | '$' | '`' => return None,
            c => word.push(Piece::Char(c)),
        }
        in_word = true;
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

/// `*` matches any run of characters (word separators included).
fn glob_match(pattern: &[Piece], subject: &[char]) -> bool {
    let (mut p, mut s) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while s < subject.len() {
        match pattern.get(p) {
            Some(Piece::Star) => {
                backtrack = Some((p, s));
                p += 1;
            }
            Some(Piece::Char(c)) if *c == subject[s] => {
                p += 1;
                s += 1;
            }
            _ => match backtrack {
                Some((star, from)) => {
                    p = star + 1;
                    s = from + 1;
                    backtrack = Some((star, from + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|piece| *piece == Piece::Star)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
