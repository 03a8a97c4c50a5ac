//! Which repository a git command names, and which git commands can print
//! committed files.

use crate::parse;

/// (dir, git_dir, work_tree, known, subcommand) of each git command.
type Row<'a> = (
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
    bool,
    Option<&'a str>,
);

#[test]
fn global_options_name_the_repository() {
    let table: &[(&str, &[Row<'_>])] = &[
        ("git status", &[(".", None, None, true, Some("status"))]),
        (
            "git -C sub diff",
            &[("sub", None, None, true, Some("diff"))],
        ),
        (
            "git -C a -C b diff",
            &[("a/b", None, None, true, Some("diff"))],
        ),
        (
            "git -C a -C /abs log",
            &[("/abs", None, None, true, Some("log"))],
        ),
        ("git -C '' log", &[(".", None, None, true, Some("log"))]),
        (
            "git --git-dir=bare.git diff",
            &[(".", Some("bare.git"), None, true, Some("diff"))],
        ),
        (
            "git --git-dir bare.git diff",
            &[(".", Some("bare.git"), None, true, Some("diff"))],
        ),
        (
            "git --work-tree=w --git-dir=g show",
            &[(".", Some("g"), Some("w"), true, Some("show"))],
        ),
        (
            "GIT_DIR=bare.git git diff",
            &[(".", Some("bare.git"), None, true, Some("diff"))],
        ),
        (
            "GIT_DIR='x y' GIT_WORK_TREE=w git diff",
            &[(".", Some("x y"), Some("w"), true, Some("diff"))],
        ),
        (
            "env GIT_DIR=g git log -p",
            &[(".", Some("g"), None, true, Some("log"))],
        ),
        (
            "env -i GIT_DIR=g nice -n 5 git log",
            &[(".", Some("g"), None, true, Some("log"))],
        ),
        (
            "git -C bare.git --bare log",
            &[("bare.git", Some("."), None, true, Some("log"))],
        ),
        (
            "git -c core.pager=x -P --no-pager log",
            &[(".", None, None, true, Some("log"))],
        ),
        (
            "/usr/bin/git -C d status",
            &[("d", None, None, true, Some("status"))],
        ),
        ("git -C $d diff", &[(".", None, None, false, Some("diff"))]),
        (
            "GIT_DIR=$x git diff",
            &[(".", None, None, false, Some("diff"))],
        ),
        ("git --bogus diff", &[(".", None, None, true, None)]),
        // Wherever the command is.
        (
            "if true; then git -C a show; fi",
            &[("a", None, None, true, Some("show"))],
        ),
        (
            "echo $(git -C a show HEAD:x)",
            &[("a", None, None, true, Some("show"))],
        ),
        (
            "git status && git -C b log",
            &[
                (".", None, None, true, Some("status")),
                ("b", None, None, true, Some("log")),
            ],
        ),
        ("ls; gitk", &[]),
    ];
    for (src, want) in table {
        let got: Vec<Row<'_>> = parse(src)
            .unwrap()
            .git_invocations()
            .iter()
            .map(|g| {
                (
                    leak(&g.dir),
                    g.git_dir.as_deref().map(leak),
                    g.work_tree.as_deref().map(leak),
                    g.known,
                    g.subcommand.as_deref().map(leak),
                )
            })
            .collect();
        assert_eq!(got, *want, "{src:?}");
    }
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

#[test]
fn commands_that_can_print_committed_files() {
    let prints = [
        "git show HEAD:secrets/x",
        "git show",
        "git grep --cached KEY",
        "git grep KEY HEAD",
        "git log -p",
        "git log --patch -- secrets",
        "git log -U3",
        "git log -S password",
        "git log -L 1,3:secrets/x",
        "git whatchanged -p",
        "git reflog -p",
        "git diff",
        "git diff HEAD~1 --stat -p",
        "git diff-tree -p HEAD",
        "git blame secrets/x",
        "git cat-file -p HEAD:secrets/x",
        "git archive HEAD",
        "git stash show -p",
        "git format-patch -1",
        "git fast-export --all",
        "git worktree add ../w",
        "git clone . /tmp/c",
        "git -C sub show HEAD:x",
        "git lg",
        "git log $opt",
        "git $sub",
    ];
    for src in prints {
        let inv = parse(src).unwrap().git_invocations();
        assert!(inv.iter().any(|g| g.can_print_contents()), "{src:?}");
    }
    let quiet = [
        "git status",
        "git log --oneline",
        "git log --stat",
        "git diff --stat",
        "git diff --name-only HEAD~1",
        "git ls-files",
        "git rev-parse HEAD",
        "git branch -a",
        "git commit -m x",
        "git --version",
        "git",
    ];
    for src in quiet {
        let inv = parse(src).unwrap().git_invocations();
        assert!(!inv.iter().any(|g| g.can_print_contents()), "{src:?}");
    }
}
