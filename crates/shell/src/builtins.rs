//! Bash builtins that run text from their arguments without naming a
//! command: `trap 'CMD' EXIT`, `mapfile -C CMD`, `alias NAME='CMD'`
//! (run once `expand_aliases` is on), and those that change what a name
//! runs or evaluate a subscript (`hash -p PATH NAME`, `enable`,
//! `printf -v 'a[$(CMD)]'`).
//!
//! Flow: a [`SimpleCommand`] → [`SimpleCommand::argument_code`] → the
//! command texts it makes bash run ([`ArgumentCode::Scripts`], which a deny
//! rule's matcher parses and checks like the command itself) or
//! [`ArgumentCode::Unknown`] when that cannot be told (the call asks).

use crate::SimpleCommand;

/// What a simple command makes bash run from its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgumentCode {
    /// Nothing beyond the command itself.
    Nothing,
    /// These texts, each run as a command line (a trap's action, mapfile's
    /// callback, an alias's value).
    Scripts(Vec<String>),
    /// Something that cannot be analysed: a computed trap action, `hash -p`
    /// (a name then runs another program), `enable` (loads or hides
    /// builtins), a substitution in a word bash evaluates as a subscript.
    Unknown,
}

impl ArgumentCode {
    /// `scripts` as the code they are: [`ArgumentCode::Nothing`] when none.
    fn scripts(scripts: Vec<String>) -> Self {
        if scripts.is_empty() {
            Self::Nothing
        } else {
            Self::Scripts(scripts)
        }
    }
}

/// Builtins that read some arguments as variable names (evaluating a
/// subscript, `$(…)` in it included) or as arithmetic.
const NAME_EVALUATING: &[&str] = &[
    "printf",
    "read",
    "unset",
    "let",
    "test",
    "wait",
    "getopts",
    "mapfile",
    "readarray",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "shift",
    "return",
    "exit",
    "ulimit",
    "kill",
];

impl SimpleCommand {
    /// What this command makes bash run from its arguments (see the
    /// module docs).
    pub fn argument_code(&self) -> ArgumentCode {
        let Some(name) = self.name() else {
            return ArgumentCode::Nothing;
        };
        let args: Vec<Option<&str>> = self.words[1..].iter().map(|w| w.value.as_deref()).collect();
        if NAME_EVALUATING.contains(&name)
            && args
                .iter()
                .any(|a| a.is_some_and(|a| a.contains("$(") || a.contains('`')))
        {
            return ArgumentCode::Unknown;
        }
        match name {
            "trap" => trap(&args),
            "mapfile" | "readarray" => mapfile(&args),
            "alias" => alias(&args),
            "hash" => {
                let rebinds = args.iter().any(|a| {
                    a.is_none_or(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('p'))
                });
                if rebinds {
                    ArgumentCode::Unknown
                } else {
                    ArgumentCode::Nothing
                }
            }
            "enable" if !args.is_empty() => ArgumentCode::Unknown,
            "let" if args.iter().any(Option::is_none) => ArgumentCode::Unknown,
            _ => ArgumentCode::Nothing,
        }
    }
}

/// `trap [-lp] [[ACTION] SIGNAL…]`: with two or more operands the first is
/// the action (`-` or empty: reset or ignore).
fn trap(args: &[Option<&str>]) -> ArgumentCode {
    let mut rest = args;
    match rest.first() {
        Some(Some("-p" | "-l" | "-lp" | "-pl")) => return ArgumentCode::Nothing,
        Some(Some("--")) => rest = &rest[1..],
        _ => {}
    }
    match rest {
        [] | [_] => ArgumentCode::Nothing,
        [Some("-" | ""), ..] => ArgumentCode::Nothing,
        [Some(action), ..] => ArgumentCode::Scripts(vec![action.to_string()]),
        [None, ..] => ArgumentCode::Unknown,
    }
}

/// `mapfile [-d D] [-n N] [-O O] [-s S] [-t] [-u FD] [-C CALLBACK [-c Q]]
/// [ARRAY]`: the callback runs as `CALLBACK INDEX LINE`.
fn mapfile(args: &[Option<&str>]) -> ArgumentCode {
    let mut scripts = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let Some(a) = arg else {
            return ArgumentCode::Unknown;
        };
        if let Some(attached) = a.strip_prefix("-C") {
            let callback = if attached.is_empty() {
                i += 1;
                match args.get(i) {
                    Some(Some(c)) => *c,
                    _ => return ArgumentCode::Unknown,
                }
            } else {
                attached
            };
            scripts.push(callback.to_string());
        } else if matches!(*a, "-d" | "-n" | "-O" | "-s" | "-u" | "-c") {
            i += 1;
        } else if a.starts_with('-') && a[1..].contains('C') {
            // `-tC CALLBACK`: a cluster ending in the callback option.
            return ArgumentCode::Unknown;
        }
        i += 1;
    }
    ArgumentCode::scripts(scripts)
}

/// `alias [-p] [NAME[=VALUE]…]`: each value is command text.
fn alias(args: &[Option<&str>]) -> ArgumentCode {
    let mut scripts = Vec::new();
    for arg in args {
        match arg {
            None => return ArgumentCode::Unknown,
            Some(a) => {
                if let Some((_, value)) = a.split_once('=') {
                    scripts.push(value.to_string());
                }
            }
        }
    }
    ArgumentCode::scripts(scripts)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::ArgumentCode::{self, *};
    use crate::parse;

    fn code(src: &str) -> ArgumentCode {
        let commands = parse(src).unwrap().simple_commands().unwrap();
        commands[0].argument_code()
    }

    fn scripts(list: &[&str]) -> ArgumentCode {
        Scripts(list.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn builtins_that_run_their_arguments() {
        let table: &[(&str, ArgumentCode)] = &[
            ("trap 'rm -rf x' EXIT", scripts(&["rm -rf x"])),
            ("trap -- 'rm x' INT TERM", scripts(&["rm x"])),
            ("trap \"rm $f\" EXIT", Unknown),
            ("trap - EXIT", Nothing),
            ("trap '' INT", Nothing),
            ("trap -p", Nothing),
            ("trap", Nothing),
            ("mapfile -C 'rm -rf x' -c 1 arr", scripts(&["rm -rf x"])),
            ("readarray -Crm arr", scripts(&["rm"])),
            ("mapfile -t lines", Nothing),
            ("mapfile -tC rm arr", Unknown),
            ("hash -p /bin/rm ls", Unknown),
            ("hash -r", Nothing),
            ("hash", Nothing),
            ("alias ls='rm -rf x'", scripts(&["rm -rf x"])),
            ("alias", Nothing),
            ("alias -p", Nothing),
            ("enable -f ./x.so x", Unknown),
            ("printf -v 'a[$(rm x)]' y", Unknown),
            ("read 'a[`rm x`]'", Unknown),
            ("printf '%s\\n' x", Nothing),
            ("echo '$(rm x)'", Nothing),
            ("rm -rf x", Nothing),
        ];
        for (src, want) in table {
            assert_eq!(code(src), *want, "{src:?}");
        }
    }
}
