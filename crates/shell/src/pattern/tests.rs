//! Pattern forms, word boundaries, and the bypasses a pattern must refuse.

use crate::{CommandPattern, command_matches_prefix};

fn matches(spec: &str, command: &str) -> bool {
    CommandPattern::parse(spec).is_some_and(|p| p.matches(command))
}

/// (pattern, commands it matches, commands it does not)
type Table<'a> = &'a [(&'a str, &'a [&'a str], &'a [&'a str])];

fn check(table: Table<'_>) {
    for (spec, hits, misses) in table {
        for (commands, expected) in [(hits, true), (misses, false)] {
            for command in *commands {
                assert_eq!(matches(spec, command), expected, "{spec:?} vs {command:?}");
            }
        }
    }
}

#[test]
fn pattern_forms() {
    let table: Table = &[
        // Exact.
        (
            "git status",
            &["git status", "  git   status ", "'git' \"status\""],
            &["git status --short", "git statusx", "git"],
        ),
        (
            "git commit -m \"a b\"",
            &["git commit -m 'a b'"],
            &["git commit -m a b"],
        ),
        // `:*` prefix: word boundary, bare command, `:` continuation.
        ("git:*", &["git", "git log"], &["gitk"]),
        ("git log:*", &["git log --oneline"], &["git logx", "git"]),
        (
            "npm run test:*",
            &["npm run test", "npm run test:unit"],
            &["npm run testing"],
        ),
        ("ls:*", &["ls $HOME *.rs"], &[]),
        ("git log:*", &[], &["git $SUB"]),
        // Trailing ` *`: the same prefix, without the `:` continuation.
        ("ls *", &["ls", "ls -la"], &["lsof"]),
        ("npm run test *", &[], &["npm run test:unit"]),
        ("touch *", &["touch a b"], &[]),
        // Wildcards anywhere.
        ("ls*", &["lsof", "ls -la"], &[]),
        (
            "git * main",
            &["git checkout main", "git push origin main"],
            &["git main", "git checkout main2"],
        ),
        ("* --version", &["cargo --version"], &["cargo --help"]),
        ("*", &["anything at all"], &[]),
        ("git * main", &[], &["git checkout $BRANCH main"]),
        ("'a*b'", &["'a*b'"], &["axb"]),
        // Redirections: descriptors and /dev/null are fine, files are not.
        (
            "git log:*",
            &["git log 2>&1", "git log 2>/dev/null"],
            &[
                "git log > out.txt",
                "git log >> out.txt",
                "git log < in.txt",
            ],
        ),
        ("git status", &[], &["git status 2> err"]),
        ("cat:*", &["cat <<EOF\ntext\nEOF"], &[]),
        // Assignment prefixes change what a command does.
        ("git log:*", &[], &["PAGER=evil git log"]),
    ];
    check(table);
}

/// Every simple command must match: the published bypasses of prefix rules.
#[test]
fn every_simple_command_must_match() {
    let table: Table = &[
        (
            "git log:*",
            &[
                "git log --oneline && git log -1",
                "git log; git log -1 | git log",
                "(git log) && { git log -1; }",
            ],
            &[],
        ),
        (
            "git status",
            &[],
            &[
                "git status; rm -rf ~",
                "git status && rm -rf ~",
                "git status || rm -rf ~",
                "git status | sh",
                "git status |& sh",
                "git status & rm -rf ~",
                "git status\nrm -rf ~",
                "git status\r\nrm -rf ~",
            ],
        ),
        (
            "git log:*",
            &[],
            &[
                "git log $(rm -rf ~)",
                "git log \"$(rm -rf ~)\"",
                "git log `rm -rf ~`",
                "git log <(rm -rf ~)",
                "git log > ~/.bashrc",
                "git log 2> ~/.bashrc",
                "(git log) > ~/.bashrc",
            ],
        ),
        ("git:*", &[], &["bash -c 'git status; rm -rf ~'"]),
        (
            "* --version",
            &[],
            &[
                "bash -c 'rm -rf ~' --version",
                "/bin/sh -c 'rm -rf ~' --version",
                "sudo rm -rf / --version",
            ],
        ),
        ("*", &[], &["env rm -rf ~"]),
        (
            "git status",
            &[],
            &[
                "if true; then git status; fi",
                "for x in 1; do git status; done",
                "f() { rm -rf ~; }; git status",
                "x=$(rm -rf ~) git status",
                "git status 'unterminated",
                "> ~/.bashrc git status",
            ],
        ),
        (
            "cat:*",
            &[],
            &["cat <<EOF | sh\nx\nEOF", "cat <<EOF\n$(rm -rf ~)\nEOF"],
        ),
        (
            "git status",
            &[],
            &["git status <<< \"$(rm -rf ~)\"", "", "# git status"],
        ),
    ];
    check(table);
}

#[test]
fn specifiers_that_are_not_patterns() {
    for spec in [
        "",
        "   ",
        ":*",
        "git status; rm",
        "a && b",
        "curl * | bash",
        "echo $HOME",
        "echo \"$HOME\"",
        "echo `id`",
        "cat > f",
        "'unterminated",
        "(x)",
    ] {
        assert_eq!(CommandPattern::parse(spec), None, "{spec:?}");
    }
}

#[test]
fn prefix_words() {
    assert!(command_matches_prefix("git log -1", &["git", "log"]));
    assert!(command_matches_prefix(
        "git log --oneline && git log -1",
        &["git", "log"]
    ));
    assert!(!command_matches_prefix("git log; rm x", &["git", "log"]));
    assert!(!command_matches_prefix("git logx", &["git", "log"]));
    assert!(!command_matches_prefix("git log", &[]));
    assert!(!command_matches_prefix("git log > f", &["git", "log"]));
}
