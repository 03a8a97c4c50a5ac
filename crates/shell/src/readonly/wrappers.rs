//! Commands that run another command (`env`, `nohup`, `time`, `nice`,
//! `timeout`, `stdbuf`, `command`): where the wrapped command starts, so
//! the classifier (and the path finder) can judge *it*. A wrapper whose
//! options are unknown or could change what runs (`env -S`, `env -C`,
//! `env PATH=…`) is refused. Other runners (`xargs`, `exec`, `eval`,
//! `source`, `.`, `builtin`, `sudo`, shells) are simply not read-only.

use crate::words::Arg;

/// What a wrapper does with its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wrapped {
    /// Not a wrapper.
    NotWrapper,
    /// Runs the command named by the argument at this index.
    Runs(usize),
    /// Runs nothing (`env` printing the environment, `command -v ls`).
    RunsNothing,
    /// An option or argument the classifier does not vouch for.
    Refused,
}

/// Where the command wrapped by `name` starts in `args`.
pub(crate) fn wrapped(name: &str, args: &[Arg]) -> Wrapped {
    let spec = match name {
        "env" => return env(args),
        "command" => return command(args),
        "nohup" => Spec::default(),
        "time" => Spec {
            flags: &["-p"],
            ..Spec::default()
        },
        "nice" => Spec {
            flags: &[],
            with_value: &["-n"],
            long_with_value: &["--adjustment"],
            numeric_flags: true,
            alone_runs_nothing: true,
            ..Spec::default()
        },
        "timeout" => Spec {
            flags: &["--foreground", "--preserve-status", "-v", "--verbose"],
            with_value: &["-s", "-k"],
            long_with_value: &["--signal", "--kill-after"],
            leading_operands: 1,
            ..Spec::default()
        },
        "stdbuf" => Spec {
            with_value: &["-i", "-o", "-e"],
            long_with_value: &["--input", "--output", "--error"],
            ..Spec::default()
        },
        _ => return Wrapped::NotWrapper,
    };
    spec.inner(args)
}

/// A wrapper's options: flags, options taking a value (`-n 5`, `-n5`,
/// `--adjustment=5`), and operands before the command (timeout's duration).
#[derive(Default)]
struct Spec {
    flags: &'static [&'static str],
    with_value: &'static [&'static str],
    long_with_value: &'static [&'static str],
    /// `nice -5`.
    numeric_flags: bool,
    leading_operands: usize,
    /// Without a command it only prints something (`nice`).
    alone_runs_nothing: bool,
}

impl Spec {
    fn inner(&self, args: &[Arg]) -> Wrapped {
        let mut i = 0;
        let mut operands = self.leading_operands;
        while let Some(arg) = args.get(i) {
            let Some(a) = arg.literal() else {
                return Wrapped::Refused;
            };
            if a == "--" {
                i += 1;
                break;
            }
            if !a.starts_with('-') || a == "-" {
                if operands == 0 {
                    break;
                }
                operands -= 1;
                i += 1;
                continue;
            }
            let value_attached = self
                .with_value
                .iter()
                .any(|o| a.len() > o.len() && a.starts_with(o))
                || self
                    .long_with_value
                    .iter()
                    .any(|o| a.strip_prefix(o).is_some_and(|rest| rest.starts_with('=')));
            if self.flags.contains(&a) || value_attached {
                i += 1;
            } else if self.with_value.contains(&a) || self.long_with_value.contains(&a) {
                i += 2;
            } else if self.numeric_flags && a[1..].bytes().all(|b| b.is_ascii_digit()) {
                i += 1;
            } else {
                return Wrapped::Refused;
            }
        }
        while operands > 0 {
            // Leading operands after `--`.
            if args.get(i).and_then(Arg::literal).is_none() {
                return Wrapped::Refused;
            }
            operands -= 1;
            i += 1;
        }
        if i < args.len() {
            Wrapped::Runs(i)
        } else if self.alone_runs_nothing {
            Wrapped::RunsNothing
        } else {
            Wrapped::Refused
        }
    }
}

/// `env [-i] [-0] [-u NAME] [NAME=VALUE]… [COMMAND [ARG]…]`; `-C`/`-S` and
/// assignments other than locale/format ones are refused.
fn env(args: &[Arg]) -> Wrapped {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let Some(a) = arg.literal() else {
            return Wrapped::Refused;
        };
        match a {
            "-i" | "--ignore-environment" | "-0" | "--null" | "-" => i += 1,
            "-u" => i += 2,
            "--" => {
                i += 1;
                break;
            }
            a if a.starts_with("--unset=") || (a.starts_with("-u") && a.len() > 2) => i += 1,
            a if a.starts_with('-') => return Wrapped::Refused,
            a if a.contains('=') => {
                if !super::safe_assignment(a) {
                    return Wrapped::Refused;
                }
                i += 1;
            }
            _ => break,
        }
    }
    while let Some(a) = args.get(i).and_then(Arg::literal) {
        if !a.contains('=') {
            break;
        }
        if !super::safe_assignment(a) {
            return Wrapped::Refused;
        }
        i += 1;
    }
    match args.get(i) {
        None => Wrapped::RunsNothing,
        Some(Arg::Literal(_)) => Wrapped::Runs(i),
        Some(Arg::Opaque) => Wrapped::Refused,
    }
}

/// `command [-p] NAME …` runs NAME; `command -v`/`-V` only describe it.
fn command(args: &[Arg]) -> Wrapped {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg.literal() {
            Some("-p") => i += 1,
            Some("-v" | "-V" | "-pv" | "-pV" | "-vp" | "-Vp") => {
                return if args.iter().all(|a| a.literal().is_some()) {
                    Wrapped::RunsNothing
                } else {
                    Wrapped::Refused
                };
            }
            Some("--") => {
                i += 1;
                break;
            }
            Some(a) if a.starts_with('-') => return Wrapped::Refused,
            Some(_) => break,
            None => return Wrapped::Refused,
        }
    }
    if i < args.len() {
        Wrapped::Runs(i)
    } else {
        Wrapped::RunsNothing
    }
}
