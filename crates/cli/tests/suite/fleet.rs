//! Issue 42 through the binary: `orbit task run` runs task N of a JSONL
//! list as a headless session against the fake server and writes
//! `OUT/task-N.json` (the `json` result, exit code, cost, time, session id,
//! transcript copy); the index comes from `--index` or
//! `JOB_COMPLETION_INDEX`; bad indexes and bad lines are one clear error
//! before any request (retries: suite::fleet_retry);
//! `orbit task summary` folds the result files. The deploy recipes
//! validate offline (the validators come from ci/provision's venv).

use std::path::{Path, PathBuf};

use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, first_user_text, orbit_with_env, run, s};

/// Writes `tasks.jsonl` (one line per value) in the scratch dir.
pub(super) fn tasks_file(scratch: &Scratch, tasks: &[Value]) -> PathBuf {
    let text: String = tasks.iter().map(|t| format!("{t}\n")).collect();
    scratch.write("tasks.jsonl", &text)
}

/// `orbit task ARGS…` against `server` (or no server), in the scratch dir.
pub(super) fn task(scratch: &Scratch, env: &[(String, String)], args: &[&str]) -> Outcome {
    let mut cmd = orbit_with_env(scratch, env);
    cmd.arg("task").args(args);
    run(cmd)
}

/// The arguments `task run --tasks TASKS [--index INDEX] --out OUT` of
/// `orbit`: task INDEX of the file TASKS (without one, the index comes from
/// `JOB_COMPLETION_INDEX`), its result and work dir under OUT.
pub(super) fn task_run_args(tasks: &Path, index: Option<&str>, out: &Path) -> Vec<String> {
    let mut args = vec!["task".into(), "run".into(), "--tasks".into(), s(tasks)];
    if let Some(index) = index {
        args.extend(["--index".into(), index.into()]);
    }
    args.extend(["--out".into(), s(out)]);
    args
}

/// `orbit` with [`task_run_args`] and `env`, run to its end.
pub(super) fn run_task(
    scratch: &Scratch,
    env: &[(String, String)],
    tasks: &Path,
    index: Option<&str>,
    out: &Path,
) -> Outcome {
    let mut cmd = orbit_with_env(scratch, env);
    cmd.args(task_run_args(tasks, index, out));
    run(cmd)
}

pub(super) fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap()
}

pub(super) fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn task_n_runs_headless_and_writes_its_result_file() {
    let scratch = Scratch::new();
    let out = scratch.path().join("out");
    let target = out.join("work/task-1/made.txt");
    let server = FakeAnthropic::start(vec![
        Reply::tool_use(
            "toolu_w",
            "Write",
            json!({"file_path": s(&target), "content": "made\n"}),
        ),
        Reply::text("made it"),
    ]);
    let file = tasks_file(
        &scratch,
        &[
            json!({"prompt": "task zero"}),
            json!({"id": "make", "prompt": "task one: make a file", "permission_mode": "acceptEdits"}),
        ],
    );
    let run = run_task(&scratch, &server.env(), &file, Some("1"), &out);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Task 1's prompt was sent, through the `-p` path (the tool ran).
    assert_eq!(
        first_user_text(&server.bodies()[0]),
        "task one: make a file"
    );
    assert_eq!(read(&target), "made\n");
    let result = read_json(&out.join("task-1.json"));
    assert_eq!(result["index"], 1);
    assert_eq!(result["id"], "make");
    assert_eq!(result["status"], "solved");
    assert_eq!(result["exit_code"], 0);
    assert_eq!(result["resumed"], false);
    assert_eq!(result["attempt"], 1);
    assert!(result["cost_usd"].is_f64(), "{result}");
    assert!(result["duration_ms"].is_u64(), "{result}");
    assert_eq!(result["num_turns"], 2);
    // The child orbit's peak RSS (getrusage): some MiB, not a wild value.
    let rss = result["max_rss_kib"].as_u64().unwrap();
    assert!((1024..1024 * 1024).contains(&rss), "{rss} KiB");
    let id = result["session_id"].as_str().unwrap();
    assert_eq!(id.len(), 36, "{id}");
    // The `json` result itself, of the same session.
    assert_eq!(result["result"]["type"], "result");
    assert_eq!(result["result"]["result"], "made it");
    assert_eq!(result["result"]["session_id"], id);
    assert_eq!(result["result"]["total_cost_usd"], result["cost_usd"]);
    // The transcript, copied beside the result, and its source.
    let copy = out.join(result["transcript"].as_str().unwrap());
    assert!(read(&copy).contains("task one: make a file"));
    assert_eq!(
        read(&copy),
        read(Path::new(result["transcript_source"].as_str().unwrap()))
    );
    assert!(!out.join("task-0.json").exists());
    // Run again: solved already, nothing sent.
    let again = run_task(&scratch, &server.env(), &file, Some("1"), &out);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stderr.contains("solved by an earlier attempt"),
        "{}",
        again.stderr
    );
    assert_eq!(server.request_count(), 2);
}

