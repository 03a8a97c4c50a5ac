//! How Bash judges a finished command's exit code: a non-zero exit is a
//! failure (`Exit code N` first line, `is_error`), except exit 1 of a command
//! whose 1 is an answer rather than a failure — `grep`/`rg`/`egrep`/`fgrep`
//! (no match), `test`/`[`/`[[ … ]]` (false) and `diff` (files differ) — as
//! Claude Code reports them (DESIGN §10). Exit 2 of those is still an error.
//!
//! The exit code belongs to the last command the shell ran, as
//! `orbit_shell`'s [`Script::last_command_name`] finds it: the last
//! statement, the last element of a `&&`/`||` list or of a pipeline. Only a
//! plain command (assignment prefixes and redirections allowed, a path such
//! as `/usr/bin/grep` reduced to its file name) or a `[[ … ]]`/`[ … ]` test
//! counts; a parse error, a subshell, `!`, `if`, a loop, a function or a
//! heredoc that carries more commands all fall back to the normal rule.

use orbit_shell::Script;

/// Commands whose exit code 1 is an answer (no match, false, files differ).
pub(crate) const EXIT_ONE_IS_ANSWER_COMMANDS: &[&str] =
    &["grep", "rg", "egrep", "fgrep", "test", "[", "[[", "diff"];

/// The exit code a command uses for "no match" / "false" / "differ".
const ANSWER_EXIT_CODE: i32 = 1;

/// True when exit `code` of `command` is a failure (see the module docs).
pub(crate) fn exit_is_error(command: &str, code: i32) -> bool {
    code != 0 && !(code == ANSWER_EXIT_CODE && exit_one_is_an_answer(command))
}

/// True when the last command `command` runs is one whose exit 1 is an
/// answer ([`EXIT_ONE_IS_ANSWER_COMMANDS`]).
pub(crate) fn exit_one_is_an_answer(command: &str) -> bool {
    let name = orbit_shell::parse(command)
        .ok()
        .as_ref()
        .and_then(Script::last_command_name);
    name.is_some_and(|name| {
        let base = name.rsplit('/').next().unwrap_or(&name);
        EXIT_ONE_IS_ANSWER_COMMANDS.contains(&base)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_command_decides_whether_exit_one_is_an_answer() {
        let table: &[(&str, bool)] = &[
            ("grep x f", true),
            ("rg x", true),
            ("egrep 'a|b' f", true),
            ("fgrep x f", true),
            ("/usr/bin/grep x f", true),
            ("\\grep x f", true),
            ("LC_ALL=C grep x f", true),
            ("grep x f 2>/dev/null", true),
            ("grep x f # look for x", true),
            ("cat f | grep x", true),
            ("cat f |& grep x", true),
            ("cat f | grep x > out", true),
            ("grep -v y f | grep x 2>&1", true),
            ("make && grep x f", true),
            ("a || b | diff x y", true),
            ("cd src; grep -rn x .", true),
            ("grep x <<EOF\nx\nEOF", true),
            ("test -f x", true),
            ("[ -f x ]", true),
            ("[[ -f x && -d y ]]", true),
            ("diff a b", true),
            ("/usr/bin/diff -u a b", true),
            // Another command runs last.
            ("grep x f | wc -l", false),
            ("grep x f && echo found", false),
            ("grep x f; false", false),
            ("false", false),
            ("ls nope", false),
            ("cat <<EOF | grep x\nx\nEOF", false),
            // Not a plain command or test.
            ("! grep x f", false),
            ("(grep x f)", false),
            ("{ grep x f; }", false),
            ("if true; then grep x f; fi", false),
            ("for f in a; do grep x $f; done", false),
            ("$GREP x f", false),
            // Unparsable.
            ("grep 'x f", false),
            ("", false),
        ];
        for (command, expected) in table {
            assert_eq!(exit_one_is_an_answer(command), *expected, "{command:?}");
        }
    }

    #[test]
    fn only_exit_one_of_those_commands_is_forgiven() {
        let table: &[(&str, i32, bool)] = &[
            ("grep x f", 0, false),
            ("grep x f", 1, false),
            ("grep x f", 2, true),
            ("diff a b", 1, false),
            ("diff a b", 2, true),
            ("[ -f x ]", 1, false),
            ("[ a -eq 1 ]", 2, true),
            ("false", 1, true),
            ("ls nope", 2, true),
            ("grep x f", 127, true),
        ];
        for (command, code, expected) in table {
            assert_eq!(
                exit_is_error(command, *code),
                *expected,
                "{command:?} exit {code}"
            );
        }
    }
}
