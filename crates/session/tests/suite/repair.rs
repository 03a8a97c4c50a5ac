//! The reader: replay rules (merge, boundaries, dropped in-flight messages,
//! totals) and the repairs of what a crash leaves (torn last line, tool_uses
//! without results); damage that is not a crash is a clear error.

use std::io::Write;

use orbit_protocol::{ContentBlock, Message};
use orbit_session::{
    CompactionRecord, CompactionTrigger, Record, Repair, ReplacementsRecord, SessionError,
};

use super::support::*;

#[tokio::test]
async fn replay_rebuilds_history_decisions_and_totals() {
    let dir = tempfile::tempdir().unwrap();
    let path = path_in(dir.path(), "s");
    let boundary = Record::Compaction(CompactionRecord {
        trigger: CompactionTrigger::Auto,
        tokens_before: 900,
        tokens_after: 90,
        summary: "summary".into(),
        messages: vec![Message::user_text("summary")],
        loaded_tools: vec![],
    });
    write(
        &path,
        &[
            header("s"),
            prompt("one"),
            message(calls(&["t1"])),
            message(results(&["t1"])),
            Record::Replacements(ReplacementsRecord {
                seen: vec!["t1".into()],
                replaced: [("t1".to_string(), "<persisted-output>".to_string())].into(),
            }),
            usage(1, 0.5),
            boundary,
            prompt("two"),
            message(Message::assistant(vec![ContentBlock::text(
                "streamed, then dropped",
            )])),
            Record::DropLastMessage,
            prompt("three"),
            usage(3, 1.25),
        ],
    )
    .await;
    let loaded = load(&path).unwrap();
    // From the boundary on; user messages merged as the engine merges them.
    assert_eq!(
        loaded.messages,
        vec![Message::user(vec![
            ContentBlock::text("summary"),
            ContentBlock::text("two"),
            ContentBlock::text("three"),
        ])]
    );
    assert!(loaded.seen_ids.contains("t1"));
    assert_eq!(loaded.replacements["t1"], "<persisted-output>");
    assert_eq!((loaded.turns, loaded.total_cost_usd), (3, 1.25));
    assert_eq!(loaded.usage.input_tokens, 30);
    assert_eq!(loaded.repairs, vec![]);
    assert_eq!(loaded.valid_len, std::fs::metadata(&path).unwrap().len());
}

/// Tool_uses without results, wherever a crash can leave them.
#[tokio::test]
async fn tool_uses_without_results_get_the_interrupted_result() {
    struct Case {
        name: &'static str,
        records: Vec<Record>,
        messages: Vec<Message>,
        pending: Option<Message>,
        repaired: Vec<&'static str>,
    }
    let cases = vec![
        Case {
            name: "crash while the tools ran: results appended after the history",
            records: vec![prompt("p"), message(calls(&["a", "b"]))],
            messages: vec![Message::user_text("p"), calls(&["a", "b"])],
            pending: Some(Message::user(vec![interrupted("a"), interrupted("b")])),
            repaired: vec!["a", "b"],
        },
        Case {
            name: "a prompt followed the cut call: results first in that message",
            records: vec![prompt("p"), message(calls(&["a"])), prompt("go on")],
            messages: vec![
                Message::user_text("p"),
                calls(&["a"]),
                Message::user(vec![interrupted("a"), ContentBlock::text("go on")]),
            ],
            pending: None,
            repaired: vec!["a"],
        },
        Case {
            name: "one result of two missing",
            records: vec![
                prompt("p"),
                message(calls(&["a", "b"])),
                message(results(&["b"])),
            ],
            messages: vec![
                Message::user_text("p"),
                calls(&["a", "b"]),
                Message::user(vec![interrupted("a"), results(&["b"]).content[0].clone()]),
            ],
            pending: None,
            repaired: vec!["a"],
        },
        Case {
            name: "paired history: nothing to do",
            records: vec![
                prompt("p"),
                message(calls(&["a"])),
                message(results(&["a"])),
            ],
            messages: vec![Message::user_text("p"), calls(&["a"]), results(&["a"])],
            pending: None,
            repaired: vec![],
        },
    ];
    for case in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path(), "s");
        let mut records = vec![header("s")];
        records.extend(case.records);
        write(&path, &records).await;
        let loaded = load(&path).unwrap();
        assert_eq!(loaded.messages, case.messages, "{}", case.name);
        assert_eq!(loaded.pending_results, case.pending, "{}", case.name);
        let expected: Vec<Repair> = if case.repaired.is_empty() {
            vec![]
        } else {
            vec![Repair::InterruptedToolUses {
                tool_use_ids: case.repaired.iter().map(|s| s.to_string()).collect(),
            }]
        };
        assert_eq!(loaded.repairs, expected, "{}", case.name);
    }
}

