//! Resuming, continuing and forking a session through the `Agent` facade,
//! against the fake server with real transcripts.

use orbit::Error;
use orbit_test_support::{FakeAnthropic, Reply};

use super::agent::agent;

#[tokio::test]
async fn a_session_is_resumed_continued_and_forked_as_a_library() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropic::start(vec![
        Reply::text("one"),
        Reply::text("two"),
        Reply::text("three"),
    ]);
    let mut first = agent(&server, dir.path()).build().unwrap();
    first.ask("first").await.unwrap();
    let id = first.session_id().to_string();
    drop(first);

    let mut resumed = agent(&server, dir.path()).resume(&id).build().unwrap();
    assert_eq!(resumed.session_id(), id);
    assert_eq!(resumed.messages().len(), 2);
    assert_eq!(resumed.ask("second").await.unwrap().result, "two");
    drop(resumed);

    let mut fork = agent(&server, dir.path())
        .continue_latest()
        .fork_session()
        .build()
        .unwrap();
    assert_ne!(fork.session_id(), id);
    fork.ask("third").await.unwrap();
    let bodies = server.bodies();
    assert_eq!(bodies[1]["messages"].as_array().unwrap().len(), 3);
    assert_eq!(bodies[2]["messages"].as_array().unwrap().len(), 5);
}

#[tokio::test]
async fn resuming_what_does_not_exist_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropic::start(vec![Reply::text("memory only")]);
    let unknown = "00000000-0000-4000-8000-000000000000";
    for builder in [
        agent(&server, dir.path()).resume(unknown),
        agent(&server, dir.path()).continue_latest(),
    ] {
        match builder.build() {
            Err(Error::NoSession(message)) => {
                assert!(message.starts_with("no session"), "{message}")
            }
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("built an agent for a session that does not exist"),
        }
    }
    // Without persistence nothing is written, so nothing can be continued.
    let mut agent_ = agent(&server, dir.path())
        .persist_session(false)
        .build()
        .unwrap();
    agent_.ask("hi").await.unwrap();
    assert!(!dir.path().join(".orbit/projects").exists());
}
