//! Subagents through the binary (issue 32): the `Agent` tool starts a
//! session of its own per call — its own system prompt, tools and history —
//! several calls of one message run in parallel, and the parent's next
//! request holds only each subagent's final answer. Project agents load
//! from `.claude/agents` in a trusted folder only; a `tools: Read, Grep`
//! agent gets exactly those; the subagent's stream-json lines carry
//! `parent_tool_use_id`; `SubagentStop` fires.

use std::time::Duration;

use orbit_test_support::anthropic::Turn;
use orbit_test_support::body;
use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, run_stream_json};

const REVIEWER: &str = "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\n---\nYou are the REVIEWER-PROMPT.\n";

/// Which subagent task (1..=3) a request belongs to, by its first message.
fn task_of(body: &Value) -> Option<usize> {
    let first = body["messages"][0].to_string();
    (1..=3).find(|n| first.contains(&format!("TASK-{n}-GO")))
}

/// A parent that delegates three tasks at once (the third to `third_type`)
/// and subagents that each run one tool call then answer `ANSWER-N`.
fn server(third_type: &str) -> FakeAnthropic {
    let third_type = third_type.to_string();
    let server = FakeAnthropic::start(vec![]);
    server.respond_with(move |_, body| {
        let has_results = !body::tool_results(body).is_empty();
        match task_of(body) {
            None if !has_results => {
                let call = |n: usize, kind: &str| {
                    json!({"description": format!("task {n}"), "prompt": format!("TASK-{n}-GO"), "subagent_type": kind})
                };
                Some(Reply::turn(
                    Turn::new()
                        .tool_use("toolu_a1", "Agent", call(1, "general-purpose"))
                        .tool_use("toolu_a2", "Agent", call(2, "Explore"))
                        .tool_use("toolu_a3", "Agent", call(3, &third_type))
                        .usage(100, 10),
                ))
            }
            None => Some(Reply::turn(Turn::new().text("PARENT-DONE").usage(100, 10))),
            Some(n) if !has_results => {
                let call = match n {
                    1 => ("Bash", json!({"command": "echo sub-one"})),
                    2 => ("Grep", json!({"pattern": "needle"})),
                    _ => ("Edit", json!({"file_path": "f.txt", "old_string": "a", "new_string": "b"})),
                };
                Some(Reply::turn(
                    Turn::new()
                        .tool_use(format!("toolu_s{n}"), call.0, call.1)
                        .delay_before_block(0, Duration::from_millis(400))
                        .usage(100, 10),
                ))
            }
            Some(n) => Some(Reply::turn(Turn::new().text(format!("ANSWER-{n}")).usage(100, 10))),
        }
    });
    server
}

/// Every file in `dir` (what a hook wrote, one input per file), parsed as JSON.
fn json_files(dir: &std::path::Path) -> Vec<Value> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            serde_json::from_slice(&std::fs::read(entry.unwrap().path()).unwrap()).unwrap()
        })
        .collect()
}

fn scratch() -> Scratch {
    let scratch = Scratch::new();
    std::fs::create_dir_all(scratch.path().join(".claude/agents")).unwrap();
    scratch.write(".claude/agents/reviewer.md", REVIEWER);
    scratch.write("f.txt", "a needle\n");
    scratch
}

fn run(scratch: &Scratch, server: &FakeAnthropic, extra: &[&str]) -> Outcome {
    let mut args = vec!["--verbose", "--dangerously-skip-permissions"];
    args.extend_from_slice(extra);
    run_stream_json(scratch, server, "delegate", &args)
}

