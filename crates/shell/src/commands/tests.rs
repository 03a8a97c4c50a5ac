//! Simple-command extraction and the last command's name.

use crate::{Redirect, SimpleCommand, Word, parse};

fn commands(src: &str) -> Option<Vec<SimpleCommand>> {
    parse(src).ok()?.simple_commands()
}

/// The static argv of each simple command (`?` for an unknown word).
fn argvs(src: &str) -> Option<Vec<Vec<String>>> {
    Some(
        commands(src)?
            .iter()
            .map(|c| {
                c.words
                    .iter()
                    .map(|w| w.value.clone().unwrap_or_else(|| "?".into()))
                    .collect()
            })
            .collect(),
    )
}

fn lit(text: &str, value: &str) -> Word {
    Word {
        text: text.into(),
        value: Some(value.into()),
    }
}

#[test]
fn compound_commands_split_into_simple_commands() {
    let table: &[(&str, &[&[&str]])] = &[
        ("git status", &[&["git", "status"]]),
        ("a; b", &[&["a"], &["b"]]),
        ("a && b || c", &[&["a"], &["b"], &["c"]]),
        ("a | b |& c", &[&["a"], &["b"], &["c"]]),
        ("a & b", &[&["a"], &["b"]]),
        ("a\nb\r\nc", &[&["a"], &["b"], &["c"]]),
        ("(a; b) && { c; }", &[&["a"], &["b"], &["c"]]),
        ("! a", &[&["a"]]),
        ("a # comment", &[&["a"]]),
        ("'git' \"log\" -\\1", &[&["git", "log", "-1"]]),
        ("echo $HOME *.rs", &[&["echo", "?", "?"]]),
        ("cat <<EOF | grep x\nbody\nEOF", &[&["cat"], &["grep", "x"]]),
        ("", &[]),
        ("# only a comment", &[]),
    ];
    for (src, expected) in table {
        let expected: Vec<Vec<String>> = expected
            .iter()
            .map(|c| c.iter().map(|w| w.to_string()).collect())
            .collect();
        assert_eq!(argvs(src), Some(expected), "{src:?}");
    }
}

#[test]
fn other_constructs_are_not_simple_commands() {
    for src in [
        "if true; then ls; fi",
        "for f in a; do ls; done",
        "while true; do ls; done",
        "case x in x) ls;; esac",
        "f() { ls; }",
        "[[ -f x ]]",
        "[ -f x ]",
        "a=1",
        "export A=1",
    ] {
        assert_eq!(commands(src), None, "{src:?}");
    }
}

#[test]
fn words_assignments_and_flags() {
    let cmds = commands("LC_ALL=C sort -k2 \"my file\" 2>&1").unwrap();
    let [sort] = cmds.as_slice() else {
        panic!("{cmds:?}")
    };
    assert_eq!(sort.assignments, vec!["LC_ALL=C".to_string()]);
    assert_eq!(
        sort.words,
        vec![
            lit("sort", "sort"),
            lit("-k2", "-k2"),
            lit("\"my file\"", "my file")
        ]
    );
    assert_eq!(sort.redirects, vec![Redirect::Descriptor]);
    assert_eq!(sort.name(), Some("sort"));
    assert!(!sort.has_expansion && !sort.has_substitution);
    assert_eq!(sort.text, "LC_ALL=C sort -k2 \"my file\"");

    let cmds = commands("$(rm x)").unwrap();
    assert!(cmds[0].has_substitution && cmds[0].name().is_none());
    let cmds = commands("echo \"$(id)\" $X").unwrap();
    assert!(cmds[0].has_substitution && cmds[0].has_expansion);
    assert_eq!(cmds[0].words[1].value, None);
    assert_eq!(cmds[0].words[1].text, "\"$(id)\"");
}

#[test]
fn redirections_are_classified_and_groups_pass_theirs_down() {
    let table: &[(&str, &[Redirect])] = &[
        (
            "ls 2>&1 >&2 >&-",
            &[
                Redirect::Descriptor,
                Redirect::Descriptor,
                Redirect::Descriptor,
            ],
        ),
        ("ls > f", &[Redirect::Output(lit("f", "f"))]),
        ("ls >> f", &[Redirect::Output(lit("f", "f"))]),
        ("ls &> f", &[Redirect::Output(lit("f", "f"))]),
        (
            "ls >/dev/null",
            &[Redirect::Output(lit("/dev/null", "/dev/null"))],
        ),
        ("cat < in", &[Redirect::Input(lit("in", "in"))]),
        ("cat <<< hi", &[Redirect::Inline]),
        (
            "cat <<EOF > f\nx\nEOF",
            &[Redirect::Inline, Redirect::Output(lit("f", "f"))],
        ),
        ("(ls) > f", &[Redirect::Output(lit("f", "f"))]),
        (
            "{ ls 2>&1; } > f",
            &[Redirect::Descriptor, Redirect::Output(lit("f", "f"))],
        ),
    ];
    for (src, expected) in table {
        let cmds = commands(src).unwrap_or_else(|| panic!("{src:?}"));
        assert_eq!(cmds[0].redirects, expected.to_vec(), "{src:?}");
    }
    assert!(Redirect::Descriptor.touches_no_file());
    assert!(Redirect::Inline.touches_no_file());
    assert!(Redirect::Output(lit("/dev/null", "/dev/null")).touches_no_file());
    assert!(!Redirect::Output(lit("f", "f")).touches_no_file());
    assert!(!Redirect::Input(lit("f", "f")).touches_no_file());
}

#[test]
fn last_command_names() {
    let table: &[(&str, Option<&str>)] = &[
        ("grep x f", Some("grep")),
        ("/usr/bin/grep x f", Some("/usr/bin/grep")),
        ("\\grep x f", Some("grep")),
        ("LC_ALL=C grep x f", Some("grep")),
        ("grep x f 2>/dev/null", Some("grep")),
        ("grep x f # look for x", Some("grep")),
        ("cat f | grep x", Some("grep")),
        ("cat f |& grep x", Some("grep")),
        ("cat f | grep x > out", Some("grep")),
        ("make && grep x f", Some("grep")),
        ("a || b | diff x y", Some("diff")),
        ("cd src; grep -rn x .", Some("grep")),
        ("grep x <<EOF\nx\nEOF", Some("grep")),
        ("test -f x", Some("test")),
        ("[ -f x ]", Some("[")),
        ("[[ -f x && -d y ]]", Some("[[")),
        ("grep x f | wc -l", Some("wc")),
        ("grep x f; false", Some("false")),
        ("cat <<EOF | grep x\nx\nEOF", None),
        ("! grep x f", None),
        ("(grep x f)", None),
        ("{ grep x f; }", None),
        ("if true; then grep x f; fi", None),
        ("for f in a; do grep x $f; done", None),
        ("$GREP x f", None),
        ("", None),
    ];
    for (src, expected) in table {
        let name = parse(src).ok().and_then(|s| s.last_command_name());
        assert_eq!(name.as_deref(), *expected, "{src:?}");
    }
}
