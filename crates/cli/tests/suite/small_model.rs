//! Issue 17's small-model profile through the binary, against the fake
//! OpenAI server (`ORBIT_SMALL_MODEL=1`, on by default for `local`):
//! recovery turns, the default `--max-turns` and `--max-tokens`, the
//! runaway guard and one tool call per reply. The guards every model has
//! are in `edit_guards`, over this module's helpers.

use orbit_test_support::{Completion, FakeOpenAi, OpenAiReply};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, orbit_with_env, run};

/// The small-model profile's reminder (crates/profile/src/texts.rs), as
/// the model must receive it.
const REMINDER: &str =
    "Do it yourself with the tools; the user cannot run anything. Call a tool now.";
/// The reminder it once sent after a failed call answered with text
/// (issue 17; never sent since issue 38): counted, so a return shows.
const AFTER_ERROR: &str = "Your last tool call failed. Do not repeat it: fix it or do the task \
another way (Read the file first; find a file with Bash `grep -rn 'WORD' .`). Reply in plain text \
only when the task is done.";

/// Whether a user message's content is one of the recovery reminders.
fn is_reminder(content: &Value) -> bool {
    content == REMINDER || content == AFTER_ERROR
}

/// The default turn limit of the small-model profile.
const SMALL_MAX_TURNS: usize = orbit_profile::SMALL.max_turns_per_run as usize;

pub(super) fn text(t: &str) -> OpenAiReply {
    OpenAiReply::completion(Completion::new().text(t))
}

pub(super) fn call(id: &str, name: &str, input: Value) -> OpenAiReply {
    OpenAiReply::completion(Completion::new().tool_call(id, name, input))
}

/// `orbit -p PROMPT --output-format stream-json EXTRA…` against `server`,
/// with `ORBIT_SMALL_MODEL` set when `small` is.
pub(super) fn run_openai(
    scratch: &Scratch,
    server: &FakeOpenAi,
    small: Option<&str>,
    extra: &[&str],
) -> Outcome {
    let mut env = server.env();
    if let Some(value) = small {
        env.push(("ORBIT_SMALL_MODEL".into(), value.into()));
    }
    let mut cmd = orbit_with_env(scratch, &env);
    cmd.args(["-p", "do the task", "--output-format", "stream-json"])
        .args(extra);
    run(cmd)
}

/// The `content` of every `tool` message of a chat-completions request.
pub(super) fn tool_texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The user texts of the stream-json output that are the reminder.
fn reminders_printed(out: &Outcome) -> usize {
    out.lines()
        .iter()
        .filter(|l| l["type"] == "user")
        .filter(|l| {
            let content = &l["message"]["content"];
            is_reminder(content)
                || content
                    .as_array()
                    .is_some_and(|blocks| blocks.iter().any(|b| is_reminder(&b["text"])))
        })
        .count()
}

