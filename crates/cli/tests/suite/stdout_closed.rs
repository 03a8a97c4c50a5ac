//! Issue 9, item 4: a closed stdout stops the run before any further tool
//! runs, exits 141 and says so in exactly one stderr line — whether stdout
//! was closed before orbit started (`orbit -p … | head -c0`) or while a tool
//! ran (the reader went away mid-run, `text` format: nothing written yet).

use std::process::Stdio;
use std::time::{Duration, Instant};

use orbit_test_support::FakeAnthropic;
use serde_json::json;

use super::common::{Scratch, bash_calls, drain, orbit_process, wait_within};

const EXIT_STDOUT_CLOSED: i32 = 141;
const STDOUT_CLOSED_LINE: &str = "orbit: stdout closed; stopping\n";
/// Upper bound for a run that must stop early.
const STOP_LIMIT: Duration = Duration::from_secs(20);

/// The script: a Bash call that leaves a marker file, then an answer.
fn marker_script() -> FakeAnthropic {
    bash_calls(
        &[("toolu_1", json!({"command": "echo hi > marker.txt"}))],
        "done",
    )
}

#[test]
fn stdout_closed_before_start_stops_before_the_model_and_tools() {
    for format in ["text", "json", "stream-json"] {
        let scratch = Scratch::new();
        let server = marker_script();
        // A pipe whose reading end is gone before orbit starts.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let mut cmd = orbit_process(&scratch, &server.env());
        cmd.args(["-p", "write the marker", "--allowedTools", "Bash"])
            .args(["--output-format", format])
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        drop(cmd);
        let stderr = drain(child.stderr.take());
        let status = wait_within(&mut child, STOP_LIMIT);

        assert_eq!(
            status.code(),
            Some(EXIT_STDOUT_CLOSED),
            "{format}: {stderr}"
        );
        assert_eq!(stderr, STDOUT_CLOSED_LINE, "{format}");
        assert!(
            !scratch.path().join("marker.txt").exists(),
            "{format}: the tool ran"
        );
        assert_eq!(server.request_count(), 0, "{format}: the model was called");
    }
}

#[test]
fn stdout_closed_while_a_tool_runs_stops_before_the_next_tool() {
    let scratch = Scratch::new();
    let server = bash_calls(
        &[
            (
                "toolu_1",
                json!({"command": "echo started > started.txt; sleep 30", "timeout": 60000}),
            ),
            ("toolu_2", json!({"command": "echo hi > marker.txt"})),
        ],
        "done",
    );
    let mut child = orbit_process(&scratch, &server.env())
        .args(["-p", "go", "--allowedTools", "Bash"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !scratch.path().join("started.txt").exists() {
        if started.elapsed() > STOP_LIMIT {
            let _ = child.kill();
            panic!("the first Bash call did not start");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // The only reader of orbit's stdout goes away (text format: nothing
    // has been written, so only the watcher can notice).
    drop(child.stdout.take());
    let closed_at = Instant::now();
    let stderr = drain(child.stderr.take());
    let status = wait_within(&mut child, STOP_LIMIT);

    assert_eq!(status.code(), Some(EXIT_STDOUT_CLOSED), "stderr: {stderr}");
    assert_eq!(stderr, STDOUT_CLOSED_LINE);
    assert!(
        closed_at.elapsed() < Duration::from_secs(10),
        "the 30 s tool was not stopped: {:?}",
        closed_at.elapsed()
    );
    assert!(
        !scratch.path().join("marker.txt").exists(),
        "the next tool ran"
    );
    assert_eq!(server.request_count(), 1);
}