#[test]
fn three_parallel_agents_each_have_their_own_history_and_the_parent_sees_only_answers() {
    let scratch = scratch();
    let server = server("reviewer");
    let out = run(&scratch, &server, &["--trust-project"]);
    assert_eq!(out.code, 0, "{}\n{}", out.stderr, out.stdout);
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 8, "parent 2 + 3 subagents × 2");
    // Parallel: the three subagents' first requests come before any
    // second one (each first reply is held 400 ms).
    let firsts: Vec<Option<usize>> = bodies[1..4].iter().map(task_of).collect();
    for n in 1..=3 {
        assert!(firsts.contains(&Some(n)), "{firsts:?}");
    }
    assert!(
        bodies[1..4]
            .iter()
            .all(|b| body::tool_results(b).is_empty())
    );
    for n in 1..=3 {
        let mine: Vec<&Value> = bodies.iter().filter(|b| task_of(b) == Some(n)).collect();
        assert_eq!(mine.len(), 2, "task {n}");
        // Its own history: the prompt first, never the parent's.
        assert!(!mine[0]["messages"].to_string().contains("delegate"));
        assert!(!body::tool_names(mine[0]).contains(&"Agent".to_string()));
    }
    let of = |n| bodies.iter().find(|b| task_of(b) == Some(n)).unwrap();
    assert_eq!(body::tool_names(of(3)), vec!["Read", "Grep"]);
    assert!(body::system_text(of(3)).contains("REVIEWER-PROMPT"));
    // Explore is read-only by the tools' facts: no Edit, Write or Bash.
    let explore = body::tool_names(of(2));
    assert!(explore.contains(&"Read".to_string()), "{explore:?}");
    for writer in ["Edit", "Write", "Bash"] {
        assert!(!explore.contains(&writer.to_string()), "{explore:?}");
    }
    assert!(body::tool_names(of(1)).contains(&"Bash".to_string()));
    // The reviewer's Edit was refused (not one of its tools).
    let reviewer_second = bodies
        .iter()
        .filter(|b| task_of(b) == Some(3))
        .nth(1)
        .unwrap();
    let refused = body::tool_results(reviewer_second);
    assert!(refused[0].is_error, "{:?}", refused[0].text);
    assert_eq!(
        std::fs::read_to_string(scratch.path().join("f.txt")).unwrap(),
        "a needle\n"
    );
    // The parent's next request: only the three final answers.
    let parent = bodies.last().unwrap();
    assert_eq!(task_of(parent), None);
    let results = body::tool_results(parent);
    assert_eq!(results.len(), 3);
    for (n, result) in results.iter().enumerate() {
        assert!(
            result.text.starts_with(&format!("ANSWER-{}", n + 1)),
            "{}",
            result.text
        );
        assert!(
            result.text.contains("<usage>subagent_tokens: "),
            "{}",
            result.text
        );
        assert!(!result.text.contains("sub-one"), "{}", result.text);
    }
    assert_eq!(out.result()["result"], "PARENT-DONE");
}