/// Recovery turns: with the small profile, a final reply that imitates a
/// tool exchange, or tells the user what to run before any tool ran, is
/// answered with the reminder (a user message in the transcript and in the
/// next request), at most twice per prompt; so is a reply echoing the
/// harness's invitation; a text reply right after a failed call is an
/// answer (issue 38: one answer per question); without the profile the
/// reply ends the run, and advice after a tool ran is an answer.
#[test]
fn recovery_turns_remind_a_describing_model_at_most_twice() {
    let imitation = "<tool_response>\nMAGIC=48213\n</tool_response>";
    let describing = "You need to run `cat config.txt` to see the value.";
    let json_call = "{\"name\": \"Read\", \"arguments\": {\"file_path\": \"config.txt\"}}";
    let read = || call("c", "Read", json!({"file_path": "config.txt"}));
    // An Edit whose old_string is not in the file: it fails.
    let stale_edit = || {
        call(
            "e",
            "Edit",
            json!({"file_path": "config.txt", "old_string": "MAGIC=1", "new_string": "MAGIC=2"}),
        )
    };
    // (case, ORBIT_SMALL_MODEL, replies, requests made, reminders, result)
    type Case = (
        &'static str,
        Option<&'static str>,
        Vec<OpenAiReply>,
        usize,
        usize,
        &'static str,
    );
    let table: Vec<Case> = vec![
        (
            "imitation, then a real call",
            Some("1"),
            vec![text(imitation), read(), text("MAGIC is 48213.")],
            3,
            1,
            "MAGIC is 48213.",
        ),
        (
            "bounded: two reminders, the third reply stands",
            Some("1"),
            vec![text(describing), text(json_call), text(describing)],
            3,
            2,
            describing,
        ),
        (
            "a tool ran: a describing reply ends the run",
            Some("1"),
            vec![read(), text(describing)],
            2,
            0,
            describing,
        ),
        (
            "a tool ran: an imitated exchange is still reminded",
            Some("1"),
            vec![read(), text(imitation), text("MAGIC is 48213.")],
            3,
            1,
            "MAGIC is 48213.",
        ),
        (
            "a tool ran: echoing the harness is reminded",
            Some("1"),
            vec![
                read(),
                text("Otherwise make your next tool call."),
                text("MAGIC is 48213."),
            ],
            3,
            1,
            "MAGIC is 48213.",
        ),
        (
            "a failed call answered with text: the answer stands, no after-error reminder",
            Some("1"),
            vec![
                stale_edit(),
                text("The string was not found."),
                text("The task is done."),
            ],
            2,
            0,
            "The string was not found.",
        ),
        (
            "profile off",
            Some("0"),
            vec![text(imitation)],
            1,
            0,
            imitation,
        ),
        (
            "openai default",
            None,
            vec![text(imitation)],
            1,
            0,
            imitation,
        ),
    ];
    for (what, small, replies, requests, reminders, result) in table {
        let scratch = Scratch::new();
        scratch.write("config.txt", "MAGIC=48213\n");
        let server = FakeOpenAi::start(replies);
        let out = run_openai(&scratch, &server, small, &[]);
        assert_eq!(out.code, 0, "{what}: {}\n{}", out.stderr, out.stdout);
        assert_eq!(out.result()["result"], result, "{what}");
        let bodies = server.bodies();
        assert_eq!(bodies.len(), requests, "{what}");
        // llama.cpp's `cache_prompt` goes to the local server only.
        assert!(
            bodies.iter().all(|b| b.get("cache_prompt").is_none()),
            "{what}"
        );
        assert_eq!(reminders_printed(&out), reminders, "{what}");
        let sent = bodies
            .iter()
            .filter(|b| {
                let last = b["messages"].as_array().unwrap().last().unwrap().clone();
                last["role"] == "user" && is_reminder(&last["content"])
            })
            .count();
        assert_eq!(sent, reminders, "{what}: reminders sent to the model");
    }
}

/// The small profile stops a model that keeps calling tools after 25 model
/// calls (with a line saying how to allow more) and caps each reply at
/// 1,024 output tokens; explicit `--max-turns` / `--max-tokens` win, and
/// without the profile there is no turn limit and the cap is 32,000.
#[test]
fn the_small_profile_has_default_max_turns_and_max_tokens_and_the_flags_win() {
    let looping = || -> Vec<OpenAiReply> {
        (0..=SMALL_MAX_TURNS)
            // A different input each call: the runaway-loop guard (same
            // call 10 times in a row) must not be what stops the run.
            .map(|i| {
                call(
                    &format!("c{i}"),
                    "LS",
                    json!({"path": ".", "ignore": [format!("x{i}")]}),
                )
            })
            .chain([text("stopped")])
            .collect()
    };
    let small_max_tokens = u64::from(orbit_profile::SMALL.max_output_tokens);
    // (case, ORBIT_SMALL_MODEL, extra args, requests made, subtype, max_tokens sent)
    let table = [
        (
            "default limit",
            Some("1"),
            vec![],
            SMALL_MAX_TURNS,
            "error_max_turns",
            small_max_tokens,
        ),
        (
            "flags win",
            Some("1"),
            vec!["--max-turns", "3", "--max-tokens", "300"],
            3,
            "error_max_turns",
            300,
        ),
        (
            "no profile, no limit",
            None,
            vec![],
            SMALL_MAX_TURNS + 2,
            "success",
            32_000,
        ),
    ];
    for (what, small, extra, requests, subtype, max_tokens) in table {
        let scratch = Scratch::new();
        let server = FakeOpenAi::start(looping());
        let out = run_openai(&scratch, &server, small, &extra);
        assert_eq!(out.result()["subtype"], subtype, "{what}: {}", out.stderr);
        assert_eq!(server.request_count(), requests, "{what}");
        for body in server.bodies() {
            assert_eq!(body["max_tokens"], max_tokens, "{what}");
        }
        let hint = format!(
            "orbit: error: Reached maximum number of turns ({SMALL_MAX_TURNS})\n\
orbit: the small-model profile stops after {SMALL_MAX_TURNS} model calls by default; pass --max-turns N to allow more\n"
        );
        if what == "default limit" {
            assert_eq!(out.stderr, hint, "{what}");
        } else {
            assert!(!out.stderr.contains("by default"), "{what}: {}", out.stderr);
        }
    }
}