/// Appends raw bytes to a transcript (what a crash mid-write leaves).
fn append_raw(path: &std::path::Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
}

#[tokio::test]
async fn a_torn_last_line_is_dropped_and_cut_off_before_the_next_append() {
    let dir = tempfile::tempdir().unwrap();
    let path = path_in(dir.path(), "s");
    write(&path, &[header("s"), prompt("kept")]).await;
    let intact = std::fs::metadata(&path).unwrap().len();
    append_raw(
        &path,
        br#"{"v":1,"type":"message","message":{"role":"assis"#,
    );

    let loaded = load(&path).unwrap();
    assert_eq!(
        loaded.repairs,
        vec![Repair::TornLastLine { line: 3, bytes: 48 }]
    );
    assert_eq!(loaded.valid_len, intact);
    assert_eq!(loaded.messages, vec![Message::user_text("kept")]);
    assert_eq!(
        loaded.repairs[0].to_string(),
        "dropped an incomplete last record (line 3, 48 bytes) left by a crash"
    );

    // Appending again first cuts the torn bytes off.
    let mut writer = orbit_session::TranscriptWriter::append_existing(
        path.clone(),
        loaded.valid_len,
        loaded.needs_newline,
    );
    writer.append(&prompt("after"));
    writer.sync().await.unwrap();
    let again = load(&path).unwrap();
    assert_eq!(again.repairs, vec![]);
    assert_eq!(
        again.messages,
        vec![Message::user(vec![
            ContentBlock::text("kept"),
            ContentBlock::text("after")
        ])]
    );
}

#[tokio::test]
async fn a_complete_last_record_without_its_newline_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = path_in(dir.path(), "s");
    write(&path, &[header("s")]).await;
    append_raw(
        &path,
        br#"{"v":1,"type":"message","message":{"role":"user","content":"hi"}}"#,
    );
    let loaded = load(&path).unwrap();
    assert!(loaded.needs_newline);
    assert_eq!(loaded.repairs, vec![]);
    let mut writer =
        orbit_session::TranscriptWriter::append_existing(path.clone(), loaded.valid_len, true);
    writer.append(&prompt("more"));
    writer.sync().await.unwrap();
    let again = load(&path).unwrap();
    assert!(!again.needs_newline);
    assert_eq!(again.messages[0].content.len(), 2);
}

#[tokio::test]
async fn damage_that_is_not_a_crash_is_a_clear_error_and_the_file_is_left_alone() {
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "a bad line followed by more records",
            b"{\"v\":1,\"type\":\"header\",\"session_id\":\"s\",\"cwd\":\"/\",\"created_at_ms\":1,\"orbit_version\":\"t\"}\nnot json\n{\"v\":1,\"type\":\"drop_last_message\"}\n".to_vec(),
            "is damaged at line 2: expected ident",
        ),
        (
            "a newer format",
            b"{\"v\":7,\"type\":\"header\"}\n".to_vec(),
            "uses format version 7; this orbit reads up to version 1 (upgrade orbit)",
        ),
        (
            "no header",
            b"{\"v\":1,\"type\":\"drop_last_message\"}\n".to_vec(),
            "is damaged at line 1: no header record",
        ),
    ];
    for (name, bytes, message) in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path(), "s");
        std::fs::write(&path, &bytes).unwrap();
        let err = load(&path).unwrap_err();
        assert!(
            matches!(
                err,
                SessionError::Damaged { .. } | SessionError::NewerFormat { .. }
            ),
            "{name}: {err:?}"
        );
        assert!(err.to_string().contains(message), "{name}: {err}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name}");
    }
    let missing = load(std::path::Path::new("/nonexistent/s.jsonl")).unwrap_err();
    assert!(
        missing
            .to_string()
            .starts_with("cannot read session transcript /nonexistent/s.jsonl")
    );
}
