//! What compiled rules match: path patterns anchored per the table of the
//! module docs, commands (allow: every part; deny: any part), domains.

use std::path::{Path, PathBuf};

use orbit_tool::CallFacts;

use super::*;

const ROOT: &str = "/work/proj";
const HOME: &str = "/home/u";

fn rule(text: &str) -> CompiledRule {
    let parsed = PermissionRule::parse(text).unwrap();
    CompiledRule::compile(parsed, Path::new(ROOT), Some(Path::new(HOME))).unwrap()
}

#[test]
fn path_patterns() {
    // (rule, absolute paths it covers, absolute paths it does not)
    let table: &[(&str, &[&str], &[&str])] = &[
        (
            "Read(./secrets/**)",
            &["/work/proj/secrets/key", "/work/proj/secrets"],
            &["/work/proj/secrets2/key", "/work/proj/src/secrets/key"],
        ),
        (
            "Read(/secrets/**)",
            &["/work/proj/secrets/a/b"],
            &["/secrets/a"],
        ),
        (
            "Read(//etc/passwd)",
            &["/etc/passwd"],
            &["/work/proj/etc/passwd"],
        ),
        (
            "Read(~/.ssh/**)",
            &["/home/u/.ssh/id_rsa"],
            &["/work/proj/hello.txt", "/home/u/.sshx/a"],
        ),
        ("Read(~)", &["/home/u/anything"], &[]),
        (
            "Read(.env)",
            &["/work/proj/.env", "/work/proj/a/b/.env"],
            &["/work/proj/.envrc", "/elsewhere/.env"],
        ),
        ("Read(*.pem)", &["/work/proj/k/server.pem"], &[]),
        (
            "Read(src/*.rs)",
            &["/work/proj/src/main.rs"],
            &["/work/proj/src/a/main.rs"],
        ),
        ("Read(src/**/*.rs)", &["/work/proj/src/a/main.rs"], &[]),
        ("Read(build/)", &["/work/proj/x/build/out"], &[]),
        (
            "Read(../lib/**)",
            &["/work/lib/a.rs"],
            &["/work/proj/lib/a.rs"],
        ),
        (
            "Write(./src/**)",
            &["/work/proj/src/a.rs"],
            &["/home/u/.bashrc"],
        ),
        ("Edit(./[abc].txt)", &["/work/proj/a.txt"], &[]),
    ];
    for (text, covered, not_covered) in table {
        let rule = rule(text);
        for (paths, want) in [(covered, true), (not_covered, false)] {
            for path in *paths {
                assert_eq!(rule.covers_path(Path::new(path)), want, "{text} vs {path}");
            }
        }
    }
    // The root is taken literally even when it holds glob characters.
    let parsed = PermissionRule::parse("Read(./a/**)").unwrap();
    let odd = CompiledRule::compile(parsed, Path::new("/w/[p]"), None).unwrap();
    assert!(odd.covers_path(Path::new("/w/[p]/a/x")));
    assert!(!odd.covers_path(Path::new("/w/p/a/x")));
    // `~` without a home is an error, not a rule about something else.
    let parsed = PermissionRule::parse("Read(~/.ssh/**)").unwrap();
    assert!(CompiledRule::compile(parsed, Path::new(ROOT), None).is_err());
}

fn call_with(tool: &'static str, f: impl FnOnce(&mut CallFacts)) -> (CallFacts, &'static str) {
    let mut facts = CallFacts::default();
    f(&mut facts);
    (facts, tool)
}

fn view<'a>(facts: &'a CallFacts, tool: &'a str) -> CallView<'a> {
    CallView::new(tool, facts, Path::new(ROOT))
}

