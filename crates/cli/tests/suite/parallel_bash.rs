//! X5 through the binary: read-only Bash calls of one message run together
//! and each keeps its own real result when one of them fails — none is
//! replaced by `Cancelled: parallel tool call Bash(false) errored`
//! (Claude Code 2.1.332, DESIGN §11).

use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use serde_json::json;

use super::common::Scratch;
use super::harness::stream_json_ok;

/// One model message calling Bash with each command (ids `toolu_1`…),
/// then a final answer, in permission mode `mode`; the results the second
/// request carries, as `(text, is_error)`.
fn run_parallel(scratch: &Scratch, mode: &str, commands: &[&str]) -> Vec<(String, bool)> {
    let mut turn = Turn::new();
    for (i, command) in commands.iter().enumerate() {
        turn = turn.tool_use(
            format!("toolu_{}", i + 1),
            "Bash",
            json!({ "command": command }),
        );
    }
    let server = FakeAnthropic::start(vec![Reply::turn(turn), Reply::text("done")]);
    let args = ["--allowedTools", "Bash", "--permission-mode", mode];
    stream_json_ok(scratch, &server, "run them", &args);
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2, "one batch of calls, then the answer");
    body::tool_results(&bodies[1])
        .into_iter()
        .map(|r| (r.text, r.is_error))
        .collect()
}

/// The four-call case, in bypass mode as Claude Code ran it (the
/// `ls` outside the project would otherwise ask): the `ls` failure text
/// reaches the model.
#[test]
fn four_read_only_bash_calls_keep_their_own_results_when_one_fails() {
    let scratch = Scratch::new();
    let results = run_parallel(
        &scratch,
        "bypassPermissions",
        &[
            "sleep 2; echo slow-done",
            "false",
            "ls /nonexistent_dir_x",
            "sleep 1; echo mid-done",
        ],
    );
    assert_eq!(results.len(), 4, "{results:?}");
    assert_eq!(results[0], ("slow-done".to_string(), false));
    assert_eq!(results[1], ("Exit code 1".to_string(), true));
    assert!(
        results[2]
            .0
            .starts_with("Exit code 2\nls: cannot access '/nonexistent_dir_x'"),
        "{results:?}"
    );
    assert!(results[2].1);
    assert_eq!(results[3], ("mid-done".to_string(), false));
}

/// Eight calls with `diff`, `grep` and `false`: every result is the
/// command's own (exit 1 of diff and grep is success, exit 2 an error).
/// The two `seq` pipelines are read-only and slow (about 0.5 s each), so
/// they are still running when `false` fails.
#[test]
fn eight_read_only_bash_calls_with_diff_grep_and_false_keep_their_results() {
    let scratch = Scratch::new();
    scratch.write("a.txt", "one\ntwo\n");
    scratch.write("b.txt", "one\nthree\n");
    let results = run_parallel(
        &scratch,
        "default",
        &[
            "seq 20000000 | wc -l",
            "diff a.txt b.txt",
            "grep -c nomatch a.txt",
            "false",
            "grep two missing_q.txt",
            "seq 30000000 | tail -n 1",
            "diff a.txt missing_q.txt",
            "cat a.txt",
        ],
    );
    assert_eq!(results.len(), 8, "{results:?}");
    let cancelled: Vec<_> = results
        .iter()
        .filter(|(text, _)| text.contains("Cancelled"))
        .collect();
    assert!(cancelled.is_empty(), "replaced results: {results:?}");
    assert_eq!(results[0], ("20000000".to_string(), false));
    assert!(results[1].0.contains("< two\n---\n> three"), "{results:?}");
    assert!(!results[1].1);
    assert_eq!(results[2], ("0".to_string(), false));
    assert_eq!(results[3], ("Exit code 1".to_string(), true));
    assert!(
        results[4].0.starts_with("Exit code 2\ngrep: missing_q.txt"),
        "{results:?}"
    );
    assert!(results[4].1);
    assert_eq!(results[5], ("30000000".to_string(), false));
    assert!(
        results[6].0.starts_with("Exit code 2\ndiff: missing_q.txt"),
        "{results:?}"
    );
    assert!(results[6].1);
    assert_eq!(results[7], ("one\ntwo".to_string(), false));
}
