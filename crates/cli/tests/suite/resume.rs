//! Issue 11 through the binary: `--session-id`, `-r/--resume`,
//! `-c/--continue`, `--fork-session`, `--no-session-persistence`,
//! `orbit sessions`, totals and limits across resumes, and bad input (each a
//! one-line error before any request, nothing lost).

use std::path::PathBuf;

use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::{Value, json};

use super::common::{
    Outcome, Scratch, orbit, orbit_with_env, run, run_answered, run_stream_json, s,
};
use super::harness::stream_json_ok;

const ID: &str = "5d0f3c8a-1b2e-4c7d-9e6f-0a1b2c3d4e5f";
const OTHER: &str = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";

/// The transcript of `id` for the scratch project.
fn transcript(scratch: &Scratch, id: &str) -> PathBuf {
    orbit_session::transcript_path(&scratch.home().join(".orbit"), &scratch.path(), id)
}

/// A first session `ID`: Read a file, then answer (2 model calls, $0.30).
fn first_session(scratch: &Scratch) -> Outcome {
    let notes = scratch.write("notes.txt", "alpha\n");
    let server = FakeAnthropic::start(vec![
        Reply::turn(
            Turn::new()
                .tool_use("toolu_r1", "Read", json!({"file_path": s(&notes)}))
                .usage(100_000, 0),
        ),
        Reply::text("It says alpha."),
    ]);
    stream_json_ok(
        scratch,
        &server,
        "What do the notes say?",
        &["--session-id", ID],
    )
}

fn init_session_id(out: &Outcome) -> String {
    out.lines()[0]["session_id"].as_str().unwrap().to_string()
}

