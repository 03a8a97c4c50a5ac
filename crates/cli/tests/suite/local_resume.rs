//! Issue 11's new-user walkthrough on the real local model: a task, Ctrl-C
//! (SIGINT) while its tool runs, then `orbit -c -p "go on"` finishes it.
//! The 1.5B model ran `go run check.go` after "go on", and after
//! "continue" re-ran the script until the repeat guard stopped it, until
//! the local chat template said what an interrupted call's result means
//! ("The user stopped this call before it finished.").

use std::process::Stdio;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use super::common::{Scratch, orbit_process, run};
use super::interrupt::exit_within_10s;
use super::local_model::{describe, lines, local_turn, orbit_local_cmd, result_line};

/// How long the first run may take to start its tool (a cold llama-server
/// and the first reply on two loaded cores).
const TOOL_START_TIMEOUT: Duration = Duration::from_secs(300);

const TASK: &str = "Run ./check.sh with the Bash tool and tell me its RESULT line.";
const RESULT_LINE: &str = "7 files checked, 0 errors";

#[test]
fn local_model_goes_on_after_ctrl_c_mid_tool() {
    let _turn = local_turn();
    let scratch = Scratch::new();
    // The script hangs until the test has interrupted it once; the second
    // run (after `fast` exists) prints its result at once.
    let script = scratch.write(
        "check.sh",
        &format!(
            "#!/bin/sh\necho collecting...\ntouch started\n[ -f fast ] || sleep 60\necho \"RESULT: {RESULT_LINE}\"\n"
        ),
    );
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // `orbit_local_cmd` links the prepared runtime into the scratch home;
    // the first run is a process of its own, to be interrupted.
    let _ = orbit_local_cmd(&scratch);
    let mut child = orbit_process(&scratch, &[])
        .args(["-p", TASK, "--allowedTools", "Bash"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = scratch.path().join("started");
    let deadline = Instant::now() + TOOL_START_TIMEOUT;
    while !started.exists() {
        if Instant::now() > deadline || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            panic!("the model never ran ./check.sh");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    kill(
        Pid::from_raw(i32::try_from(child.id()).unwrap()),
        Signal::SIGINT,
    )
    .unwrap();
    let (status, _) = exit_within_10s(child, "SIGINT");
    assert_eq!(status.code(), Some(130));
    std::fs::write(scratch.path().join("fast"), "").unwrap();

    let mut cmd = orbit_local_cmd(&scratch);
    cmd.args([
        "-c",
        "-p",
        "go on",
        "--allowedTools",
        "Bash",
        "--output-format",
        "stream-json",
        "--verbose",
    ]);
    let out = run(cmd);
    let lines = lines(&out);
    let result = result_line(&lines);
    assert_eq!(result["subtype"], "success", "{}", describe(&out));
    assert!(
        result["result"]
            .as_str()
            .unwrap_or_default()
            .contains(RESULT_LINE),
        "{}",
        describe(&out)
    );
}
