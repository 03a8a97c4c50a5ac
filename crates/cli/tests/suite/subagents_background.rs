//! Issue 32: background subagents, TaskStop and worktree isolation through
//! the binary.
//!
//! - `run_in_background`: the Agent call answers at once with Claude Code
//!   2.1.332's "Async agent launched" text, the parent's turn goes on and
//!   ends, and the subagent's result arrives afterwards as a
//!   `<task-notification>` user message that starts another turn; `-p`
//!   does not exit while the agent runs.
//! - TaskStop stops a background agent in the middle of its Bash `sleep
//!   300`: when TaskStop answers, the sleep's process is gone.
//! - `isolation: "worktree"`: the subagent works in a fresh `git worktree`
//!   under `.claude/worktrees/`, removed when it ends clean, kept (and
//!   reported) when it changed something.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use orbit_test_support::body;
use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, git_in, run_stream_json};
use super::harness::orbit_ok;

/// Longest wait for the sleeping subagent's pid file, in milliseconds.
const PID_WAIT_MS: u64 = 20_000;

fn first_text(body: &Value) -> String {
    body["messages"][0].to_string()
}

fn last_text(body: &Value) -> String {
    body::last_message(body).to_string()
}

/// A model turn that calls `tool` with `input` (10 tokens in, 1 out).
fn tool_turn(id: &str, tool: &str, input: Value) -> Reply {
    Reply::turn(Turn::new().tool_use(id, tool, input).usage(10, 1))
}

/// A model turn that runs `command` through Bash.
fn bash_turn(id: &str, command: &str) -> Reply {
    tool_turn(id, "Bash", json!({"command": command}))
}

/// The parent's Agent call `toolu_bg`, run in the background.
fn background_agent(description: &str, prompt: &str) -> Reply {
    tool_turn(
        "toolu_bg",
        "Agent",
        json!({"description": description, "prompt": prompt, "run_in_background": true}),
    )
}

fn run(scratch: &Scratch, server: &FakeAnthropic) -> Outcome {
    run_stream_json(
        scratch,
        server,
        "delegate",
        &["--verbose", "--dangerously-skip-permissions"],
    )
}

/// The agent id in a launch's tool_result text.
fn launched_id(text: &str) -> String {
    let after = text.split("agentId: ").nth(1).unwrap_or_default();
    after
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// A parent that launches one background agent (its Bash sleeps 1 s),
/// answers `PARENT-WAITING`, then `PARENT-FINAL` to the notification.
fn background_server() -> FakeAnthropic {
    let server = FakeAnthropic::start(vec![]);
    server.respond_with(|_, b| {
        let results = body::tool_results(b);
        Some(if first_text(b).contains("BG-GO") {
            if results.is_empty() {
                bash_turn("toolu_s1", "sleep 1; echo BG-OUT")
            } else {
                Reply::text("BG-ANSWER")
            }
        } else if last_text(b).contains("task-notification") {
            Reply::text("PARENT-FINAL")
        } else if results.is_empty() {
            background_agent("bg task", "BG-GO")
        } else {
            Reply::text("PARENT-WAITING")
        })
    });
    server
}

#[test]
fn a_background_agent_s_result_arrives_after_the_parent_s_turn_ended() {
    let scratch = Scratch::new();
    let server = background_server();
    let out = run(&scratch, &server);
    assert_eq!(out.code, 0, "{}\n{}", out.stderr, out.stdout);
    let bodies = server.bodies();
    let parent: Vec<&Value> = bodies
        .iter()
        .filter(|b| !first_text(b).contains("BG-GO"))
        .collect();
    assert_eq!(parent.len(), 3, "launch, answer, notification");
    let launched = &body::tool_results(parent[1])[0];
    assert!(!launched.is_error, "{}", launched.text);
    assert!(
        launched
            .text
            .starts_with("Async agent launched successfully."),
        "{}",
        launched.text
    );
    let id = launched_id(&launched.text);
    assert!(id.starts_with('a') && id.len() == 17, "{id}");
    // The parent's turn ended before the subagent's last request.
    let position = |pred: &dyn Fn(&Value) -> bool| bodies.iter().position(pred).unwrap();
    let parent_answered = position(&|b| std::ptr::eq(b, parent[1]));
    let sub_last =
        position(&|b| first_text(b).contains("BG-GO") && !body::tool_results(b).is_empty());
    assert!(parent_answered < sub_last, "{parent_answered} {sub_last}");
    // The later message: Claude Code's notification with the result.
    let notice = last_text(parent[2]);
    for part in [
        "[SYSTEM NOTIFICATION - NOT USER INPUT]",
        &format!("<task-id>{id}</task-id>"),
        "<tool-use-id>toolu_bg</tool-use-id>",
        "<status>completed</status>",
        "<summary>Agent \\\"bg task\\\" finished</summary>",
        "<result>BG-ANSWER</result>",
        "<tool_uses>1</tool_uses>",
    ] {
        assert!(notice.contains(part), "{part}: {notice}");
    }
    assert!(!notice.contains("BG-OUT"), "{notice}");
    // Two results, as Claude Code prints them: the turn's, then the
    // notification's.
    let results: Vec<Value> = out
        .lines()
        .into_iter()
        .filter(|l| l["type"] == "result")
        .collect();
    assert_eq!(results.len(), 2, "{}", out.stdout);
    assert_eq!(results[0]["result"], "PARENT-WAITING");
    assert_eq!(results[1]["result"], "PARENT-FINAL");
}

/// Whether a process with this pid exists (a zombie counts as gone).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| !stat.split(") ").nth(1).unwrap_or("").starts_with('Z'))
}

