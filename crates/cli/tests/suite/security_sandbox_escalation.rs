//! The sandbox's ways out that are meant to exist, through the real `orbit`
//! binary: the escalation path (a blocked command's result names
//! `dangerouslyDisableSandbox`, which needs an allow rule or a person),
//! `orbit sandbox [policy] -- CMD` applying its policy directly, and
//! `sandbox.network.allowedDomains` reaching only through orbit's proxy.
//! Each case builds a fresh `security_sandbox::World` (workspace, a home
//! with deny-listed files, an outside dir, listeners the test owns) and
//! checks the effect on it.

use std::path::Path;

use serde_json::json;

use super::common::run;
use super::security_sandbox::{NEW, SECRET, World, run_bash};

/// Python's write outside the workspace: the analysis cannot see the path.
const PY_WRITE_OUTSIDE: &str = "python3 -c \"open('{OUT}/new.txt', 'w').write('x')\"";

/// In the default permission mode the sandbox is on without being asked
/// for, and a blocked command's result tells the model how to escalate.
#[test]
fn a_blocked_command_tells_the_model_how_to_escalate() {
    let world = World::new();
    let input = json!({ "command": world.fill(PY_WRITE_OUTSIDE) });
    let run = run_bash(&world, input, &["--allowedTools", "Bash(python3:*)"]);
    assert!(
        run.said.contains("dangerouslyDisableSandbox"),
        "{}",
        run.said
    );
    assert!(run.said.contains("Read-only file system"), "{}", run.said);
    assert!(!world.outside().join("new.txt").exists());
}

/// `dangerouslyDisableSandbox` needs a rule or a person: a read-only
/// command, auto-approved inside the sandbox, is denied outside it when
/// headless; an allow rule for the command lets the unsandboxed run
/// happen (and its write outside succeeds).
#[test]
fn unsandboxed_runs_need_an_allow_rule() {
    let allow_python: &[&str] = &["--allowedTools", "Bash(python3:*)"];
    let cases: &[(&str, bool, &[&str], bool)] = &[
        ("ls", true, &[], false),
        ("ls", true, &["--permission-mode", "acceptEdits"], false),
        ("ls", false, &[], true),
        (PY_WRITE_OUTSIDE, true, allow_python, true),
        (PY_WRITE_OUTSIDE, false, allow_python, true),
    ];
    for &(command, unsandboxed, flags, allowed) in cases {
        let world = World::new();
        let input =
            json!({ "command": world.fill(command), "dangerouslyDisableSandbox": unsandboxed });
        let run = run_bash(&world, input, flags);
        let what = format!(
            "{command} unsandboxed={unsandboxed} {flags:?}: {}",
            run.said
        );
        assert_eq!(run.out.code, 0, "{}", run.out.stderr);
        let denials = run.out.result()["permission_denials"]
            .as_array()
            .map_or(0, Vec::len);
        assert_eq!(denials, usize::from(!allowed), "{what}");
        if !allowed {
            assert!(run.said.contains("outside the sandbox"), "{what}");
        }
        if command == PY_WRITE_OUTSIDE {
            // Written only when it ran outside the sandbox.
            assert_eq!(
                world.outside().join("new.txt").exists(),
                unsandboxed,
                "{what}"
            );
        }
    }
}

