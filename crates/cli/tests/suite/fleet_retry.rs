//! Issue 42's retries through the binary: a task killed mid-prompt (the
//! pod or node gone), interrupted (Ctrl-C) or stopped by SIGTERM (a
//! scheduler's stop, orbit as a container's PID 1) and run again by the
//! same index rewinds the unfinished prompt's files and conversation and
//! goes on from the finished prompts — its tool's effect present once.

use std::os::unix::process::CommandExt;
use std::time::{Duration, Instant};

use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::json;

use super::common::{Scratch, orbit_process, orbit_with_env, run, s};
use super::fleet::{read, read_json, tasks_file};

fn wait_until(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let started = Instant::now();
    while !cond() {
        assert!(started.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_task_killed_mid_prompt_is_rewound_and_resumed_not_repeated() {
    let scratch = Scratch::new();
    let out = scratch.path().join("out");
    let work = out.join("work/task-0");
    let a = work.join("a.txt");
    let file = tasks_file(
        &scratch,
        &[json!({
            "prompts": ["write a", "append to b"],
            "permission_mode": "bypassPermissions",
        })],
    );
    let args = [
        "task",
        "run",
        "--tasks",
        &s(&file),
        "--index",
        "0",
        "--out",
        &s(&out),
    ];
    // Attempt 1: prompt 1 writes a.txt and ends; prompt 2's Bash appends to
    // b.txt, then the model never answers: the process group is killed
    // there, as a node or pod dies.
    let first = FakeAnthropic::start(vec![
        Reply::tool_use(
            "toolu_a",
            "Write",
            json!({"file_path": s(&a), "content": "one\n"}),
        ),
        Reply::text("wrote a"),
        Reply::tool_use("toolu_b", "Bash", json!({"command": "echo b >> b.txt"})),
        Reply::hang(),
    ]);
    let mut child = orbit_process(&scratch, &first.env())
        .args(args)
        .process_group(0)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    first.wait_for_requests(4, Duration::from_secs(30));
    wait_until(Duration::from_secs(10), "b.txt", || {
        work.join("b.txt").exists()
    });
    let pgid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL).unwrap();
    let _ = child.wait();
    assert_eq!(read(&work.join("b.txt")), "b\n");
    assert!(!out.join("task-0.json").exists());

    // Attempt 2, same index: prompt 2's change is rewound, prompt 1 is not
    // asked again, prompt 2 runs once more on the resumed conversation.
    let second = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_b2", "Bash", json!({"command": "echo b >> b.txt"})),
        Reply::text("appended b"),
    ]);
    let mut cmd = orbit_with_env(&scratch, &second.env());
    cmd.args(args);
    let rerun = run(cmd);
    assert_eq!(rerun.code, 0, "{}", rerun.stderr);
    assert!(
        rerun
            .stderr
            .contains("after 1 finished prompt(s); the unfinished prompt's changes were rewound"),
        "{}",
        rerun.stderr
    );
    assert_eq!(
        read(&work.join("b.txt")),
        "b\n",
        "the effect is present once"
    );
    assert_eq!(read(&a), "one\n");
    let bodies = second.bodies();
    assert_eq!(bodies.len(), 2);
    let messages = orbit_test_support::body::messages(&bodies[0]);
    let texts: Vec<String> = messages.iter().map(|m| m["content"].to_string()).collect();
    assert!(texts[0].contains("write a"), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("wrote a")), "{texts:?}");
    assert!(texts.last().unwrap().contains("append to b"), "{texts:?}");
    assert!(
        !texts.iter().any(|t| t.contains("toolu_b\"")),
        "the cut-off call is gone: {texts:?}"
    );
    let result = read_json(&out.join("task-0.json"));
    assert_eq!(result["status"], "solved");
    assert_eq!(result["resumed"], true);
    assert_eq!(result["attempt"], 2);
    assert_eq!(result["prompts_before"], 1);
    assert_eq!(result["prompts_run"], 1);
    assert_eq!(result["rewound"]["to_before_prompt"], 2);
    assert_eq!(result["rewound"]["removed"], json!(["b.txt"]));
    assert_eq!(result["result"]["result"], "appended b");
}