fn wait_for_pid(file: &Path) -> u32 {
    let started = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(file)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        assert!(
            started.elapsed() < Duration::from_millis(PID_WAIT_MS),
            "the subagent's sleep never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn task_stop_stops_a_background_agent_mid_tool_and_leaves_no_process() {
    let scratch = Scratch::new();
    let pid_file = scratch.path().join("sleep.pid");
    // Whether the sleep was alive when TaskStop's answer reached the model.
    let seen: Arc<Mutex<Option<(u32, bool)>>> = Arc::default();
    let server = FakeAnthropic::start(vec![]);
    let (file, record) = (pid_file.clone(), Arc::clone(&seen));
    server.respond_with(move |_, b| {
        let results = body::tool_results(b);
        Some(if first_text(b).contains("STOP-GO") {
            let command = "echo $$ > sleep.pid; exec sleep 300";
            bash_turn("toolu_s1", command)
        } else if last_text(b).contains("task-notification") {
            Reply::text("PARENT-FINAL")
        } else if results.is_empty() {
            background_agent("stop task", "STOP-GO")
        } else if results[0].tool_use_id == "toolu_bg" {
            // The parent waits (in its own Bash) until the sleep runs.
            let wait = "while [ ! -s sleep.pid ]; do sleep 0.05; done; cat sleep.pid";
            bash_turn("toolu_wait", wait)
        } else if results[0].tool_use_id == "toolu_wait" {
            let pid = wait_for_pid(&file);
            *record.lock().unwrap() = Some((pid, alive(pid)));
            let launch = body::messages(b)
                .iter()
                .flat_map(body::message_tool_results)
                .find(|r| r.tool_use_id == "toolu_bg")
                .map(|r| r.text)
                .unwrap_or_default();
            Reply::turn(
                Turn::new()
                    .tool_use(
                        "toolu_stop",
                        "TaskStop",
                        json!({"task_id": launched_id(&launch)}),
                    )
                    .usage(10, 1),
            )
        } else {
            let prior = *record.lock().unwrap();
            if let Some((pid, _)) = prior {
                *record.lock().unwrap() = Some((pid, alive(pid)));
            }
            Reply::text("STOPPED")
        })
    });
    let started = Instant::now();
    let out = run(&scratch, &server);
    assert_eq!(out.code, 0, "{}\n{}", out.stderr, out.stdout);
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the sleep ran on"
    );
    let (pid, alive_after_stop) = seen.lock().unwrap().unwrap();
    assert!(!alive_after_stop, "sleep {pid} outlived TaskStop");
    assert!(!alive(pid), "sleep {pid} outlived the run");
    let bodies = server.bodies();
    let after_stop = bodies
        .iter()
        .find(|b| {
            body::tool_results(b)
                .iter()
                .any(|r| r.tool_use_id == "toolu_stop")
        })
        .unwrap();
    let stopped = &body::tool_results(after_stop)[0];
    assert!(!stopped.is_error, "{}", stopped.text);
    let answer: Value = serde_json::from_str(&stopped.text).unwrap();
    assert_eq!(answer["task_type"], "local_agent", "{answer}");
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .starts_with("Successfully stopped task: a"),
        "{answer}"
    );
    let notice = last_text(bodies.last().unwrap());
    assert!(notice.contains("<status>killed</status>"), "{notice}");
    assert_eq!(out.result()["result"], "PARENT-FINAL");
}

