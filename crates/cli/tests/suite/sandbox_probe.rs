//! Issue 40: the start-up probe tries each sandbox layer for real (a
//! forked child of orbit applies it) instead of assuming, names every layer
//! that cannot be applied in the one start-up line, and an explicitly
//! requested sandbox that cannot be enforced is an error. Layers are made
//! to fail with the probe's test hook (`ORBIT_SANDBOX_TEST_FAIL`) and, as
//! root, for real: orbit started without `CAP_SYS_ADMIN` (as in a podman
//! container) cannot make the mount namespace.

use orbit_test_support::Reply;
use serde_json::json;

use super::common::{Scratch, bash_calls, call_results, orbit_with_env, run};
use orbit_test_support::FakeAnthropic;

/// The probe's test hook.
const FORCE_FAIL_ENV: &str = "ORBIT_SANDBOX_TEST_FAIL";

/// The lines orbit wrote on stderr about the sandbox.
fn sandbox_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("orbit: sandbox:"))
        .collect()
}

fn run_with(force: &str, args: &[&str]) -> (super::common::Outcome, FakeAnthropic) {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("done")]);
    let mut env = server.env();
    env.push((FORCE_FAIL_ENV.into(), force.into()));
    let mut cmd = orbit_with_env(&scratch, &env);
    cmd.args(["-p", "hi", "--output-format", "stream-json"])
        .args(args);
    (run(cmd), server)
}

#[test]
fn each_refused_layer_is_named_in_one_start_up_line() {
    let (out, _server) = run_with("mount-namespace", &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = sandbox_lines(&out.stderr);
    assert_eq!(lines.len(), 1, "{}", out.stderr);
    assert!(
        lines[0].contains("cannot apply mount-namespace (refused (ORBIT_SANDBOX_TEST_FAIL))")
            && lines[0].contains(".git/hooks"),
        "{}",
        lines[0]
    );
    // Two layers: both in the same line.
    let (out, _server) = run_with("mount-namespace,seccomp", &[]);
    let lines = sandbox_lines(&out.stderr);
    assert_eq!(lines.len(), 1, "{}", out.stderr);
    assert!(
        lines[0].contains("mount-namespace (") && lines[0].contains("seccomp ("),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("WITHOUT an OS sandbox"), "{}", lines[0]);
}

#[test]
fn an_explicit_sandbox_that_cannot_be_enforced_is_an_error() {
    let (out, server) = run_with("landlock", &["--sandbox", "workspace-write"]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("cannot be enforced") && out.stderr.contains("landlock"),
        "{}",
        out.stderr
    );
    assert_eq!(server.requests().len(), 0, "no request before the refusal");
    // Not asked for: said, and Bash runs without it.
    let (out, _server) = run_with("landlock", &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = sandbox_lines(&out.stderr);
    assert_eq!(lines.len(), 1, "{}", out.stderr);
    assert!(lines[0].contains("WITHOUT an OS sandbox"), "{}", lines[0]);
}

/// Root without `CAP_SYS_ADMIN` (podman's default): the kernel refuses the
/// mount namespace; the line says so with the kernel's reason, and the
/// other layers still confine Bash.
#[test]
fn root_without_cap_sys_admin_is_told_the_namespace_is_missing() {
    let root = nix::unistd::geteuid().is_root();
    let setpriv = std::process::Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !root || !setpriv {
        eprintln!("skipped: needs root and setpriv");
        return;
    }
    let scratch = Scratch::new();
    std::fs::create_dir_all(scratch.path().join(".git/hooks")).unwrap();
    let server = bash_calls(
        &[(
            "t1",
            json!({"command": "echo x > /etc/orbit-probe-test; echo rc=$?"}),
        )],
        "done",
    );
    let orbit = orbit_with_env(&scratch, &server.env());
    let mut cmd = assert_cmd::Command::new("setpriv");
    cmd.args([
        "--bounding-set",
        "-sys_admin",
        "--inh-caps",
        "-sys_admin",
        "--",
    ])
    .arg(orbit.get_program())
    .args(["-p", "hi", "--output-format", "stream-json"])
    // The permission gate lets the write through: the kernel decides.
    .args(["--permission-mode", "bypassPermissions"])
    .args(["--sandbox", "workspace-write"])
    .env_clear()
    .envs(orbit.get_envs().filter_map(|(k, v)| Some((k, v?))))
    .current_dir(scratch.path());
    let out = run(cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = sandbox_lines(&out.stderr);
    assert_eq!(lines.len(), 1, "{}", out.stderr);
    assert!(
        lines[0].contains("cannot apply mount-namespace (Operation not permitted"),
        "{}",
        lines[0]
    );
    let results = call_results(&server).join("\n");
    assert!(
        results.contains("Permission denied") && results.contains("rc=1"),
        "{results}"
    );
    assert!(!std::path::Path::new("/etc/orbit-probe-test").exists());
}