#[test]
fn job_completion_index_picks_the_task_and_ids_differ_per_index() {
    let scratch = Scratch::new();
    let out = scratch.path().join("out");
    let server = FakeAnthropic::start(vec![Reply::text("a"), Reply::text("b")]);
    let file = tasks_file(
        &scratch,
        &[json!({"prompt": "first"}), json!({"prompt": "second"})],
    );
    for index in ["1", "0"] {
        let mut env = server.env();
        env.push(("JOB_COMPLETION_INDEX".into(), index.into()));
        let run = run_task(&scratch, &env, &file, None, &out);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let bodies = server.bodies();
    assert_eq!(first_user_text(&bodies[0]), "second");
    assert_eq!(first_user_text(&bodies[1]), "first");
    let (zero, one) = (
        read_json(&out.join("task-0.json")),
        read_json(&out.join("task-1.json")),
    );
    assert_eq!(one["result"]["result"], "a");
    assert_eq!(zero["result"]["result"], "b");
    assert_ne!(zero["session_id"], one["session_id"]);
    // `--index` wins over the variable.
    let mut env = server.env();
    env.push(("JOB_COMPLETION_INDEX".into(), "7".into()));
    let run = run_task(&scratch, &env, &file, Some("0"), &out);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn bad_indexes_and_malformed_lines_are_one_clear_error_before_any_request() {
    let scratch = Scratch::new();
    let out = scratch.path().join("out");
    let server = FakeAnthropic::start(vec![]);
    let file = scratch.write(
        "tasks.jsonl",
        concat!(
            "{\"prompt\": \"ok\"}\n",
            "\n",
            "{\"prompt\": \"ok\", \"colour\": \"red\"}\n",
            "{\"prompt\": 3}\n",
            "not json\n",
            "{\"prompt\": \"x\", \"args\": [\"--resume\", \"abc\"]}\n",
            "{\"prompts\": []}\n",
        ),
    );
    let cases: &[(&[&str], Option<&str>, &str)] = &[
        (&["--index", "9"], None, "task index 9 is out of range for"),
        (&["--index", "9"], None, "it has 6 tasks (0–5)"),
        (
            &["--index", "-1"],
            None,
            "--index must be a task number from 0, got `-1`",
        ),
        (
            &[],
            Some("x"),
            "JOB_COMPLETION_INDEX must be a task number from 0, got `x`",
        ),
        (
            &[],
            None,
            "no task index: pass --index N or set JOB_COMPLETION_INDEX",
        ),
        (
            &["--index", "1"],
            None,
            "tasks.jsonl line 3 (task 1) is not a task: unknown field `colour`",
        ),
        (
            &["--index", "2"],
            None,
            "tasks.jsonl line 4 (task 2) is not a task: invalid type: integer `3`",
        ),
        (
            &["--index", "3"],
            None,
            "tasks.jsonl line 5 (task 3) is not a task: expected",
        ),
        (
            &["--index", "4"],
            None,
            "`args` may not contain --resume (orbit task run sets it)",
        ),
        (
            &["--index", "5"],
            None,
            "line 7 (task 5): no `prompt` (or `prompts`)",
        ),
    ];
    let mut failures = Vec::new();
    for (args, variable, expected) in cases {
        let mut env = server.env();
        if let Some(v) = variable {
            env.push(("JOB_COMPLETION_INDEX".into(), (*v).into()));
        }
        let mut cmd = orbit_with_env(&scratch, &env);
        cmd.args(task_run_args(&file, None, &out)).args(*args);
        let run = run(cmd);
        let lines: Vec<&str> = run.stderr.lines().collect();
        if run.code != 1
            || lines.len() != 1
            || !lines[0].starts_with("orbit: error: ")
            || !lines[0].contains(expected)
        {
            failures.push(format!(
                "{args:?} {variable:?}: code {} stderr {:?}",
                run.code, run.stderr
            ));
        }
    }
    let missing = run_task(
        &scratch,
        &server.env(),
        Path::new("nope.jsonl"),
        Some("0"),
        &out,
    );
    if missing.code != 1
        || !missing
            .stderr
            .contains("task file nope.jsonl: it does not exist")
    {
        failures.push(format!("missing file: {}", missing.stderr));
    }
    super::common::assert_no_failures(&failures, cases.len() + 1);
    assert_eq!(server.request_count(), 0);
}

#[test]
fn summary_counts_solved_failed_cost_and_percentiles() {
    let scratch = Scratch::new();
    let out = scratch.path().join("out");
    let server = FakeAnthropic::start(vec![
        Reply::text("fine"),
        Reply::api_error(400, "invalid_request_error", "no such thing"),
    ]);
    let file = tasks_file(
        &scratch,
        &[json!({"prompt": "good"}), json!({"prompt": "bad"})],
    );
    for index in ["0", "1"] {
        let _ = run_task(&scratch, &server.env(), &file, Some(index), &out);
    }
    let (good, bad) = (
        read_json(&out.join("task-0.json")),
        read_json(&out.join("task-1.json")),
    );
    assert_eq!(good["status"], "solved");
    assert_eq!(bad["status"], "failed");
    assert_eq!(bad["exit_code"], 1);
    std::fs::write(out.join("task-9.json"), "{torn").unwrap();
    let summary = task(&scratch, &[], &["summary", &s(&out), "--json"]);
    assert_eq!(summary.code, 0, "{}", summary.stderr);
    let figures: Value = serde_json::from_str(summary.stdout.trim()).unwrap();
    let cost = good["cost_usd"].as_f64().unwrap() + bad["cost_usd"].as_f64().unwrap();
    let mut times = [
        good["duration_ms"].as_u64().unwrap(),
        bad["duration_ms"].as_u64().unwrap(),
    ];
    times.sort_unstable();
    assert_eq!(figures["tasks"], 3);
    assert_eq!(figures["solved"], 1);
    assert_eq!(figures["failed"], 1);
    assert_eq!(figures["unreadable"], json!(["task-9.json"]));
    assert!(
        (figures["cost_usd"].as_f64().unwrap() - cost).abs() < 1e-12,
        "{figures}"
    );
    assert_eq!(figures["p50_ms"], times[0]);
    assert_eq!(figures["p95_ms"], times[1]);
    let text = task(&scratch, &[], &["summary", &s(&out)]);
    assert!(
        text.stdout
            .starts_with("3 tasks: 1 solved, 1 failed, 1 unreadable (task-9.json)\ncost: $"),
        "{}",
        text.stdout
    );
    // A FIFO among the results (a shared volume) is unreadable, not a hang.
    nix::unistd::mkfifo(&out.join("task-8.json"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    let summary = task(&scratch, &[], &["summary", &s(&out), "--json"]);
    assert_eq!(summary.code, 0, "{}", summary.stderr);
    let figures: Value = serde_json::from_str(summary.stdout.trim()).unwrap();
    assert_eq!(figures["tasks"], 4);
    assert!(
        figures["unreadable"]
            .as_array()
            .unwrap()
            .contains(&json!("task-8.json")),
        "{figures}"
    );
    assert!(
        text.stdout.contains("time per task: p50 "),
        "{}",
        text.stdout
    );
}

/// The venv ci/provision installs the validators into.
fn validator(name: &str) -> Option<PathBuf> {
    let venv_bin = std::env::var_os("ORBIT_MCP_PYTHON")
        .map(PathBuf::from)
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/orbit-ci/py/venv/bin"))
        })?;
    Some(venv_bin.join(name)).filter(|p| p.exists())
}

fn validate(program: &Path, args: &[&str], file: &Path) -> (bool, String) {
    let out = std::process::Command::new(program)
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn deploy_recipes_validate_offline() {
    let (Some(kube), Some(schema)) = (
        validator("kubernetes-validate"),
        validator("check-jsonschema"),
    ) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "kubernetes-validate / check-jsonschema missing: run ci/provision (ci/deps.txt lists them)"
        );
        eprintln!("skipped: the validators are not installed (ci/provision installs them)");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let job = root.join("deploy/k8s/fleet-job.yaml");
    let workflow = root.join("deploy/github/orbit-fleet.yml");
    let (ok, text) = validate(&kube, &["--strict"], &job);
    assert!(ok, "{text}");
    assert_eq!(text.matches("passed").count(), 3, "{text}");
    let (ok, text) = validate(
        &schema,
        &["--builtin-schema", "vendor.github-workflows"],
        &workflow,
    );
    assert!(ok, "{text}");
    // The validators do refuse: an unknown field, a job without runs-on.
    let scratch = Scratch::new();
    let bad_job = scratch.write(
        "job.yaml",
        &read(&job).replace("backoffLimit: 6", "backoffLimit: 6\n  retries: 6"),
    );
    assert!(!validate(&kube, &["--strict"], &bad_job).0);
    let bad_flow = scratch.write(
        "flow.yml",
        &read(&workflow).replace("runs-on: ubuntu-24.04\n    timeout", "timeout"),
    );
    assert!(
        !validate(
            &schema,
            &["--builtin-schema", "vendor.github-workflows"],
            &bad_flow
        )
        .0
    );
}
