//! Listing a project's sessions (and every project's), newest first, with
//! first prompt, turns and cost; the latest for `--continue`.

use std::path::Path;
use std::time::{Duration, SystemTime};

use orbit_protocol::Message;
use orbit_session::{
    Record, SnapshotRecord, find_anywhere, latest, list_all, list_project, transcript_path,
};

use super::support::*;

const A: &str = "11111111-1111-4111-8111-111111111111";
const B: &str = "22222222-2222-4222-8222-222222222222";
const C: &str = "33333333-3333-4333-8333-333333333333";

async fn session(data: &Path, cwd: &Path, id: &str, records: &[Record], age_secs: u64) {
    let path = transcript_path(data, cwd, id);
    let mut all = vec![header(id)];
    all.extend_from_slice(records);
    write(&path, &all).await;
    let when = SystemTime::now() - Duration::from_secs(age_secs);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

#[tokio::test]
async fn sessions_are_listed_newest_first_with_prompt_turns_and_cost() {
    let data = tempfile::tempdir().unwrap();
    let data = data.path();
    let here = Path::new("/work/here");
    let there = Path::new("/work/there");
    let long_prompt = format!("line one\n  line two {}", "x".repeat(300));
    session(data, here, A, &[prompt("fix the bug"), usage(2, 0.5)], 100).await;
    session(
        data,
        here,
        B,
        &[
            message(results(&["t"])),
            prompt(&long_prompt),
            usage(7, 1.75),
            usage(9, 2.0),
            prompt("later"),
        ],
        10,
    )
    .await;
    let snapshot = Record::Snapshot(SnapshotRecord {
        messages: vec![Message::user_text("forked prompt")],
        never_persisted: vec![],
        loaded_tools: vec![],
    });
    session(data, there, C, &[snapshot], 50).await;

    let listed = list_project(data, here).unwrap();
    let ids: Vec<&str> = listed.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, vec![B, A]);
    assert_eq!(listed[0].turns, 9);
    assert_eq!(listed[0].total_cost_usd, 2.0);
    assert!(listed[0].first_prompt.starts_with("line one line two xxx"));
    assert_eq!(
        listed[0].first_prompt.chars().count(),
        201,
        "cut with an ellipsis"
    );
    assert_eq!(
        (listed[1].first_prompt.as_str(), listed[1].turns),
        ("fix the bug", 2)
    );

    let all: Vec<String> = list_all(data)
        .unwrap()
        .into_iter()
        .map(|s| s.first_prompt)
        .collect();
    assert_eq!(all[1], "forked prompt");
    assert_eq!(all.len(), 3);

    assert_eq!(latest(data, here).unwrap().as_deref(), Some(B));
    assert_eq!(latest(data, Path::new("/nowhere")).unwrap(), None);
    assert_eq!(list_project(data, Path::new("/nowhere")).unwrap(), vec![]);
    assert_eq!(
        find_anywhere(data, C).unwrap(),
        Some(transcript_path(data, there, C))
    );
    assert_eq!(
        find_anywhere(data, "44444444-4444-4444-8444-444444444444").unwrap(),
        None
    );
}