/// One task of one prompt ("append to b") whose first attempt is stopped
/// while the model is silent after its Bash call, then retried.
struct AppendTask {
    scratch: Scratch,
    out: std::path::PathBuf,
    work: std::path::PathBuf,
    args: Vec<String>,
}

impl AppendTask {
    fn new() -> Self {
        let scratch = Scratch::new();
        let out = scratch.path().join("out");
        let work = out.join("work/task-0");
        let file = tasks_file(
            &scratch,
            &[json!({"prompt": "append to b", "permission_mode": "bypassPermissions"})],
        );
        let args = [
            "task",
            "run",
            "--tasks",
            &s(&file),
            "--index",
            "0",
            "--out",
            &s(&out),
        ]
        .map(String::from)
        .to_vec();
        AppendTask {
            scratch,
            out,
            work,
            args,
        }
    }

    /// Starts attempt 1 (in its own process group when `group`) and
    /// returns once its Bash call has appended to b.txt.
    fn start_until_appended(&self, group: bool) -> (FakeAnthropic, std::process::Child) {
        let server = FakeAnthropic::start(vec![
            Reply::tool_use("toolu_b", "Bash", json!({"command": "echo b >> b.txt"})),
            Reply::hang(),
        ]);
        let mut cmd = orbit_process(&self.scratch, &server.env());
        cmd.args(&self.args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        if group {
            cmd.process_group(0);
        }
        let child = cmd.spawn().unwrap();
        server.wait_for_requests(2, Duration::from_secs(30));
        wait_until(Duration::from_secs(10), "b.txt", || {
            self.work.join("b.txt").exists()
        });
        (server, child)
    }

    /// Attempt 2 against a server that appends again and answers; checks
    /// the effect is present once and returns the result file.
    fn retry_appends_once(&self) -> (serde_json::Value, usize) {
        let second = FakeAnthropic::start(vec![
            Reply::tool_use("toolu_b2", "Bash", json!({"command": "echo b >> b.txt"})),
            Reply::text("appended b"),
        ]);
        let mut cmd = orbit_with_env(&self.scratch, &second.env());
        cmd.args(&self.args);
        let rerun = run(cmd);
        assert_eq!(rerun.code, 0, "{}", rerun.stderr);
        assert_eq!(
            read(&self.work.join("b.txt")),
            "b\n",
            "the effect is present once"
        );
        let result = read_json(&self.out.join("task-0.json"));
        assert_eq!(result["status"], "solved");
        assert_eq!(result["result"]["result"], "appended b");
        (result, second.request_count())
    }
}

#[test]
fn an_interrupted_prompt_is_done_again_not_counted_as_finished() {
    let task = AppendTask::new();
    // Ctrl-C in the terminal: the whole group gets SIGINT while the model
    // is silent; orbit records the prompt's result as interrupted.
    let (_first, mut child) = task.start_until_appended(true);
    let pgid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGINT).unwrap();
    let _ = child.wait();
    // The runner died of the signal; its child orbit records the
    // interrupted prompt's result on its way out.
    let transcript = std::fs::read_dir(task.scratch.home().join(".orbit/projects"))
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|f| f.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    wait_until(Duration::from_secs(10), "the interrupted result", || {
        read(&transcript).contains("\"type\":\"result\"")
    });
    let (result, requests) = task.retry_appends_once();
    assert_eq!(requests, 2, "the prompt ran again");
    assert_eq!(result["prompts_before"], 0);
    assert_eq!(result["prompts_run"], 1);
    assert_eq!(result["rewound"]["removed"], json!(["b.txt"]));
}

#[test]
fn sigterm_reaches_the_running_prompt_and_the_retry_resumes() {
    let task = AppendTask::new();
    // A scheduler's stop: SIGTERM to the runner alone (as to a container's
    // PID 1) while the model is silent after a Bash call.
    let (_first, mut runner) = task.start_until_appended(false);
    let pid = nix::unistd::Pid::from_raw(i32::try_from(runner.id()).unwrap());
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = runner.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the runner did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(143), "{status:?}");
    // The runner waited for its child and recorded the stop.
    let result = read_json(&task.out.join("task-0.json"));
    assert_eq!(result["status"], "failed");
    assert_eq!(result["exit_code"], 143);
    let (result, _) = task.retry_appends_once();
    assert_eq!(result["attempt"], 2);
}
