//! Pattern forms, word boundaries, and the bypasses a pattern must refuse.

use crate::{CommandPattern, command_matches_prefix};

fn matches(spec: &str, command: &str) -> bool {
    CommandPattern::parse(spec).is_some_and(|p| p.matches(command))
}

#[test]
fn pattern_forms() {
    // (pattern, command, matches)
    let table: &[(&str, &str, bool)] = &[
        // Exact.
        ("git status", "git status", true),
        ("git status", "  git   status ", true),
        ("git status", "'git' \"status\"", true),
        ("git status", "git status --short", false),
        ("git status", "git statusx", false),
        ("git status", "git", false),
        ("git commit -m \"a b\"", "git commit -m 'a b'", true),
        ("git commit -m \"a b\"", "git commit -m a b", false),
        // `:*` prefix: word boundary, bare command, `:` continuation.
        ("git:*", "git", true),
        ("git:*", "git log", true),
        ("git:*", "gitk", false),
        ("git log:*", "git log --oneline", true),
        ("git log:*", "git logx", false),
        ("git log:*", "git", false),
        ("npm run test:*", "npm run test", true),
        ("npm run test:*", "npm run test:unit", true),
        ("npm run test:*", "npm run testing", false),
        ("ls:*", "ls $HOME *.rs", true),
        ("git log:*", "git $SUB", false),
        // Trailing ` *`: the same prefix, without the `:` continuation.
        ("ls *", "ls", true),
        ("ls *", "ls -la", true),
        ("ls *", "lsof", false),
        ("npm run test *", "npm run test:unit", false),
        ("touch *", "touch a b", true),
        // Wildcards anywhere.
        ("ls*", "lsof", true),
        ("ls*", "ls -la", true),
        ("git * main", "git checkout main", true),
        ("git * main", "git push origin main", true),
        ("git * main", "git main", false),
        ("git * main", "git checkout main2", false),
        ("* --version", "cargo --version", true),
        ("* --version", "cargo --help", false),
        ("*", "anything at all", true),
        ("git * main", "git checkout $BRANCH main", false),
        ("'a*b'", "'a*b'", true),
        ("'a*b'", "axb", false),
        // Redirections: descriptors and /dev/null are fine, files are not.
        ("git log:*", "git log 2>&1", true),
        ("git log:*", "git log 2>/dev/null", true),
        ("git log:*", "git log > out.txt", false),
        ("git log:*", "git log >> out.txt", false),
        ("git log:*", "git log < in.txt", false),
        ("git status", "git status 2> err", false),
        ("cat:*", "cat <<EOF\ntext\nEOF", true),
        // Assignment prefixes change what a command does.
        ("git log:*", "PAGER=evil git log", false),
    ];
    for (spec, command, expected) in table {
        assert_eq!(matches(spec, command), *expected, "{spec:?} vs {command:?}");
    }
}

/// Every simple command must match: the published bypasses of prefix rules.
#[test]
fn every_simple_command_must_match() {
    let table: &[(&str, &str, bool)] = &[
        ("git log:*", "git log --oneline && git log -1", true),
        ("git log:*", "git log; git log -1 | git log", true),
        ("git log:*", "(git log) && { git log -1; }", true),
        ("git status", "git status; rm -rf ~", false),
        ("git status", "git status && rm -rf ~", false),
        ("git status", "git status || rm -rf ~", false),
        ("git status", "git status | sh", false),
        ("git status", "git status |& sh", false),
        ("git status", "git status & rm -rf ~", false),
        ("git status", "git status\nrm -rf ~", false),
        ("git status", "git status\r\nrm -rf ~", false),
        ("git log:*", "git log $(rm -rf ~)", false),
        ("git log:*", "git log \"$(rm -rf ~)\"", false),
        ("git log:*", "git log `rm -rf ~`", false),
        ("git log:*", "git log <(rm -rf ~)", false),
        ("git log:*", "git log > ~/.bashrc", false),
        ("git log:*", "git log 2> ~/.bashrc", false),
        ("git log:*", "(git log) > ~/.bashrc", false),
        ("git:*", "bash -c 'git status; rm -rf ~'", false),
        ("* --version", "bash -c 'rm -rf ~' --version", false),
        ("* --version", "/bin/sh -c 'rm -rf ~' --version", false),
        ("* --version", "sudo rm -rf / --version", false),
        ("*", "env rm -rf ~", false),
        ("git status", "if true; then git status; fi", false),
        ("git status", "for x in 1; do git status; done", false),
        ("git status", "f() { rm -rf ~; }; git status", false),
        ("git status", "x=$(rm -rf ~) git status", false),
        ("git status", "git status 'unterminated", false),
        ("git status", "> ~/.bashrc git status", false),
        ("cat:*", "cat <<EOF | sh\nx\nEOF", false),
        ("cat:*", "cat <<EOF\n$(rm -rf ~)\nEOF", false),
        ("git status", "git status <<< \"$(rm -rf ~)\"", false),
        ("git status", "", false),
        ("git status", "# git status", false),
    ];
    for (spec, command, expected) in table {
        assert_eq!(matches(spec, command), *expected, "{spec:?} vs {command:?}");
    }
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