/// A git repository with one commit in the scratch dir.
fn repo() -> Scratch {
    let scratch = Scratch::new();
    scratch.write("a.txt", "a\n");
    git_in(&scratch.path(), &scratch.home(), &["init", "-q"]);
    git_in(&scratch.path(), &scratch.home(), &["add", "a.txt"]);
    git_in(&scratch.path(), &scratch.home(), &["commit", "-qm", "init"]);
    scratch
}

/// Runs one foreground worktree agent whose Bash runs `command`; the run
/// must succeed. Returns the Bash output the subagent saw and the
/// parent's tool_result.
fn worktree_run(scratch: &Scratch, command: &'static str) -> (String, String) {
    let server = FakeAnthropic::start(vec![]);
    server.respond_with(move |_, b| {
        let results = body::tool_results(b);
        Some(
            match (first_text(b).contains("WT-GO"), results.is_empty()) {
                (true, true) => bash_turn("toolu_s1", command),
                (true, false) => Reply::text("WT-ANSWER"),
                (false, true) => tool_turn(
                    "toolu_wt",
                    "Agent",
                    json!({"description": "wt task", "prompt": "WT-GO", "isolation": "worktree"}),
                ),
                (false, false) => Reply::text("PARENT-DONE"),
            },
        )
    });
    let out = run(scratch, &server);
    assert_eq!(out.code, 0, "{}\n{}", out.stderr, out.stdout);
    let bodies = server.bodies();
    let sub = bodies
        .iter()
        .find(|b| first_text(b).contains("WT-GO") && !body::tool_results(b).is_empty())
        .map(|b| body::tool_results(b)[0].text.clone())
        .unwrap_or_default();
    let parent = body::tool_results(bodies.last().unwrap())
        .first()
        .map(|r| r.text.clone())
        .unwrap_or_default();
    (sub, parent)
}

fn worktrees_dir(scratch: &Scratch) -> PathBuf {
    scratch.path().join(".claude/worktrees")
}

