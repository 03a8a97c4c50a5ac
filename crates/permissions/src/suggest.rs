//! The rule "Yes, and don't ask again" offers for a call
//! ([`suggested_rule`]): for a shell command a prefix rule read from its
//! parse (`python3 -m unittest -v` → `Bash(python3 -m unittest:*)`), else
//! the host, the file written, the directory read, or the tool.
//!
//! A command's prefix is its program and the words that name what it does
//! (`git commit`, `npm run lint`, `python3 -m unittest`, `python3
//! manage.py test`), stopping at the first word that looks like an
//! argument: a flag, a path, a number, a quoted string, anything not a
//! plain lower-case word (a plain utility's words are all arguments:
//! `touch marker` → `touch:*`). Where a prefix would allow far more than was
//! asked — a program that runs its arguments (`bash`, `sudo`, `xargs`), a
//! destructive one (`rm`, `dd`), one whose script can run commands or
//! write anywhere (`sed`, `awk`, `tar`), an interpreter without a script, a tool of
//! many subcommands whose subcommand cannot be read (`git -C x push`) —
//! the exact command is offered instead. In a compound command the
//! read-only parts (which need no rule in the sandbox) are left out; the
//! others must all give the same rule, else none is offered. Every rule
//! offered is checked to cover each part it was made for, through the
//! matcher the policy uses: a prefix rule still matches one simple command
//! at a time, so `Bash(python3 -m unittest:*)` never allows
//! `python3 -m unittest; rm -rf /`.

use orbit_shell::{DESTRUCTIVE_COMMANDS, SimpleCommand, runs_its_arguments};
use orbit_tool::CallFacts;

use crate::matcher::part_is_read_only;
use crate::rule::{PermissionRule, Specifier};

/// Interpreters: a prefix of the bare program would allow any code, so
/// their prefix needs `-m MODULE` or a script.
const INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "node",
    "nodejs",
    "ruby",
    "perl",
    "php",
    "deno",
    "bun",
    "lua",
    "Rscript",
    "osascript",
    "pwsh",
    "powershell",
    "tclsh",
];

/// Programs of many subcommands: without a readable subcommand their
/// prefix would allow every one of them (`git push --force` too).
const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "git",
    "npm",
    "pnpm",
    "yarn",
    "cargo",
    "go",
    "docker",
    "podman",
    "kubectl",
    "gh",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "dotnet",
    "terraform",
    "helm",
    "apt",
    "apt-get",
    "brew",
    "systemctl",
    "make",
    "gradle",
    "mvn",
];

/// Utilities whose arguments are never subcommands (`touch marker` is
/// `touch` of a file named `marker`): their prefix is the program alone.
const PLAIN_PROGRAMS: &[&str] = &[
    "touch",
    "cat",
    "ls",
    "mkdir",
    "cp",
    "ln",
    "echo",
    "printf",
    "grep",
    "egrep",
    "rg",
    "head",
    "tail",
    "wc",
    "chmod",
    "chown",
    "sed",
    "awk",
    "sort",
    "uniq",
    "cut",
    "tr",
    "diff",
    "find",
    "stat",
    "file",
    "du",
    "df",
    "tee",
    "sleep",
    "which",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "tar",
    "zip",
    "unzip",
    "gzip",
    "gunzip",
    "curl",
    "wget",
    "less",
    "more",
    "cd",
    "pwd",
    "jq",
    "xxd",
    "od",
    "md5sum",
    "sha256sum",
    "tree",
    "date",
];

/// Programs whose script or options can run commands or write any file
/// (`sed '1e CMD'`, `sed 's/x/y/w /etc/f'`, awk's `system()`, `tar
/// --to-command`, `!cmd` in an editor or pager): a prefix of them would
/// allow whatever such a script does, so the exact command is offered.
const SCRIPTED_PROGRAMS: &[&str] = &[
    "sed", "awk", "gawk", "mawk", "nawk", "ed", "ex", "vi", "vim", "tar", "less", "more", "man",
];

/// First subcommands that take a second one (`npm run lint`,
/// `docker compose up`, `git remote add`).
const RUNNERS: &[&str] = &[
    "run",
    "exec",
    "x",
    "compose",
    "remote",
    "stash",
    "worktree",
    "submodule",
    "workspace",
];

/// How many words after the program (or script) a prefix takes at most.
const SUBCOMMAND_WORDS_MAX: usize = 2;