fn texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|b| b["text"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn resume_and_continue_go_on_with_the_whole_history_and_totals() {
    let scratch = Scratch::new();
    let first = first_session(&scratch);
    assert_eq!(init_session_id(&first), ID);
    let first_cost = first.result()["total_cost_usd"].as_f64().unwrap();
    assert!(transcript(&scratch, ID).is_file());

    let server = FakeAnthropic::start(vec![Reply::text("Still alpha."), Reply::text("Yes.")]);
    let resumed = stream_json_ok(&scratch, &server, "And now?", &["-r", ID]);
    assert_eq!(resumed.stderr, "");
    assert_eq!(init_session_id(&resumed), ID);
    let body = &server.bodies()[0];
    assert_eq!(
        texts(body),
        vec!["What do the notes say?", "It says alpha.", "And now?"]
    );
    assert_eq!(body["messages"].as_array().unwrap().len(), 5);
    // The result's cost is the session's, across the resume.
    assert!(resumed.result()["total_cost_usd"].as_f64().unwrap() >= first_cost);

    let continued = stream_json_ok(&scratch, &server, "Sure?", &["--continue"]);
    assert_eq!(init_session_id(&continued), ID);
    assert_eq!(texts(&server.bodies()[1]).len(), 5);

    // orbit sessions: this directory's session with its totals.
    let listed = run_sessions(&scratch, &["--json"]);
    let rows: Value = serde_json::from_str(&listed.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows}");
    assert_eq!(rows[0]["session_id"], ID);
    assert_eq!(rows[0]["first_prompt"], "What do the notes say?");
    assert_eq!(rows[0]["turns"], 4);
    assert_eq!(rows[0]["cwd"], s(&scratch.path()));
    assert!(rows[0]["total_cost_usd"].as_f64().unwrap() >= first_cost);
    let table = run_sessions(&scratch, &[]);
    assert_eq!(table.code, 0);
    let lines: Vec<&str> = table.stdout.lines().collect();
    assert!(lines[0].starts_with("SESSION"), "{}", table.stdout);
    assert!(
        lines[1].starts_with(ID) && lines[1].ends_with("What do the notes say?"),
        "{}",
        lines[1]
    );
    assert!(lines[1].contains("$0.30"), "{}", lines[1]);
}

fn run_sessions(scratch: &Scratch, extra: &[&str]) -> Outcome {
    let mut cmd = orbit_with_env(scratch, &[]);
    cmd.arg("sessions").args(extra);
    run(cmd)
}

#[test]
fn a_fork_gets_a_new_id_and_leaves_the_original_transcript_untouched() {
    let scratch = Scratch::new();
    first_session(&scratch);
    let before = std::fs::read(transcript(&scratch, ID)).unwrap();
    let server = FakeAnthropic::start(vec![Reply::text("forked"), Reply::text("named fork")]);
    let fork = stream_json_ok(&scratch, &server, "branch", &["-c", "--fork-session"]);
    let fork_id = init_session_id(&fork);
    assert_ne!(fork_id, ID);
    assert_eq!(texts(&server.bodies()[0]).len(), 3);
    assert_eq!(std::fs::read(transcript(&scratch, ID)).unwrap(), before);
    assert!(transcript(&scratch, &fork_id).is_file());

    // A fork may be given its id.
    let named = stream_json_ok(
        &scratch,
        &server,
        "again",
        &["-r", ID, "--fork-session", "--session-id", OTHER],
    );
    assert_eq!(init_session_id(&named), OTHER);
    let all = run_sessions(&scratch, &["--json", "--all"]);
    let rows: Value = serde_json::from_str(&all.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 3);
    assert_eq!(rows[0]["session_id"], OTHER);
    assert_eq!(rows[0]["forked_from"], ID);
}

#[test]
fn limits_count_the_whole_session_across_resumes() {
    let scratch = Scratch::new();
    first_session(&scratch);
    // (flag, limit, the result's subtype, requests made): 2 calls already
    // made, so --max-turns 2 allows none; $0.30 already spent, so a budget
    // of $0.30 stops after the next call.
    let cases = [
        ("--max-turns", "2", "error_max_turns", 0),
        ("--max-budget-usd", "0.3", "error_max_budget_usd", 1),
    ];
    for (flag, limit, subtype, requests) in cases {
        let server = FakeAnthropic::start(vec![
            Reply::tool_use("toolu_b", "Read", json!({"file_path": "notes.txt"})),
            Reply::text("never"),
        ]);
        let out = run_stream_json(&scratch, &server, "more", &["-r", ID, flag, limit]);
        assert_eq!(out.code, 1, "{flag}: {}", out.stderr);
        assert_eq!(out.result()["subtype"], subtype, "{flag}");
        assert_eq!(server.request_count(), requests, "{flag}");
    }
}

#[test]
fn no_session_persistence_writes_no_transcript() {
    let (scratch, _server, out) =
        run_answered("gone", &["--no-session-persistence", "--session-id", ID]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!transcript(&scratch, ID).exists());
    assert!(!scratch.home().join(".orbit/projects").exists());
    let listed = run_sessions(&scratch, &[]);
    assert_eq!(
        listed.stdout,
        format!("No sessions in {}.\n", scratch.path().display())
    );
    assert_eq!(run_sessions(&scratch, &["--json"]).stdout, "[]\n");
}

#[test]
fn bad_session_flags_fail_in_one_line_before_any_request_and_lose_nothing() {
    let scratch = Scratch::new();
    first_session(&scratch);
    let original = std::fs::read(transcript(&scratch, ID)).unwrap();
    let elsewhere = Scratch::new();
    let unknown = "00000000-0000-4000-8000-000000000000";
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["-r", "not-a-uuid"],
            "--resume: `not-a-uuid` is not a session id".into(),
        ),
        (
            vec!["--session-id", "12345"],
            "--session-id: `12345` is not a session id".into(),
        ),
        (
            vec!["-r", unknown],
            format!("no session {unknown} in {}", s(&scratch.path())),
        ),
        (
            vec!["--session-id", ID],
            format!("session {ID} already exists"),
        ),
        (
            vec!["--fork-session"],
            "--fork-session needs --resume ID or --continue".into(),
        ),
        (
            vec!["-r", ID, "--session-id", OTHER],
            "--session-id names a new session; with --resume or --continue add --fork-session"
                .into(),
        ),
        (
            vec!["-c", "-r", ID],
            "the argument '--continue' cannot be used with '--resume <ID>'".into(),
        ),
    ];
    for (flags, message) in cases {
        let server = FakeAnthropic::start(vec![Reply::text("never")]);
        let mut cmd = orbit(&scratch, &server);
        cmd.args(["-p", "x"]).args(&flags);
        let out = run(cmd);
        assert_eq!(out.code, 1, "{flags:?}: {}", out.stderr);
        assert!(
            out.stderr.starts_with("orbit: error: "),
            "{flags:?}: {}",
            out.stderr
        );
        assert!(out.stderr.contains(&message), "{flags:?}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{flags:?}: {}", out.stderr);
        assert_eq!(server.request_count(), 0, "{flags:?}");
    }
    assert_eq!(std::fs::read(transcript(&scratch, ID)).unwrap(), original);

    // From another directory: where the session is, and nothing to continue.
    let server = FakeAnthropic::start(vec![]);
    let mut cmd = orbit_with_env(&elsewhere, &server.env());
    cmd.env("ORBIT_HOME", scratch.home().join(".orbit"))
        .args(["-p", "x", "-r", ID]);
    let out = run(cmd);
    out.assert_error_containing(&format!(
        "session {ID} belongs to another directory, {}",
        s(&scratch.path())
    ));
    let mut cmd = orbit(&elsewhere, &server);
    cmd.args(["-p", "x", "-c"]);
    let out = run(cmd);
    out.assert_error_containing("no session to continue in");
    assert_eq!(server.request_count(), 0);
}

#[test]
fn a_damaged_transcript_is_a_clear_error_and_left_as_it_was() {
    let scratch = Scratch::new();
    first_session(&scratch);
    let path = transcript(&scratch, ID);
    let mut bytes = std::fs::read(&path).unwrap();
    // Damage the second line (the first prompt), keep the rest.
    let second = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    bytes[second] = b'#';
    std::fs::write(&path, &bytes).unwrap();
    let server = FakeAnthropic::start(vec![Reply::text("never")]);
    let out = run_stream_json(&scratch, &server, "x", &["-r", ID]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.starts_with(&format!(
            "orbit: error: cannot resume session {ID}: session transcript {} is damaged at line 2:",
            path.display()
        )),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert_eq!(server.request_count(), 0);
}