#[test]
fn commands_allow_when_every_part_matches_and_deny_when_any_does() {
    use Match::*;
    // (rule, command, allows, restricts)
    let table = [
        ("Bash(git status)", "git status", true, Yes),
        ("Bash(git status)", "git status; rm -rf ~", false, Yes),
        ("Bash(git log:*)", "git log -1 && git log", true, Yes),
        ("Bash(touch *)", "touch a.txt", true, Yes),
        ("Bash(rm:*)", "echo ok", false, No),
        ("Bash(rm:*)", "echo ok; rm -rf x", false, Yes),
        ("Bash(rm:*)", "X=1 rm -rf x > log", false, Yes),
        ("Bash(rm:*)", "/bin/rm x", false, Yes),
        ("Bash(rm:*)", "echo $(rm x)", false, Unsure),
        ("Bash(rm:*)", "sudo rm x", false, Unsure),
        ("Bash(rm:*)", "xargs rm < list", false, Unsure),
        ("Bash(rm:*)", "bash -c 'rm x'", false, Unsure),
        ("Bash(rm:*)", "$cmd x", false, Unsure),
        ("Bash(rm:*)", "if true; then rm x; fi", false, Unsure),
        ("Bash(rm:*)", "echo 'rm x'", false, No),
        ("Bash(rm:*)", "echo 'unterminated", false, Unsure),
        ("Bash(rm:*)", "rmdir x", false, No),
        ("Bash", "anything; at all", true, Yes),
        ("Read", "cat x", false, No),
    ];
    for (text, command, allows, restricts) in table {
        let (facts, tool) = call_with("Bash", |f| f.command = Some(command.into()));
        let call = view(&facts, tool);
        let r = rule(text);
        assert_eq!(r.allows(&call), allows, "allow {text} vs {command:?}");
        assert_eq!(r.restricts(&call), restricts, "deny {text} vs {command:?}");
    }
}

#[test]
fn domains_match_the_host_exactly_or_its_subdomains() {
    let table = [
        (
            "WebFetch(domain:example.com)",
            "https://example.com/a",
            true,
        ),
        (
            "WebFetch(domain:example.com)",
            "https://EXAMPLE.com./a",
            true,
        ),
        (
            "WebFetch(domain:example.com)",
            "http://u:p@example.com:8080/",
            true,
        ),
        (
            "WebFetch(domain:example.com)",
            "https://evil.net/?u=example.com",
            false,
        ),
        (
            "WebFetch(domain:example.com)",
            "https://example.com.evil.net/",
            false,
        ),
        (
            "WebFetch(domain:example.com)",
            "https://evilexample.com/",
            false,
        ),
        (
            "WebFetch(domain:example.com)",
            "https://www.example.com/",
            false,
        ),
        (
            "WebFetch(domain:*.example.com)",
            "https://www.example.com/",
            true,
        ),
        (
            "WebFetch(domain:*.example.com)",
            "https://example.com/",
            false,
        ),
        (
            "WebFetch(domain:*.example.com)",
            "https://xexample.com/",
            false,
        ),
        ("WebFetch(domain:127.0.0.1)", "http://127.0.0.1:9/", true),
    ];
    for (text, url, want) in table {
        let (facts, tool) = call_with("WebFetch", |f| {
            f.network = Some(url.into());
            f.read_only = true;
        });
        let call = view(&facts, tool);
        let r = rule(text);
        assert_eq!(r.allows(&call), want, "allow {text} vs {url}");
        let want = if want { Match::Yes } else { Match::No };
        assert_eq!(r.restricts(&call), want, "deny {text} vs {url}");
    }
}

#[test]
fn path_rules_match_by_facts_whatever_the_tool() {
    let secrets = |tool: &'static str| {
        call_with(tool, |f| {
            f.read_only = true;
            f.reads = vec![PathBuf::from("secrets/key")];
        })
    };
    let deny = rule("Read(./secrets/**)");
    for tool in ["Read", "Grep", "Glob", "LS", "Bash"] {
        let (facts, tool) = secrets(tool);
        assert_eq!(deny.restricts(&view(&facts, tool)), Match::Yes, "{tool}");
    }
    let (facts, tool) = call_with("Write", |f| f.writes = vec![PathBuf::from("src/a.rs")]);
    assert!(rule("Edit(./src/**)").allows(&view(&facts, tool)));
    assert!(rule("Write(./src/**)").allows(&view(&facts, tool)));
    assert!(!rule("Read(./src/**)").allows(&view(&facts, tool)));
    // A command is never allowed by a path rule.
    let (facts, tool) = call_with("Bash", |f| {
        f.command = Some("touch src/a".into());
        f.writes = vec![PathBuf::from("src/a")];
    });
    assert!(!rule("Edit(./src/**)").allows(&view(&facts, tool)));
    assert_eq!(
        rule("Edit(./src/**)").restricts(&view(&facts, tool)),
        Match::Yes
    );
}
