//! Issue 39, the interactive UI's first hour: output that went around the
//! UI, the past a resumed session did not show, and `/model` accepting what
//! the provider cannot run. Each runs the real `orbit` binary in a tmux pane
//! (`tui.rs`'s style) against the fake servers; a session to resume is made
//! headless first (`-p`, which saves it as the UI does).

use orbit_test_support::{Completion, FakeAnthropic, FakeOpenAi, OpenAiReply, Reply};

use super::clients::Pane;
use super::common::{Scratch, run_stream_json_with_env};
use super::harness::{
    assert_contains, local_model_pane, saved_session, status_line, stream_json_ok,
};

/// A warning orbit prints while the UI runs (a settings `env` entry it
/// ignores; said again by `/clear`'s new session) becomes a line of its
/// own in the scrollback: never glued into the input box, never in the
/// live region, nothing but the status line on the last row.
#[test]
fn a_warning_printed_while_the_ui_runs_lands_in_the_scrollback_not_the_live_region() {
    let scratch = Scratch::new();
    scratch.write_home(
        ".claude/settings.json",
        r#"{"env": {"ORBIT_LOG": "debug"}}"#,
    );
    let server = FakeAnthropic::start(vec![]);
    let pane = Pane::start(&scratch, &server.env(), &[]);
    const WARNING: &str = "ignoring env.ORBIT_LOG";
    pane.wait_for(WARNING);
    pane.submit("/clear");
    let screen = pane.wait_until("the warning twice", |s| s.matches(WARNING).count() >= 2);
    pane.wait_for("New session");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let screen = format!("{screen}\n{}", pane.screen());
    for line in screen.lines().filter(|l| l.contains(WARNING)) {
        assert!(
            line.trim_start()
                .starts_with("orbit: warning: ignoring env.ORBIT_LOG"),
            "a warning glued to other text: {line:?}\n{screen}"
        );
    }
    assert!(!screen.contains("/clearorbit"), "{screen}");
    // The live region (the visible rows from the input box's top border
    // down) holds no stderr byte.
    let visible = pane.visible();
    let rows: Vec<&str> = visible.lines().collect();
    let input = rows
        .iter()
        .rposition(|r| r.starts_with("───"))
        .expect("the input box is visible");
    for row in &rows[input..] {
        assert!(
            !row.contains("orbit:") && !row.contains(WARNING),
            "stderr in the live region: {row:?}\n{visible}"
        );
    }
    let last = rows.iter().rev().find(|r| !r.trim().is_empty()).unwrap();
    assert!(last.contains("ctx "), "the status line is last: {visible}");
}

/// `orbit --continue` opens on the past: the earlier prompt and answer,
/// then "Resumed session ID (2 messages)".
#[test]
fn continue_shows_the_previous_prompts_and_a_resumed_line() {
    let scratch = Scratch::new();
    // A long answer (≈ 25,000 tokens of a 200,000-token window): the
    // resumed context figure is the session's, not a new session's 0%.
    let long: String = (0..2_000)
        .map(|n| format!("Line {n} of the long answer, forty-two.\n"))
        .collect();
    let answer = format!("The answer is forty-two.\n\n{long}");
    let first = FakeAnthropic::start(vec![Reply::text(answer)]);
    let model = ["--model", "claude-sonnet-4-5"];
    let id = saved_session(&scratch, &first, "what is the answer alpha", &model);

    let server = FakeAnthropic::start(vec![]);
    let pane = Pane::start(&scratch, &server.env(), &["--continue", model[0], model[1]]);
    let screen = pane.wait_for("Resumed session");
    assert_contains(&screen, "> what is the answer alpha");
    assert_contains(&screen, "The answer is forty-two.");
    assert_contains(&screen, &format!("Resumed session {id} (2 messages)"));
    let prompt_at = screen.find("> what is the answer alpha").unwrap();
    assert!(
        prompt_at < screen.find("Resumed session").unwrap(),
        "{screen}"
    );
    let status = status_line(&pane);
    assert!(!status.contains("ctx 0%"), "{status}");
}

