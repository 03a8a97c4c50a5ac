//! Whether the files a script names as written are all it can write
//! ([`crate::Script::writes_are_named`]): the Bash tool may then say "this
//! command changed no file" when those files are byte-identical after the
//! run. And whether it changes its directory
//! ([`crate::Script::changes_directory`]): then the relative paths it
//! names are not where the session's cwd puts them.
//!
//! A script's writes are all named when the walk knew every construct,
//! nothing evaluates code, every path is known, and every part is a test
//! or a command called by its bare name with safe assignments only and
//! redirections that are descriptors, inline input or named files, which
//! is either read-only by the read-only rules, or one of [`WRITERS`] with
//! no option that writes a path its operands do not show (`-t DIR`,
//! `--backup`, `-S SUFFIX`), or `sed -i` (no backup suffix) with inert
//! programs (no `w` file, no `e`); a plain glob (`*.py`) may be one of
//! their files, never an option or a program. `cd`, `pushd` and `popd`
//! never are.

use super::programs::sed_call;
use super::{args_of, rules, safe_assignment};
use crate::commands::{Part, Parts};
use crate::expansions::Hazards;
use crate::paths::{CommandPaths, plain_glob};
use crate::{Redirect, SimpleCommand};

/// Commands whose every written file is among their operands (the paths
/// analysis names them, `crate::paths`), given [`hides_a_write`] is false.
const WRITERS: &[&str] = &[
    "tee", "touch", "mkdir", "rm", "rmdir", "unlink", "truncate", "shred", "mv", "cp", "ln",
    "install", "sort", "uniq",
];

/// Commands that change the shell's directory.
const DIRECTORY_CHANGERS: &[&str] = &["cd", "pushd", "popd"];

/// See the module docs.
pub(crate) fn writes_are_named(parts: &Parts, hazards: Hazards, paths: &[CommandPaths]) -> bool {
    parts.complete
        && !hazards.substitution
        && !hazards.evaluation
        && paths.iter().all(|p| !p.unknown)
        && parts.parts.iter().all(|part| match part {
            Part::Command(command) => command_writes_are_named(command),
            Part::Test { redirects, .. } => redirects.iter().all(names_its_file),
        })
}

/// True when a part of the script is `cd`, `pushd` or `popd` (behind a
/// wrapper too), or the walk did not know every construct.
pub(crate) fn changes_directory(parts: &Parts) -> bool {
    !parts.complete
        || parts.parts.iter().any(|part| match part {
            Part::Command(c) => [0, super::command_start(c)].iter().any(|&at| {
                c.words
                    .get(at)
                    .and_then(|w| w.value.as_deref())
                    .is_some_and(|name| DIRECTORY_CHANGERS.contains(&name))
            }),
            Part::Test { .. } => false,
        })
}

fn command_writes_are_named(command: &SimpleCommand) -> bool {
    let Some(name) = command.name() else {
        return false;
    };
    if name.contains('/')
        || DIRECTORY_CHANGERS.contains(&name)
        || !command.assignments.iter().all(|a| safe_assignment(a))
        || !command.redirects.iter().all(names_its_file)
    {
        return false;
    }
    let args = args_of(command);
    if rules::command_is_read_only(name, &args) {
        return true;
    }
    // Words as the command gets them; a plain glob (`*.py`) by its text:
    // its files are what the paths analysis' glob stands for.
    let mut globbed = Vec::new();
    let mut literal = Vec::new();
    for word in &command.words[1..] {
        match &word.value {
            Some(v) => literal.push(v.as_str()),
            None if plain_glob(&word.text) => {
                globbed.push(word.text.as_str());
                literal.push(word.text.as_str());
            }
            None => return false,
        }
    }
    if name == "sed" {
        // A glob may be a file, never a program.
        return sed_call(&literal).is_some_and(|call| {
            call.in_place
                && call.scripts_are_inert()
                && !call.scripts.iter().any(|s| globbed.contains(s))
        });
    }
    if globbed.iter().any(|g| g.starts_with('-')) {
        return false;
    }
    WRITERS.contains(&name) && !hides_a_write(name, &literal)
}

