//! The request the model sees after a Read turn (the exact tool_use and
//! tool_result), as an insta snapshot.

use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::json;

use super::support::*;

#[tokio::test]
async fn second_request_of_a_read_turn() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let server = FakeAnthropic::start(vec![
        Reply::turn(
            Turn::new()
                .id("msg_read_1")
                .text("Let me read it.")
                .tool_use("toolu_read_1", "Read", json!({"file_path": "notes.txt"}))
                .usage(120, 30),
        ),
        Reply::turn(
            Turn::new()
                .id("msg_read_2")
                .text("It lists alpha and beta.")
                .usage(160, 12),
        ),
    ]);
    let mut engine = engine(&server, config(dir.path()), vec![builtin("Read")]);
    let events = run(&mut engine, "What is in notes.txt?").await;
    assert_eq!(result(&events).result, "It lists alpha and beta.");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 2);
    insta::assert_json_snapshot!(bodies[1]);
}