/// The rule that would allow calls like this one again: a command's prefix
/// (`Bash(npm test:*)`, see the module docs), the host
/// (`WebFetch(domain:docs.rs)`), the file written (`Edit(//abs/file)`) or
/// the directory read (`Read(//abs/dir/**)`), else the tool. None when no
/// rule can say it.
pub fn suggested_rule(tool_name: &str, facts: &CallFacts) -> Option<String> {
    if let Some(command) = &facts.command {
        return command_rule(tool_name, command);
    }
    let candidate = if let Some(host) = facts.network.as_deref().and_then(crate::matcher::url_host)
    {
        format!("{tool_name}(domain:{host})")
    } else if let Some(path) = facts.writes.first() {
        format!("Edit(/{})", globset::escape(&path.to_string_lossy()))
    } else if let Some(path) = facts.reads.first() {
        let dir = if path.is_dir() {
            path.as_path()
        } else {
            path.parent().unwrap_or(path)
        };
        format!("Read(/{}/**)", globset::escape(&dir.to_string_lossy()))
    } else {
        tool_name.to_string()
    };
    let rule = PermissionRule::parse(&candidate).ok()?;
    // A specifier that does not mean what was suggested is not offered.
    let meant = matches!(
        (&rule.specifier, &facts.network),
        (Specifier::Domain(_), Some(_))
            | (
                Specifier::WritePath(_) | Specifier::ReadPath(_) | Specifier::Whole,
                None
            )
    );
    meant.then_some(rule.text)
}

/// A shell command's rule (see the module docs).
fn command_rule(tool_name: &str, command: &str) -> Option<String> {
    let script = orbit_shell::parse(command).ok()?;
    if script.has_substitution() {
        return None;
    }
    let commands = script.simple_commands().filter(|c| !c.is_empty())?;
    let needed: Vec<&SimpleCommand> = commands.iter().filter(|c| !part_is_read_only(c)).collect();
    let parts = if needed.is_empty() {
        commands.iter().collect()
    } else {
        needed
    };
    let mut specs = parts
        .iter()
        .map(|c| command_spec(c))
        .collect::<Option<Vec<String>>>()?;
    specs.sort();
    specs.dedup();
    let [spec] = specs.as_slice() else {
        return None;
    };
    let rule = PermissionRule::parse(&format!("{tool_name}({spec})")).ok()?;
    let Specifier::Command(pattern) = &rule.specifier else {
        return None;
    };
    parts
        .iter()
        .all(|c| pattern.matches_simple(c))
        .then_some(rule.text)
}

/// One simple command's specifier: `words:*` or the exact words.
fn command_spec(command: &SimpleCommand) -> Option<String> {
    if !command.assignments.is_empty()
        || command.has_substitution
        || !command.redirects.iter().all(|r| r.touches_no_file())
    {
        return None;
    }
    let values: Vec<Option<&str>> = command.words.iter().map(|w| w.value.as_deref()).collect();
    let name = (*values.first()?)?;
    let base = name.rsplit('/').next().unwrap_or(name);
    let exact = || -> Option<String> {
        let words: Option<Vec<&str>> = values.iter().copied().collect();
        quote_words(&words?)
    };
    if runs_its_arguments(name)
        || DESTRUCTIVE_COMMANDS.contains(&base)
        || SCRIPTED_PROGRAMS.contains(&base)
    {
        return exact();
    }
    let rest = &values[1..];
    let mut prefix = vec![name];
    let mut at = 0;
    if is_interpreter(base) {
        match rest {
            [Some("-m"), Some(module), ..] if is_module(module) => {
                prefix.extend(["-m", module]);
                return prefix_spec(&prefix);
            }
            [Some(script), ..] if is_script(script) => {
                prefix.push(script);
                at = 1;
            }
            _ => return exact(),
        }
    }
    let words_after = if PLAIN_PROGRAMS.contains(&base) {
        0
    } else {
        SUBCOMMAND_WORDS_MAX
    };
    let subcommands = rest[at..]
        .iter()
        .map_while(|w| w.filter(|w| is_subcommand(w)))
        .take(words_after);
    for (i, word) in subcommands.enumerate() {
        if i > 0 && !prefix.last().is_some_and(|last| RUNNERS.contains(last)) {
            break;
        }
        prefix.push(word);
    }
    if prefix.len() == 1 && !rest.is_empty() && SUBCOMMAND_PROGRAMS.contains(&base) {
        return exact();
    }
    prefix_spec(&prefix)
}

fn prefix_spec(words: &[&str]) -> Option<String> {
    Some(format!("{}:*", quote_words(words)?))
}

/// The words as a specifier reads them back: plain words as they are,
/// others in single quotes; None for a word a specifier cannot hold.
fn quote_words(words: &[&str]) -> Option<String> {
    let quoted: Option<Vec<String>> = words
        .iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-./@%+=,".contains(c));
            if plain {
                Some(w.to_string())
            } else if w.contains(['\'', '\0']) {
                None
            } else {
                Some(format!("'{w}'"))
            }
        })
        .collect();
    Some(quoted?.join(" "))
}

fn is_interpreter(base: &str) -> bool {
    INTERPRETERS.contains(&base)
        || base
            .strip_prefix("python")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// A subcommand-like word: lower-case letters, digits and `-`, starting
/// with a letter (`test`, `run`, `unittest`, `build-docs`).
fn is_subcommand(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_lowercase())
        && word
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// `-m`'s module: `unittest`, `http.server`, `my_pkg.cli`.
fn is_module(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// A script an interpreter runs: a relative path inside the project
/// (`manage.py`, `scripts/build.js`), no flag, no `..`.
fn is_script(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with(['-', '/', '~'])
        && !word.split('/').any(|part| part == "..")
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