/// A compacted session resumed shows its summary as what it is — one
/// collapsed line, the text on Ctrl-O — never as a prompt the person typed.
#[test]
fn a_compacted_session_resumed_shows_its_summary_collapsed() {
    let scratch = Scratch::new();
    let first = FakeAnthropic::start(vec![Reply::text("The answer is 42.")]);
    stream_json_ok(&scratch, &first, "What is the answer?", &[]);
    let compacting = FakeAnthropic::start(vec![Reply::text("SUMMARY-OF-THE-QUESTION")]);
    stream_json_ok(&scratch, &compacting, "/compact", &["-c", "--verbose"]);

    let server = FakeAnthropic::start(vec![]);
    let pane = Pane::start(&scratch, &server.env(), &["--continue"]);
    let screen = pane.wait_for("Resumed session");
    assert_contains(&screen, "⎿ compacted summary (Ctrl-O to expand)");
    assert!(
        !screen.contains("This session is being continued"),
        "{screen}"
    );
    assert!(!screen.contains("SUMMARY-OF-THE-QUESTION"), "{screen}");
    pane.keys(&["C-o"]);
    let screen = pane.wait_for("SUMMARY-OF-THE-QUESTION");
    let line = screen
        .lines()
        .find(|l| l.contains("SUMMARY-OF-THE-QUESTION"))
        .unwrap();
    assert!(!line.trim_start().starts_with('>'), "{line:?}");
}

/// `/model sonnet` typed in `pane` is refused with `reason` and switches
/// nothing; the status line afterwards.
fn sonnet_refused(pane: &Pane, reason: &str) -> String {
    pane.submit("/model sonnet");
    let screen = pane.wait_for("Model not switched");
    assert_contains(&screen, reason);
    assert!(!screen.contains("Model set to"), "{screen}");
    status_line(pane)
}

/// `/model sonnet` on an OpenAI-compatible provider is refused with the
/// reason; the status line keeps the model in use, `/model` lists what the
/// provider runs, and a model it runs is accepted.
#[test]
fn model_sonnet_on_an_openai_provider_is_refused_with_the_reason() {
    let scratch = Scratch::new();
    let server = FakeOpenAi::start(vec![OpenAiReply::completion(
        Completion::new().text("hello").usage(40, 4),
    )]);
    let pane = Pane::start(&scratch, &server.env(), &[]);
    let status = sonnet_refused(&pane, "sonnet runs on the Anthropic provider");
    assert!(status.contains("gpt-4.1"), "{status}");
    pane.submit("/model");
    let screen = pane.wait_for("Available:");
    let available = screen.lines().find(|l| l.contains("Available:")).unwrap();
    assert!(available.contains("gpt-4o"), "{available}");
    assert!(!available.contains("sonnet"), "{available}");
    pane.submit("/model gpt-4o");
    pane.wait_for("Model set to gpt-4o");
}

/// Headless `/model` answers the same way: refused on the OpenAI provider
/// with the same reason (an error result, no request), its list the
/// provider's.
#[test]
fn headless_model_is_checked_against_the_provider_too() {
    let scratch = Scratch::new();
    let server = FakeOpenAi::start(vec![]);
    let out = run_stream_json_with_env(&scratch, &server.env(), "/model sonnet", &[]);
    let result = out.result();
    assert_eq!(result["subtype"], "error_during_execution", "{result}");
    let errors = result["errors"].to_string();
    assert_contains(&errors, "sonnet runs on the Anthropic provider");
    let out = run_stream_json_with_env(&scratch, &server.env(), "/model", &[]);
    let text = out.result()["result"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        text.contains("gpt-4o") && !text.contains("sonnet"),
        "{text}"
    );
}

/// `/model sonnet` on the local provider (no key: orbit's local model) is
/// refused with the reason; the status line keeps the local model.
#[test]
fn model_sonnet_on_the_local_provider_is_refused_with_the_reason() {
    let scratch = Scratch::new();
    let pane = local_model_pane(&scratch, &[]);
    let status = sonnet_refused(&pane, "the local provider runs one model");
    assert!(status.contains("qwen"), "{status}");
    assert!(!status.contains("sonnet"), "{status}");
}

