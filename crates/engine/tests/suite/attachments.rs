//! The generic result hook (`EngineConfig::result_attachments`) through
//! the real loop, client and Read tool: what it is shown, that its text is
//! the end of that call's result only, and that earlier requests' bytes
//! stay as they were.

use std::sync::{Arc, Mutex};

use orbit_engine::{ResultAttachments, ResultFacts};
use orbit_protocol::ResultSubtype;
use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::json;

use super::support::*;

/// What the hook was shown: tool, paths read, failed.
type Seen = (String, Vec<std::path::PathBuf>, bool);

/// Adds a line to each successful call's result, recording what it saw.
#[derive(Debug, Default)]
struct Recorder {
    seen: Mutex<Vec<Seen>>,
}

impl ResultAttachments for Recorder {
    fn attach(&self, facts: &ResultFacts<'_>) -> Option<String> {
        self.seen.lock().unwrap().push((
            facts.tool_name.to_string(),
            facts.reads.to_vec(),
            facts.is_error,
        ));
        (!facts.is_error).then(|| "ATTACHED-LINE".to_string())
    }
}

#[tokio::test]
async fn the_hook_sees_each_calls_facts_and_its_text_ends_that_result() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.txt");
    std::fs::write(&file, "alpha\n").unwrap();
    let missing = dir.path().join("missing.txt");
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Read", json!({"file_path": file})),
        Reply::tool_use("toolu_2", "Read", json!({"file_path": missing})),
        Reply::text("done"),
    ]);
    let recorder = Arc::new(Recorder::default());
    let mut cfg = config(dir.path());
    cfg.result_attachments = Some(recorder.clone());
    let mut engine = engine(&server, cfg, vec![builtin("Read")]);
    let events = run(&mut engine, "go").await;
    assert_eq!(result(&events).subtype, ResultSubtype::Success);
    assert_eq!(
        *recorder.seen.lock().unwrap(),
        vec![
            ("Read".to_string(), vec![file.clone()], false),
            ("Read".to_string(), vec![missing.clone()], true),
        ]
    );
    let bodies = server.bodies();
    let first = body::tool_result_texts(&bodies[1]);
    assert_eq!(first.len(), 1);
    assert!(first[0].contains("alpha"), "{}", first[0]);
    assert!(first[0].ends_with("\nATTACHED-LINE"), "{}", first[0]);
    let second = body::tool_result_texts(&bodies[2]);
    assert_eq!(second.len(), 1);
    assert!(!second[0].contains("ATTACHED-LINE"), "{}", second[0]);
    // The first result is sent again unchanged.
    let before = body::messages(&bodies[1]);
    let after = body::messages(&bodies[2]);
    let plain = |m: &serde_json::Value| body::without_cache_control(m);
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(plain(b), plain(a));
    }
}
