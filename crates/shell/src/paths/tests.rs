//! The files a command reads and writes.

use crate::parse;

/// (command, reads, writes, complete)
#[test]
fn reads_and_writes_of_commands() {
    let table: &[(&str, &[&str], &[&str], bool)] = &[
        ("cat a b", &["a", "b"], &[], true),
        ("cat -n secrets/key", &["secrets/key"], &[], true),
        ("head -n 5 f", &["5", "f"], &[], true),
        ("grep -rn 'fn main' src", &["src"], &[], true),
        ("grep -e x -- a", &["x", "a"], &[], true),
        ("grep x", &["."], &[], true),
        ("ls", &["."], &[], true),
        ("ls -la ~/.ssh", &["~/.ssh"], &[], true),
        ("cat '~/x'", &["./~/x"], &[], true),
        ("cat ~root/x", &[], &[], false),
        ("wc -l src/*.rs", &["src"], &[], true),
        ("cat *", &["."], &[], true),
        ("cat $HOME/.ssh/id_rsa", &[], &[], false),
        ("cat \"$F\"", &[], &[], false),
        ("find src -name '*.rs'", &["src"], &[], true),
        ("find -L . /etc -type f", &[".", "/etc"], &[], true),
        ("find -name x", &["."], &[], true),
        ("git -C sub log", &["sub"], &[], true),
        ("git diff --output=out.txt", &["."], &["out.txt"], true),
        ("sort -o out in", &["in"], &["out"], true),
        ("sort --output=out in", &["in"], &["out"], true),
        ("uniq in out", &["in"], &["out"], true),
        ("sed -n 1p f", &["f"], &[], true),
        ("sed -i s/a/b/ f g", &[], &["f", "g"], true),
        ("jq .a f.json", &["f.json"], &[], true),
        ("awk '{print}' f", &["f"], &[], true),
        ("tee a b", &[], &["a", "b"], true),
        ("cp a b dir", &["a", "b"], &["dir"], true),
        ("mv a b", &[], &["a", "b"], true),
        ("echo hi > out; cat < in", &["in"], &["out"], true),
        ("ls > /dev/null 2>&1", &["."], &[], true),
        ("env LANG=C nice -n 5 cat f", &["f"], &[], true),
        ("timeout 5 head f", &["f"], &[], true),
        ("echo $HOME", &[], &[], true),
        ("[[ -f x ]] > out", &[], &["out"], true),
        ("if true; then cat f; fi", &[], &[], false),
        ("cat $(echo f)", &[], &[], false),
    ];
    for (src, reads, writes, complete) in table {
        let access = parse(src).unwrap().file_access();
        assert_eq!(access.reads, *reads, "reads of {src:?}");
        assert_eq!(access.writes, *writes, "writes of {src:?}");
        assert_eq!(access.complete, *complete, "completeness of {src:?}");
    }
}

#[test]
fn git_directories_are_the_global_dash_c() {
    let table: &[(&str, &[&str])] = &[
        ("git status", &["."]),
        ("git -C sub status && git log", &["sub", "."]),
        ("git grep -C 3 x", &["."]),
        ("env LANG=C git -C a -P diff", &["a"]),
        ("ls", &[]),
    ];
    for (src, dirs) in table {
        assert_eq!(parse(src).unwrap().git_directories(), *dirs, "{src:?}");
    }
}
