//! The real Bash tool's output through the result pipeline: `seq 1 40000`
//! is persisted whole and the model sees the exact `<persisted-output>` text.

use std::path::Path;

use orbit_engine::ToolResultStorage;
use orbit_protocol::ToolResultContent;
use orbit_tool::{CallContext, ToolUseContext};
use serde_json::json;

use super::support::{builtin, run_tool};

use super::results_persist::{seq_40000_message, seq_output};
use super::store::as_bash;

#[tokio::test]
async fn real_seq_1_40000_through_bash_is_persisted_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let data_dir = tmp.path().join("orbit-home");
    let ctx = ToolUseContext::new("sess-bash", project.clone(), data_dir.clone());
    let bash = builtin("Bash");

    let output = run_tool(
        &bash,
        json!({"command": "seq 1 40000"}),
        &ctx,
        &CallContext::detached("toolu_seq"),
    )
    .await
    .unwrap();
    assert!(
        !output.is_error,
        "{:?}",
        output.content.as_text().get(..200)
    );

    let storage = ToolResultStorage::new(&data_dir, &project, "sess-bash");
    let block = as_bash(&storage, "toolu_seq", output).await;

    let path = storage.dir().join("toolu_seq.txt");
    assert_eq!(
        block.content,
        ToolResultContent::Text(seq_40000_message(&path))
    );
    // The file holds seq's raw output byte-exact (all 228,894 bytes, final
    // newline included), although the inline text is trimmed (T4).
    let saved = std::fs::read(&path).unwrap();
    let expected = seq_output(40_000);
    assert_eq!(saved.len(), 228_894);
    assert_eq!(saved, expected.as_bytes());
    assert!(Path::new(&path).starts_with(&data_dir));
}