fn git_out(scratch: &Scratch, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(scratch.path())
        .env("HOME", scratch.home())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_worktree_agent_works_in_a_fresh_worktree_removed_when_it_ends_clean() {
    let scratch = repo();
    let (seen, parent) = worktree_run(&scratch, "pwd; git worktree list");
    let pwd = seen.lines().next().unwrap_or_default().to_string();
    let expected = worktrees_dir(&scratch).join("agent-a");
    assert!(pwd.starts_with(&expected.display().to_string()), "{seen}");
    assert!(seen.contains("[worktree-agent-a"), "{seen}");
    assert!(parent.starts_with("WT-ANSWER"), "{parent}");
    assert!(!parent.contains("<worktree>"), "{parent}");
    // Removed with its branch: only the main checkout is left.
    assert!(!Path::new(&pwd).exists(), "{pwd} left behind");
    assert_eq!(git_out(&scratch, &["worktree", "list"]).lines().count(), 1);
    assert!(!git_out(&scratch, &["branch"]).contains("worktree-agent"));
}

#[test]
fn a_worktree_with_changes_is_kept_and_its_path_reported() {
    let scratch = repo();
    let (seen, parent) = worktree_run(&scratch, "pwd; echo new > new.txt");
    let pwd = seen.lines().next().unwrap_or_default().to_string();
    assert!(
        parent.contains(&format!("<worktree><worktreePath>{pwd}</worktreePath>")),
        "{parent}"
    );
    assert!(
        parent.contains("<worktreeBranch>worktree-agent-a"),
        "{parent}"
    );
    assert_eq!(
        std::fs::read_to_string(Path::new(&pwd).join("new.txt")).unwrap(),
        "new\n"
    );
    assert!(!scratch.path().join("new.txt").exists());
    assert!(git_out(&scratch, &["branch"]).contains("worktree-agent-a"));
}

#[test]
fn ctrl_c_while_a_background_agent_runs_stops_it_and_ends_the_run() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![]);
    server.respond_with(|_, b| {
        Some(if first_text(b).contains("INT-GO") {
            let command = "echo $$ > sleep.pid; exec sleep 300";
            bash_turn("toolu_s1", command)
        } else if body::tool_results(b).is_empty() {
            background_agent("int task", "INT-GO")
        } else {
            Reply::text("PARENT-WAITING")
        })
    });
    let mut child = super::common::orbit_process(&scratch, &server.env())
        .args(["-p", "delegate", "--dangerously-skip-permissions"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = wait_for_pid(&scratch.path().join("sleep.pid"));
    // The parent's turn has ended; orbit waits for the agent.
    let started = Instant::now();
    while server.bodies().len() < 3 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no parent answer"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(alive(pid));
    assert!(
        child.try_wait().unwrap().is_none(),
        "-p ended while the agent ran"
    );
    kill(
        Pid::from_raw(i32::try_from(child.id()).unwrap()),
        Signal::SIGINT,
    )
    .unwrap();
    super::common::wait_within(&mut child, Duration::from_secs(20));
    assert!(!alive(pid), "sleep {pid} outlived the interrupted run");
}

#[test]
fn an_sdk_session_gets_the_notification_as_a_later_turn_even_after_stdin_closed() {
    let scratch = Scratch::new();
    let server = background_server();
    let stdout = super::common::stream_json_session(
        &scratch,
        &server,
        &[super::common::sdk_user_line("delegate")],
        &["--dangerously-skip-permissions"],
    );
    let results: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["type"] == "result")
        .collect();
    assert_eq!(results.len(), 2, "{stdout}");
    assert_eq!(results[0]["result"], "PARENT-WAITING");
    assert_eq!(results[1]["result"], "PARENT-FINAL");
    let last = server.bodies().last().cloned().unwrap();
    assert!(
        last_text(&last).contains("<result>BG-ANSWER</result>"),
        "{last}"
    );
}

#[test]
fn json_output_is_one_document_with_the_last_turn_s_result() {
    let scratch = Scratch::new();
    let server = background_server();
    let out = orbit_ok(
        &scratch,
        &server,
        &[
            "-p",
            "delegate",
            "--output-format",
            "json",
            "--dangerously-skip-permissions",
        ],
    );
    let document: Value = serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| {
        panic!("{e}: {}", out.stdout);
    });
    assert_eq!(document["result"], "PARENT-FINAL", "{document}");
}

#[test]
fn a_repository_s_claude_link_does_not_place_the_worktree_elsewhere() {
    let scratch = repo();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), scratch.path().join(".claude")).unwrap();
    let (seen, parent) = worktree_run(&scratch, "pwd");
    assert!(seen.is_empty(), "the subagent ran: {seen}");
    assert!(parent.contains("is a link"), "{parent}");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}