#[test]
fn an_untrusted_folder_s_agents_do_not_load() {
    let scratch = scratch();
    let server = server("reviewer");
    let out = run(&scratch, &server, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let description = body::tool(&server.bodies()[0], "Agent").unwrap()["description"].to_string();
    assert!(!description.contains("reviewer"), "{description}");
    assert!(description.contains("Explore"), "{description}");
    let results = body::tool_results(server.bodies().last().unwrap());
    assert!(results[2].is_error, "{}", results[2].text);
    assert!(results[2].text.contains("reviewer"), "{}", results[2].text);
}

#[test]
fn subagent_lines_carry_the_agent_call_id_and_subagent_stop_fires() {
    let scratch = scratch();
    let server = server("general-purpose");
    // One file per hook run: the three subagents end at about the same time.
    let log = scratch.path().join("stops");
    std::fs::create_dir(&log).unwrap();
    let parent_stops = scratch.path().join("parent-stops");
    std::fs::create_dir(&parent_stops).unwrap();
    let hook = |dir: &std::path::Path| json!([{"hooks": [{"type": "command", "command": format!("cat > \"$(mktemp -p {})\"", dir.display())}]}]);
    let starts = scratch.path().join("starts");
    std::fs::create_dir(&starts).unwrap();
    let settings = json!({"hooks": {"SubagentStop": hook(&log), "Stop": hook(&parent_stops),
        "SubagentStart": hook(&starts)}});
    let settings = scratch.write("settings.json", &settings.to_string());
    let out = run(
        &scratch,
        &server,
        &["--settings", settings.to_str().unwrap()],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = out.lines();
    let of_call = |id: &str| -> Vec<&Value> {
        lines
            .iter()
            .filter(|l| l["parent_tool_use_id"] == id)
            .collect()
    };
    for (id, n) in [("toolu_a1", 1), ("toolu_a2", 2), ("toolu_a3", 3)] {
        let mine = of_call(id);
        let text = serde_json::to_string(&mine).unwrap();
        assert!(text.contains(&format!("ANSWER-{n}")), "{id}: {text}");
        assert!(mine.iter().any(|l| l["type"] == "assistant"), "{id}");
        assert!(mine.iter().any(|l| l["type"] == "user"), "{id}");
    }
    let stops = json_files(&log);
    assert_eq!(stops.len(), 3, "{stops:?}");
    // SubagentStart once per subagent, with its id and type.
    let started = json_files(&starts);
    assert_eq!(started.len(), 3, "{started:?}");
    for start in &started {
        assert_eq!(start["hook_event_name"], "SubagentStart");
        assert!(
            stops
                .iter()
                .any(|stop| stop["agent_id"] == start["agent_id"]),
            "{start}"
        );
    }
    // Stop is the parent's alone.
    assert_eq!(std::fs::read_dir(&parent_stops).unwrap().count(), 1);
    let mut types: Vec<&str> = stops
        .iter()
        .map(|s| s["agent_type"].as_str().unwrap())
        .collect();
    types.sort();
    assert_eq!(types, ["Explore", "general-purpose", "general-purpose"]);
    // The result's cost and modelUsage include the subagents' 6 calls.
    let result = out.result();
    let usage = &result["modelUsage"][orbit_test_support::DEFAULT_MODEL];
    assert_eq!(usage["inputTokens"], 800, "{result}");
    let total = result["total_cost_usd"].as_f64().unwrap();
    assert!(
        total > 0.0 && (total - usage["costUSD"].as_f64().unwrap()).abs() < 1e-9,
        "{result}"
    );
    for stop in &stops {
        assert_eq!(stop["hook_event_name"], "SubagentStop");
        assert!(
            stop["last_assistant_message"]
                .as_str()
                .unwrap()
                .starts_with("ANSWER-")
        );
        assert_eq!(stop["stop_hook_active"], false);
    }
}

#[test]
fn agent_flag_runs_the_main_session_as_that_agent_and_agents_json_defines_one() {
    let scratch = scratch();
    let server = FakeAnthropic::start(vec![Reply::text("ok"), Reply::text("ok")]);
    let out = run(
        &scratch,
        &server,
        &["--trust-project", "--agent", "reviewer"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let first = &server.bodies()[0];
    assert!(body::system_text(first).contains("REVIEWER-PROMPT"));
    let tools = body::tool_names(first);
    assert!(
        tools.contains(&"Read".to_string()) && !tools.contains(&"Edit".to_string()),
        "{tools:?}"
    );
    let defined =
        json!({"scout": {"description": "SCOUT-ABOUT", "prompt": "p", "tools": ["Read"]}});
    let out = run(&scratch, &server, &["--agents", &defined.to_string()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let description = body::tool(&server.bodies()[1], "Agent").unwrap()["description"].to_string();
    assert!(description.contains("SCOUT-ABOUT"), "{description}");
}

#[test]
fn a_failing_subagent_is_an_error_result_and_the_parent_goes_on() {
    let scratch = scratch();
    let server = FakeAnthropic::start(vec![]);
    server.respond_with(|_, body| {
        if task_of(body).is_some() {
            return Some(Reply::api_error(400, "invalid_request_error", "SUB-BROKEN"));
        }
        Some(if body::tool_results(body).is_empty() {
            let input = json!({"description": "one", "prompt": "TASK-1-GO", "model": "haiku"});
            Reply::tool_use("toolu_a1", "Agent", input)
        } else {
            Reply::text("PARENT-DONE")
        })
    });
    let out = run(&scratch, &server, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The call's model alias, resolved by the catalog.
    let sub = server
        .bodies()
        .into_iter()
        .find(|b| task_of(b).is_some())
        .unwrap();
    assert!(
        sub["model"].as_str().unwrap().starts_with("claude-haiku"),
        "{}",
        sub["model"]
    );
    let results = body::tool_results(server.bodies().last().unwrap());
    assert!(results[0].is_error, "{}", results[0].text);
    assert!(
        results[0].text.contains("SUB-BROKEN"),
        "{}",
        results[0].text
    );
    assert_eq!(out.result()["result"], "PARENT-DONE");
}

#[test]
fn interrupting_the_parent_stops_its_subagent_and_the_subagent_s_command() {
    use super::interrupt::{exit_within_10s, sigint, spawn_orbit_with, wait_for_pid};
    use orbit_test_support::process::live_members_of_group;

    let scratch = scratch();
    let server = FakeAnthropic::start(vec![]);
    server.respond_with(|_, body| {
        Some(match task_of(body) {
            Some(_) => {
                let sleep = json!({"command": "echo $$ > started.pid; sleep 30", "timeout": 60000});
                Reply::tool_use("toolu_s1", "Bash", sleep)
            }
            None => {
                let input = json!({"description": "one", "prompt": "TASK-1-GO"});
                Reply::tool_use("toolu_a1", "Agent", input)
            }
        })
    });
    let mut child = spawn_orbit_with(&scratch, &server, "delegate", &[]);
    let pgid = wait_for_pid(&scratch, "started.pid", &mut child);
    assert!(!live_members_of_group(pgid).is_empty());
    sigint(&child);
    let (status, _) = exit_within_10s(child, "SIGINT");
    assert_eq!(status.code(), Some(130));
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    while !live_members_of_group(pgid).is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        live_members_of_group(pgid),
        Vec::<i32>::new(),
        "the subagent's command is gone"
    );
    assert_eq!(server.request_count(), 2, "no request after the interrupt");
}

#[test]
fn isolation_worktree_is_refused_rather_than_ignored() {
    let scratch = scratch();
    let input = json!({"description": "one", "prompt": "TASK-1-GO", "isolation": "worktree"});
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_a1", "Agent", input),
        Reply::text("PARENT-DONE"),
    ]);
    let out = run(&scratch, &server, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(server.request_count(), 2, "no subagent ran");
    let results = body::tool_results(&server.bodies()[1]);
    assert!(
        results[0].is_error && results[0].text.contains("isolation"),
        "{}",
        results[0].text
    );
}

#[test]
fn the_sdk_s_initialize_agents_can_be_started() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![]);
    server.respond_with(|_, body| {
        Some(match (task_of(body), body::tool_results(body).is_empty()) {
            (Some(_), _) => Reply::text("ANSWER-1"),
            (None, true) => {
                let input =
                    json!({"description": "one", "prompt": "TASK-1-GO", "subagent_type": "scout"});
                Reply::tool_use("toolu_a1", "Agent", input)
            }
            (None, false) => Reply::text("PARENT-DONE"),
        })
    });
    let agents = json!({"scout": {"description": "SCOUT-ABOUT", "prompt": "SCOUT-PROMPT", "tools": ["Read"]}});
    let init = json!({"type": "control_request", "request_id": "r1",
        "request": {"subtype": "initialize", "agents": agents}});
    let lines = [init, super::common::sdk_user_line("delegate")];
    let stdout = super::common::stream_json_session(&scratch, &server, &lines, &[]);
    assert!(stdout.contains("PARENT-DONE"), "{stdout}");
    let sub = server
        .bodies()
        .into_iter()
        .find(|b| task_of(b).is_some())
        .unwrap();
    assert!(body::system_text(&sub).contains("SCOUT-PROMPT"));
    assert_eq!(body::tool_names(&sub), vec!["Read"]);
    assert!(
        stdout.contains("\"parent_tool_use_id\":\"toolu_a1\""),
        "{stdout}"
    );
}