/// An option of `cp`/`mv`/`ln`/`install` that writes a path the operands
/// do not show: a target directory (`-t`), a backup (`-b`, `--backup`,
/// `-S`, `--suffix`); `sort`'s `--files0-from`; `tee`/`sort` are fine.
fn hides_a_write(name: &str, args: &[&str]) -> bool {
    if !matches!(name, "cp" | "mv" | "ln" | "install" | "sort") {
        return false;
    }
    let mut options_done = false;
    args.iter().any(|a| {
        if options_done || !a.starts_with('-') || *a == "-" {
            return false;
        }
        if *a == "--" {
            options_done = true;
            return false;
        }
        if let Some(long) = a.strip_prefix("--") {
            return ["target-directory", "backup", "suffix", "files0-from"]
                .iter()
                .any(|o| long.starts_with(o));
        }
        name != "sort" && a[1..].contains(['t', 'b', 'S'])
    })
}

/// A redirection whose file, if any, is named (it is then among the
/// script's writes or reads).
fn names_its_file(redirect: &Redirect) -> bool {
    match redirect {
        Redirect::Descriptor | Redirect::Inline => true,
        Redirect::Output(w) | Redirect::Input(w) => w.value.is_some(),
        Redirect::Other => false,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::parse;

    /// Each command's verdict: are its writes all named, does it change
    /// directory; and the paths perl -i names.
    #[test]
    fn named_writes_by_command() {
        let table: &[(&str, bool, bool)] = &[
            ("sed -i 's/a/b/' app.cfg", true, false),
            ("sed -i -e 's/a/b/' a b && cat a", true, false),
            ("sed 's/a/b/' app.cfg", true, false),
            ("sed -i.bak 's/a/b/' app.cfg", false, false),
            ("sed -i 's/a/b/w out' app.cfg", false, false),
            ("sed -i 's/a/b/' $F", false, false),
            ("echo x > f; echo y >> g", true, false),
            ("sort f -o f", true, false),
            ("mv a b && cp b c", true, false),
            ("cp -t dir a b", false, false),
            ("mv --backup a b", false, false),
            ("echo hi", true, false),
            ("cd sub && sed -i 's/a/b/' f", false, true),
            ("python3 gen.py > out", false, false),
            ("perl -pi -e 's/a/b/' f", false, false),
            ("for f in *; do sed -i s/a/b/ $f; done", false, true),
            ("sed -i s/a/b/ f | tee log", true, false),
            ("FOO=1 sed -i s/a/b/ f", false, false),
            ("./sed -i s/a/b/ f", false, false),
            ("sed -i 's/a/b/' *.py src/*.rs", true, false),
            ("sed -i s/a/b/* f", false, false),
            ("rm -f *.tmp", true, false),
            ("sed -i 's/a/b/' \"$D\"/*.py", false, false),
        ];
        for (src, named, cd) in table {
            let script = parse(src).unwrap();
            assert_eq!(script.writes_are_named(), *named, "named: {src:?}");
            assert_eq!(script.changes_directory(), *cd, "cd: {src:?}");
        }
        let perl = parse("perl -pi -e 's/a/b/' f.txt").unwrap().file_access();
        assert_eq!(perl.writes, ["s/a/b/", "f.txt"]);
        let perl = parse("perl -i.bak -pe s/a/b/ f.txt").unwrap().file_access();
        assert!(perl.writes.contains(&"f.txt".to_string()), "{perl:?}");
        assert!(
            parse("perl -e 'print 1'")
                .unwrap()
                .file_access()
                .writes
                .is_empty()
        );
        let globs = parse("sed -i 's/a/b/' *.py src/*.rs \"q\"* {a,b}*.c > out").unwrap();
        assert_eq!(
            globs.written_globs(),
            [
                ("*.py".to_string(), ".".to_string()),
                ("src/*.rs".to_string(), "src".to_string())
            ]
        );
    }
}