/// The runaway guard of the small profile (limit 3) through the binary: a
/// model that alternates a refused Edit and a Read — seen in the
/// evaluation, where it ran into the 25-turn limit — is reminded after the
/// second pair and stopped after the third (six model calls), with the
/// cycle named.
#[test]
fn the_small_profile_stops_a_cycle_of_a_refused_edit_and_a_read() {
    let scratch = Scratch::new();
    scratch.write(".gitignore", "target/\n");
    let replies: Vec<OpenAiReply> = (0..8)
        .flat_map(|i| {
            [
                call(
                    &format!("e{i}"),
                    "Edit",
                    json!({"file_path": ".gitignore", "old_string": "", "new_string": "*.log"}),
                ),
                call(&format!("r{i}"), "Read", json!({"file_path": ".gitignore"})),
            ]
        })
        .collect();
    let server = FakeOpenAi::start(replies);
    let out = run_openai(&scratch, &server, Some("1"), &[]);
    super::runaway::assert_runaway_stop(&out, "Edit then Read", 3);
    // Three pairs, then the run ends without another request.
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 6);
    // The reminder follows the results as a user message (chat
    // completions has no text block beside a tool message).
    let reminder =
        "<system-reminder>You have called Edit then Read with the same input 2 times in a row";
    let reminded: Vec<usize> = bodies
        .iter()
        .enumerate()
        .filter(|(_, b)| {
            let last = b["messages"].as_array().unwrap().last().unwrap().clone();
            last["role"] == "user"
                && last["content"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with(reminder)
        })
        .map(|(i, _)| i)
        .collect();
    // With the results of the second pair's Read (request 5, index 4).
    assert_eq!(reminded, vec![4]);
    let kept = std::fs::read_to_string(scratch.path().join(".gitignore")).unwrap();
    assert_eq!(kept, "target/\n");
}

/// One tool call per reply in the small profile: a reply that chains two
/// calls (the evaluation's 1.5B model wrote a dozen, each guessing the
/// result of the one before) runs its first only, the request says
/// `parallel_tool_calls: false`, and the next request's history holds the
/// one call. Without the profile both run.
#[test]
fn the_small_profile_runs_one_tool_call_per_reply() {
    let chained = || {
        OpenAiReply::completion(
            Completion::new()
                .tool_call(
                    "w1",
                    "Write",
                    json!({"file_path": "one.txt", "content": "1"}),
                )
                .tool_call(
                    "w2",
                    "Write",
                    json!({"file_path": "two.txt", "content": "2"}),
                ),
        )
    };
    // (ORBIT_SMALL_MODEL, files written, parallel_tool_calls sent)
    let table = [
        (Some("1"), vec!["one.txt"], json!(false)),
        (None, vec!["one.txt", "two.txt"], Value::Null),
    ];
    for (small, written, parallel) in table {
        let scratch = Scratch::new();
        let server = FakeOpenAi::start(vec![chained(), text("Wrote it.")]);
        let out = run_openai(
            &scratch,
            &server,
            small,
            &["--permission-mode", "acceptEdits"],
        );
        assert_eq!(
            out.result()["result"],
            "Wrote it.",
            "{small:?}: {}",
            out.stderr
        );
        for name in ["one.txt", "two.txt"] {
            let exists = scratch.path().join(name).exists();
            assert_eq!(exists, written.contains(&name), "{small:?}: {name}");
        }
        let bodies = server.bodies();
        assert_eq!(bodies.len(), 2, "{small:?}");
        assert_eq!(bodies[0]["parallel_tool_calls"], parallel, "{small:?}");
        let calls: usize = bodies[1]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m["tool_calls"].as_array())
            .map(Vec::len)
            .sum();
        assert_eq!(calls, written.len(), "{small:?}");
        assert_eq!(tool_texts(&bodies[1]).len(), written.len(), "{small:?}");
    }
}