/// `orbit sandbox [policy] -- CMD` by itself: the effect (absent / present
/// file, connection, secret in stdout) and the exit status.
#[test]
fn the_helper_applies_its_policy_directly() {
    struct Direct {
        args: &'static [&'static str],
        /// The file (template) that must exist afterwards (None: `NEW` must not).
        creates: Option<&'static str>,
        connects: bool,
        secret_in_stdout: bool,
        success: bool,
    }
    #[rustfmt::skip]
    let cases = [
        Direct { args: &["--", "sh", "-c", "echo x > {OUT}/new.txt"], creates: None, connects: false, secret_in_stdout: false, success: false },
        Direct { args: &["--", "sh", "-c", "echo x > made.txt"], creates: Some("{WS}/made.txt"), connects: false, secret_in_stdout: false, success: true },
        Direct { args: &["--mode", "read-only", "--", "sh", "-c", "echo x > made.txt"], creates: None, connects: false, secret_in_stdout: false, success: false },
        Direct { args: &[ "--writable", "{OUT}", "--", "sh", "-c", "echo x > {OUT}/new.txt", ], creates: Some(NEW), connects: false, secret_in_stdout: false, success: true },
        Direct { args: &[ "--mode", "danger-full-access", "--", "sh", "-c", "echo x > {OUT}/new.txt", ], creates: Some(NEW), connects: false, secret_in_stdout: false, success: true },
        // A denied file reads as empty (`/dev/null` is mounted over it).
        Direct { args: &[ "--deny-read", "{OUT}/private.txt", "--", "cat", "{OUT}/private.txt", ], creates: None, connects: false, secret_in_stdout: false, success: true },
        Direct { args: &["--deny-read", "{OUT}", "--", "cat", "{OUT}/private.txt"], creates: None, connects: false, secret_in_stdout: false, success: false },
        Direct { args: &["--", "cat", "{OUT}/private.txt"], creates: None, connects: false, secret_in_stdout: true, success: true },
        Direct { args: &[ "--network", "on", "--", "bash", "-c", "echo hi > /dev/tcp/127.0.0.1/{PORT}", ], creates: None, connects: true, secret_in_stdout: false, success: true },
        Direct { args: &["--", "bash", "-c", "echo hi > /dev/tcp/127.0.0.1/{PORT}"], creates: None, connects: false, secret_in_stdout: false, success: false },
        Direct { args: &["--bogus", "--", "true"], creates: None, connects: false, secret_in_stdout: false, success: false },
        Direct { args: &["--", "no-such-program-orbit"], creates: None, connects: false, secret_in_stdout: false, success: false },
    ];
    for case in cases {
        let world = World::new();
        let args: Vec<String> = case.args.iter().map(|a| world.fill(a)).collect();
        let mut cmd = world.orbit(&[]);
        cmd.arg("sandbox").args(&args);
        let out = run(cmd);
        let what = format!("{args:?}: {} {}", out.code, out.stderr);
        assert_eq!(out.code == 0, case.success, "{what}");
        match case.creates {
            Some(t) => assert!(Path::new(&world.fill(t)).exists(), "{what}"),
            None => assert!(!Path::new(&world.fill(NEW)).exists(), "{what}"),
        }
        assert_eq!(
            world.listeners_touched() == Some("tcp"),
            case.connects,
            "{what}"
        );
        assert_eq!(out.stdout.contains(SECRET), case.secret_in_stdout, "{what}");
    }
}

/// `sandbox.network.allowedDomains`: an allowed host is reached through
/// orbit's proxy (the test's listener stands in for it); another host gets
/// the proxy's 403, and a client that bypasses the proxy is stopped by
/// Landlock (only the proxy's port may be connected to).
#[test]
fn allowed_domains_pass_only_through_the_proxy() {
    let settings = r#"{"sandbox":{"network":{"allowedDomains":["localhost"]}}}"#;
    let flags = ["--allowedTools", "Bash", "--settings", settings];
    let cases: &[(&str, bool)] = &[
        ("curl -sS -m 1 http://localhost:{PORT}/allowed", true),
        ("curl -sS -m 1 http://127.0.0.1:{PORT}/not-listed", false),
        (
            "curl --noproxy '*' -sS -m 1 http://localhost:{PORT}/direct",
            false,
        ),
        (
            "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {PORT}))\"",
            false,
        ),
    ];
    for &(command, reaches) in cases {
        let world = World::new();
        let run = run_bash(&world, json!({ "command": world.fill(command) }), &flags);
        assert_eq!(run.out.code, 0, "{}", run.out.stderr);
        let touched = world.listeners_touched();
        assert_eq!(touched == Some("tcp"), reaches, "{command}: {}", run.said);
        if command.contains("not-listed") {
            assert!(run.said.contains("allowedDomains"), "{}", run.said);
        }
    }
}
