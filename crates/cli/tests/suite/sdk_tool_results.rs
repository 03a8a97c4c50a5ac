//! `tool_use_result` facts through the binary (issue 30): they come from
//! the tools, not from re-reading files or parsing result text. A Read's
//! `totalLines` and an Edit's `structuredPatch` describe the file the tool
//! used when the session's directory is not the process's (`--cwd`, a Bash
//! `cd` into a subdirectory) and a decoy with the same name sits in the
//! process's directory; Bash's `stderr` is its own stream, and a failed
//! command that only mentions an interrupt was not interrupted, while one
//! stopped by SIGINT was.
//!
//! `ORBIT_TEST_BIN=/path/to/orbit` runs the cases against another build
//! (the first two fail against the build before the fix; the SIGINT case
//! guards the other side of the same fact).

use assert_cmd::Command;
use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, bash_calls, orbit_with_env, run};

/// `orbit -p PROMPT --output-format stream-json EXTRA…` (or
/// `$ORBIT_TEST_BIN`) in the scratch project against `server`.
fn run_stream_json(
    scratch: &Scratch,
    server: &FakeAnthropic,
    prompt: &str,
    extra: &[&str],
) -> Outcome {
    let std_cmd = orbit_with_env(scratch, &server.env());
    let mut cmd = match std::env::var_os("ORBIT_TEST_BIN") {
        None => std_cmd,
        Some(bin) => {
            let mut cmd = Command::new(bin);
            cmd.env_clear()
                .envs(std_cmd.get_envs().filter_map(|(k, v)| Some((k, v?))))
                .current_dir(scratch.path());
            cmd
        }
    };
    cmd.args(["-p", prompt, "--output-format", "stream-json"])
        .args(extra);
    run(cmd)
}

/// [`run_stream_json`] with every call allowed (`--permission-mode
/// bypassPermissions`, then `extra`); it must succeed (`what` names the case).
fn run_unasked(
    scratch: &Scratch,
    server: &FakeAnthropic,
    prompt: &str,
    extra: &[&str],
    what: &str,
) -> Outcome {
    let mut args = vec!["--permission-mode", "bypassPermissions"];
    args.extend_from_slice(extra);
    let out = run_stream_json(scratch, server, prompt, &args);
    assert_eq!(out.code, 0, "{what}: {}", out.stderr);
    out
}

/// The `tool_use_result` of the `user` line answering `tool_use_id`.
fn tool_use_result(out: &Outcome, tool_use_id: &str) -> Value {
    out.lines()
        .into_iter()
        .find(|l| l["type"] == "user" && l["message"]["content"][0]["tool_use_id"] == tool_use_id)
        .map(|l| l["tool_use_result"].clone())
        .unwrap_or_else(|| panic!("no result for {tool_use_id}: {}", out.stdout))
}

#[test]
fn read_and_edit_facts_describe_the_sessions_file_not_the_process_cwd() {
    // (how the session gets into `sub`, the calls before the Read)
    let cases: [(&str, &[&str], Vec<Reply>); 2] = [
        ("--cwd", &["--cwd", "sub"], vec![]),
        (
            "a Bash cd",
            &[],
            vec![Reply::tool_use(
                "toolu_cd",
                "Bash",
                json!({"command": "cd sub"}),
            )],
        ),
    ];
    for (how, extra, mut replies) in cases {
        let scratch = Scratch::new();
        // A decoy of the same name where the process runs: ten lines.
        let decoy: String = (1..=10).map(|n| format!("line {n}\n")).collect();
        scratch.write("notes.txt", &decoy);
        std::fs::create_dir(scratch.path().join("sub")).unwrap();
        scratch.write("sub/notes.txt", "a\nb\nc\n");
        replies.extend([
            Reply::tool_use(
                "toolu_read",
                "Read",
                json!({"file_path": "notes.txt", "limit": 1}),
            ),
            Reply::tool_use(
                "toolu_edit",
                "Edit",
                json!({"file_path": "notes.txt", "old_string": "b", "new_string": "B"}),
            ),
            Reply::text("done"),
        ]);
        let server = FakeAnthropic::start(replies);
        let out = run_unasked(&scratch, &server, "edit notes", extra, how);
        let sub = std::fs::read_to_string(scratch.path().join("sub/notes.txt")).unwrap();
        assert_eq!(
            sub, "a\nB\nc\n",
            "{how}: the tool edited the session's file"
        );
        let read = tool_use_result(&out, "toolu_read");
        assert_eq!(
            read["file"],
            json!({"filePath": "notes.txt", "content": "a", "numLines": 1,
                "startLine": 1, "totalLines": 4}),
            "{how}"
        );
        let edit = tool_use_result(&out, "toolu_edit");
        assert_eq!(
            edit["structuredPatch"],
            json!([{"oldStart": 1, "oldLines": 3, "newStart": 1, "newLines": 3,
                "lines": [" a", "-b", "+B", " c"]}]),
            "{how}"
        );
    }
}

#[test]
fn bash_reports_its_streams_apart_and_interrupted_only_as_a_fact() {
    let scratch = Scratch::new();
    let command = "echo out; echo 'interrupted system call' >&2; exit 3";
    let server = bash_calls(&[("toolu_fail", json!({"command": command}))], "it failed");
    let out = run_unasked(&scratch, &server, "run it", &[], "bash");
    assert_eq!(
        tool_use_result(&out, "toolu_fail"),
        json!({"stdout": "out", "stderr": "interrupted system call",
            "interrupted": false, "isImage": false})
    );
    // The model still gets both streams and the exit code.
    let results = orbit_test_support::body::tool_results(&server.requests()[1].body);
    assert_eq!(results[0].text, "Exit code 3\nout\ninterrupted system call");
    assert!(results[0].is_error);
}

/// A command stopped by SIGINT is reported interrupted (the engine's
/// interrupt answer), with the run's exit 130.
#[test]
fn a_bash_call_stopped_by_sigint_is_interrupted() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let scratch = Scratch::new();
    let sleep = json!({"command": "echo started > started.txt; sleep 30", "timeout": 60000});
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_sleep", "Bash", sleep),
        Reply::text("must not be requested"),
    ]);
    let mut cmd = std::process::Command::new(match std::env::var_os("ORBIT_TEST_BIN") {
        Some(bin) => bin,
        None => env!("CARGO_BIN_EXE_orbit").into(),
    });
    let std_cmd = orbit_with_env(&scratch, &server.env());
    cmd.env_clear()
        .envs(std_cmd.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .current_dir(scratch.path())
        .args(["-p", "sleep", "--output-format", "stream-json"])
        .args(["--permission-mode", "bypassPermissions"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let started = scratch.path().join("started.txt");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !started.exists() {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    let out = Outcome {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert_eq!(out.code, 130, "{}", out.stderr);
    assert_eq!(tool_use_result(&out, "toolu_sleep")["interrupted"], true);
}
