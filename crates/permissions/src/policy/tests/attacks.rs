//! Issue 29's permission classes: unsandboxed runs need rules for every
//! part (7), deny rules see into builtins and wrappers that run their
//! arguments (8), and Read rules cover what a git command may print (9).

use super::*;

/// A Bash call's facts as the tool declares them, with the extras.
fn bash(command: &str) -> CallFacts {
    CallFacts {
        command: Some(command.into()),
        read_only: orbit_shell::is_read_only(command),
        ..CallFacts::default()
    }
}

/// The decision's kind for a Bash call with `facts`.
fn decide_facts(w: &World, config: &PermissionConfig, facts: &CallFacts) -> &'static str {
    decide_call(w, config, "Bash", facts)
}

/// Class 7: outside the sandbox a read-only part no longer stands in for a
/// rule; every part needs one.
#[test]
fn unsandboxed_runs_need_a_rule_for_every_part() {
    let w = world();
    let rows: &[(&[&str], &str, &str)] = &[
        (&["Bash(npm test)"], "ls", "ask"),
        (&["Bash(npm test)"], "git -C bare.git diff", "ask"),
        (&["Bash(npm test)"], "npm test && ls", "ask"),
        (&["Bash(npm test)", "Bash(ls:*)"], "npm test && ls", "allow"),
        (&["Bash(npm test)"], "npm test", "allow"),
        (&["Bash(git diff:*)"], "git diff", "allow"),
    ];
    for &(allow, command, want) in rows {
        let facts = CallFacts {
            unsandboxed: true,
            ..bash(command)
        };
        let got = decide_facts(&w, &cfg(Default, allow, &[], &[]), &facts);
        assert_eq!(got, want, "{allow:?} {command}");
        // Inside the sandbox the read-only parts count.
        let inside = decide_facts(&w, &cfg(Default, allow, &[], &[]), &bash(command));
        assert_eq!(inside, "allow", "sandboxed {allow:?} {command}");
    }
}

/// Class 5: a command that may run a hidden program (a repository's
/// configured program) is allowed only by rules for every part.
#[test]
fn hidden_programs_need_a_rule_for_every_part() {
    let w = world();
    let facts = CallFacts {
        read_only: false,
        hidden_programs: true,
        ..bash("git -C bare.git diff")
    };
    for mode in [Default, AcceptEdits] {
        assert_eq!(
            decide_facts(&w, &cfg(mode, &["Bash(npm test)"], &[], &[]), &facts),
            "ask"
        );
    }
    assert_eq!(
        decide_facts(&w, &cfg(Plan, &["Bash(npm test)"], &[], &[]), &facts),
        "deny"
    );
    assert_eq!(
        decide_facts(
            &w,
            &cfg(Default, &["Bash(git -C bare.git diff)"], &[], &[]),
            &facts
        ),
        "allow"
    );
}

/// Class 8: a deny rule for `rm` sees the `rm` a builtin or a wrapper
/// runs, in bypass mode and beside an allow rule.
#[test]
fn deny_rules_see_into_builtins_and_wrappers() {
    let w = world();
    let rows: &[(&str, &str)] = &[
        ("trap 'rm -rf victim' EXIT", "deny"),
        ("trap -- \"rm victim\" INT EXIT", "deny"),
        ("trap \"rm $f\" EXIT", "ask"),
        ("echo x | mapfile -C 'rm -rf victim' -c 1 a", "deny"),
        ("alias ls='rm -rf victim'", "deny"),
        ("shopt -s expand_aliases; alias ls='rm -rf victim'", "deny"),
        ("hash -p /bin/rm ls; ls victim", "ask"),
        ("enable -f ./x.so rmx", "ask"),
        ("taskset -c 0 rm -rf victim", "ask"),
        ("prlimit --nofile=100 rm -rf victim", "ask"),
        ("setpriv --reuid=1000 rm -rf victim", "ask"),
        ("printf -v 'a[$(rm -rf victim)]' x", "ask"),
        // Look-alikes.
        ("trap 'echo bye' EXIT", "allow"),
        ("trap - EXIT", "allow"),
        ("mapfile -t lines < data.txt", "allow"),
        ("hash -r", "allow"),
        ("alias ll='ls -l'", "allow"),
        ("echo rm", "allow"),
    ];
    for &(command, want) in rows {
        let bypass = cfg(BypassPermissions, &[], &["Bash(rm:*)"], &[]);
        assert_eq!(
            decide_facts(&w, &bypass, &bash(command)),
            want,
            "bypass: {command}"
        );
        let allowed = cfg(
            Default,
            &[
                "Bash(echo:*)",
                "Bash(trap:*)",
                "Bash(mapfile:*)",
                "Bash(alias:*)",
                "Bash(hash:*)",
                "Bash(taskset:*)",
            ],
            &["Bash(rm:*)"],
            &[],
        );
        let got = decide_facts(&w, &allowed, &bash(command));
        if want != "allow" {
            assert_ne!(got, "allow", "allow rules: {command}");
        }
    }
}

/// Class 9: a Read deny rule covering a file a git command may print (a
/// committed copy) asks in every mode; nothing else changes.
#[test]
fn read_rules_cover_what_git_may_print() {
    let w = world();
    let secret = w.project.join("secrets/key.txt");
    let with_copy = CallFacts {
        may_read: vec![secret.clone()],
        ..bash("git show HEAD:secrets/key.txt")
    };
    let deny = ["Read(./secrets/**)"];
    for mode in [Default, Plan, AcceptEdits, BypassPermissions] {
        let c = cfg(mode, &["Bash(git show:*)"], &deny, &[]);
        assert_eq!(decide_facts(&w, &c, &with_copy), "ask", "{mode:?}");
        // Without the committed copy nothing changes.
        let plain = bash("git show HEAD:src/main.rs");
        assert_eq!(decide_facts(&w, &c, &plain), "allow", "{mode:?}");
    }
    // A may-read path no rule covers changes nothing.
    let other = CallFacts {
        may_read: vec![w.project.join("src/main.rs")],
        ..bash("git diff")
    };
    assert_eq!(
        decide_facts(&w, &cfg(Default, &[], &deny, &[]), &other),
        "allow"
    );
}