/// The status line follows the model actually answering: after the main
/// model is overloaded and `--fallback-model` takes over, it names the
/// fallback.
#[test]
fn the_status_line_names_the_fallback_model_once_it_answers() {
    const MAIN: &str = "claude-opus-5-5";
    const FALLBACK: &str = "claude-haiku-4-5";
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("answered by the fallback")]);
    server.respond_with(|_, body| (body["model"] == MAIN).then(Reply::overloaded));
    let mut env = server.env();
    env.push(("ORBIT_MAX_RETRIES".into(), "0".into()));
    let pane = Pane::start(
        &scratch,
        &env,
        &["--model", MAIN, "--fallback-model", FALLBACK],
    );
    pane.submit("hello");
    pane.wait_for("answered by the fallback");
    pane.wait_idle();
    let status = status_line(&pane);
    assert!(status.contains(FALLBACK), "{status}");
    assert!(!status.contains(MAIN), "{status}");
}

/// A resumed history shows each tool call as its one line, and the
/// system reminder an `@` attachment added to a prompt as one collapsed
/// line — the prompt itself as typed, the file's text only on Ctrl-O.
#[test]
fn a_resumed_history_shows_tool_lines_and_reminders_collapsed() {
    let scratch = Scratch::new();
    scratch.write("notes.txt", "delta-content-17\n");
    let first = FakeAnthropic::start(vec![
        Reply::text("Noted."),
        Reply::tool_use(
            "toolu_1",
            "Bash",
            serde_json::json!({"command": "echo gamma"}),
        ),
        Reply::text("Ran it."),
    ]);
    let bypass = ["--permission-mode", "bypassPermissions"];
    let pane = Pane::start(&scratch, &first.env(), &bypass);
    pane.submit("summarize @notes.txt please");
    pane.wait_for("Noted.");
    pane.wait_idle();
    pane.submit("run it");
    pane.wait_for("Ran it.");
    pane.exit();
    drop(pane);

    let server = FakeAnthropic::start(vec![]);
    let pane = Pane::start(&scratch, &server.env(), &["--continue"]);
    let screen = pane.wait_for("Resumed session");
    let resumed = &screen[screen.find("Resumed session").unwrap()..];
    let replayed = &screen[..screen.len() - resumed.len()];
    assert_contains(replayed, "> summarize @notes.txt please");
    assert_contains(replayed, "⎿ system reminder: Called the Read tool");
    assert!(!replayed.contains("delta-content-17"), "{screen}");
    assert!(!replayed.contains("> <system-reminder>"), "{screen}");
    assert!(replayed.contains("Bash(echo gamma) ⎿ gamma"), "{screen}");
    assert!(replayed.contains("Ran it."), "{screen}");
    pane.keys(&["C-o"]);
    pane.wait_for("delta-content-17");
}

/// The `/resume` picker says when each session was last used: relative
/// ("just now" for one a moment old) and the UTC date and minute.
#[test]
fn the_resume_picker_shows_when_each_session_was_last_used() {
    let scratch = Scratch::new();
    let first = FakeAnthropic::start(vec![Reply::text("Saved.")]);
    let id = saved_session(&scratch, &first, "an earlier session epsilon", &[]);
    let server = FakeAnthropic::start(vec![]);
    let pane = Pane::start(&scratch, &server.env(), &[]);
    pane.submit("/resume");
    pane.wait_for("Resume a session");
    let screen = pane.wait_for(&id[..8]);
    let row = screen.lines().find(|l| l.contains(&id[..8])).unwrap();
    let modified = std::fs::metadata(orbit_session_file(&scratch, &id))
        .unwrap()
        .modified()
        .unwrap();
    let secs = modified
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let (y, m, d) = orbit_session::civil_from_days(i64::try_from(secs / 86_400).unwrap());
    let date = format!("{y:04}-{m:02}-{d:02}");
    assert!(row.contains("just now · "), "{row}");
    assert!(row.contains(&date), "{row}");
    assert!(row.contains("an earlier session epsilon"), "{row}");
}

/// The transcript of session `id` in `scratch`'s project.
fn orbit_session_file(scratch: &Scratch, id: &str) -> std::path::PathBuf {
    orbit_session::transcript_path(&scratch.home().join(".orbit"), &scratch.path(), id)
}
