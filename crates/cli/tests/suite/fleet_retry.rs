//! Issue 42's retries through the binary: a task killed mid-prompt (the
//! pod or node gone), interrupted (Ctrl-C) or stopped by SIGTERM (a
//! scheduler's stop, orbit as a container's PID 1) and run again by the
//! same index rewinds the unfinished prompt's files and conversation and
//! goes on from the finished prompts — its tool's effect present once.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, orbit_process, orbit_with_env, run, s};
use super::fleet::{read, read_json, task_run_args, tasks_file};

fn wait_until(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let started = Instant::now();
    while !cond() {
        assert!(started.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Sends `signal` to the process group `child` leads.
fn signal_group(child: &std::process::Child, signal: Signal) {
    let pgid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    nix::sys::signal::killpg(pgid, signal).unwrap();
}

#[test]
fn a_task_killed_mid_prompt_is_rewound_and_resumed_not_repeated() {
    let task = AppendTask::with(json!({
        "prompts": ["write a", "append to b"],
        "permission_mode": "bypassPermissions",
    }));
    let a = task.work.join("a.txt");
    // Attempt 1: prompt 1 writes a.txt and ends; prompt 2's Bash appends to
    // b.txt, then the model never answers: the process group is killed
    // there, as a node or pod dies.
    let (_first, mut child) = task.start_until_appended(
        true,
        vec![
            Reply::tool_use(
                "toolu_a",
                "Write",
                json!({"file_path": s(&a), "content": "one\n"}),
            ),
            Reply::text("wrote a"),
        ],
    );
    signal_group(&child, Signal::SIGKILL);
    let _ = child.wait();
    assert_eq!(read(&task.work.join("b.txt")), "b\n");
    assert!(!task.out.join("task-0.json").exists());

    // Attempt 2, same index: prompt 2's change is rewound, prompt 1 is not
    // asked again, prompt 2 runs once more on the resumed conversation.
    let retried = task.retry_appends_once();
    assert!(
        retried
            .run
            .stderr
            .contains("after 1 finished prompt(s); the unfinished prompt's changes were rewound"),
        "{}",
        retried.run.stderr
    );
    assert_eq!(read(&a), "one\n");
    let bodies = retried.server.bodies();
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
    let result = retried.result;
    assert_eq!(result["resumed"], true);
    assert_eq!(result["attempt"], 2);
    assert_eq!(result["prompts_before"], 1);
    assert_eq!(result["prompts_run"], 1);
    assert_eq!(result["rewound"]["to_before_prompt"], 2);
    assert_eq!(result["rewound"]["removed"], json!(["b.txt"]));
}

/// Task 0 of a tasks file of one task whose last prompt's Bash call
/// appends to b.txt: its first attempt is stopped while the model is
/// silent after that call, then retried.
struct AppendTask {
    scratch: Scratch,
    out: PathBuf,
    work: PathBuf,
    args: Vec<String>,
}

/// What the retry did: its run, its server (for the requests it got) and
/// the task's result file.
struct Retried {
    run: Outcome,
    server: FakeAnthropic,
    result: Value,
}

impl AppendTask {
    /// One prompt, "append to b", every call allowed.
    fn new() -> Self {
        Self::with(json!({"prompt": "append to b", "permission_mode": "bypassPermissions"}))
    }

    /// `task` as task 0, in a fresh scratch dir.
    fn with(task: Value) -> Self {
        let scratch = Scratch::new();
        let out = scratch.path().join("out");
        let work = out.join("work/task-0");
        let file = tasks_file(&scratch, &[task]);
        let args = task_run_args(&file, Some("0"), &out);
        AppendTask {
            scratch,
            out,
            work,
            args,
        }
    }

    /// Starts attempt 1 (in its own process group when `group`) against a
    /// model that answers `before`, then the Bash call that appends to
    /// b.txt, then nothing; returns once that call has appended.
    fn start_until_appended(
        &self,
        group: bool,
        before: Vec<Reply>,
    ) -> (FakeAnthropic, std::process::Child) {
        let mut replies = before;
        replies.extend([
            Reply::tool_use("toolu_b", "Bash", json!({"command": "echo b >> b.txt"})),
            Reply::hang(),
        ]);
        let requests = replies.len();
        let server = FakeAnthropic::start(replies);
        let mut cmd = orbit_process(&self.scratch, &server.env());
        cmd.args(&self.args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        if group {
            cmd.process_group(0);
        }
        let child = cmd.spawn().unwrap();
        server.wait_for_requests(requests, Duration::from_secs(30));
        wait_until(Duration::from_secs(10), "b.txt", || {
            self.work.join("b.txt").exists()
        });
        (server, child)
    }

    /// Attempt 2 against a server that appends again and answers; checks
    /// it succeeds, the effect is present once and the task is solved.
    fn retry_appends_once(&self) -> Retried {
        let server = FakeAnthropic::start(vec![
            Reply::tool_use("toolu_b2", "Bash", json!({"command": "echo b >> b.txt"})),
            Reply::text("appended b"),
        ]);
        let mut cmd = orbit_with_env(&self.scratch, &server.env());
        cmd.args(&self.args);
        let run = run(cmd);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(
            read(&self.work.join("b.txt")),
            "b\n",
            "the effect is present once"
        );
        let result = read_json(&self.out.join("task-0.json"));
        assert_eq!(result["status"], "solved");
        assert_eq!(result["result"]["result"], "appended b");
        Retried {
            run,
            server,
            result,
        }
    }
}

#[test]
fn an_interrupted_prompt_is_done_again_not_counted_as_finished() {
    let task = AppendTask::new();
    // Ctrl-C in the terminal: the whole group gets SIGINT while the model
    // is silent; orbit records the prompt's result as interrupted.
    let (_first, mut child) = task.start_until_appended(true, vec![]);
    signal_group(&child, Signal::SIGINT);
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
    let retried = task.retry_appends_once();
    assert_eq!(retried.server.request_count(), 2, "the prompt ran again");
    let result = retried.result;
    assert_eq!(result["prompts_before"], 0);
    assert_eq!(result["prompts_run"], 1);
    assert_eq!(result["rewound"]["removed"], json!(["b.txt"]));
}

#[test]
fn sigterm_reaches_the_running_prompt_and_the_retry_resumes() {
    let task = AppendTask::new();
    // A scheduler's stop: SIGTERM to the runner alone (as to a container's
    // PID 1) while the model is silent after a Bash call.
    let (_first, mut runner) = task.start_until_appended(false, vec![]);
    let pid = nix::unistd::Pid::from_raw(i32::try_from(runner.id()).unwrap());
    nix::sys::signal::kill(pid, Signal::SIGTERM).unwrap();
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
    let retried = task.retry_appends_once();
    assert_eq!(retried.result["attempt"], 2);
}
