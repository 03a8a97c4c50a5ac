//! Issue 34: the SDK's `rewind_files` through the real Python SDK
//! (`ClaudeSDKClient.rewind_files`, `enable_file_checkpointing`, uuids from
//! `--replay-user-messages`), as Claude Code answers it.

use super::common::Scratch;
use super::mcp::python;
use super::rewind::write_then_bash;
use super::sdk::{Printed, sdk_program};

/// Two prompts writing `a.txt` then `b.txt` (and changing `a.txt`), then
/// the fixture's rewinds; `enabled` = `enable_file_checkpointing`.
fn two_prompts_then_rewind(enabled: bool) -> (Scratch, Printed) {
    let scratch = Scratch::new();
    let server = write_then_bash(&scratch, "echo two > b.txt && echo changed > a.txt");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sdk_rewind.py");
    let scenario = if enabled { "enabled" } else { "disabled" };
    let printed = sdk_program(&python(), script, scenario, &[], &scratch, &server);
    (scratch, printed)
}

#[test]
fn rewind_files_restores_the_files_to_before_a_user_message() {
    let (scratch, printed) = two_prompts_then_rewind(true);
    let uuids = printed.of_kind("uuids");
    assert_eq!(
        uuids[0]["uuids"].as_array().map(Vec::len),
        Some(2),
        "{}",
        printed.stderr
    );
    // The dry run names what would change and changes nothing.
    let preview = printed.of_kind("preview");
    assert_eq!(
        preview[0]["response"],
        serde_json::json!({"canRewind": true, "filesChanged": ["a.txt", "b.txt"], "insertions": 1, "deletions": 2}),
        "{}",
        printed.stderr
    );
    let errors = printed.of_kind("error");
    assert_eq!(
        printed.of_kind("rewound").len(),
        1,
        "{errors:?} {}",
        printed.stderr
    );
    // Before the second prompt: a.txt as the first wrote it, no b.txt.
    assert_eq!(
        std::fs::read_to_string(scratch.path().join("a.txt")).unwrap(),
        "one\n"
    );
    assert!(!scratch.path().join("b.txt").exists());
    // An unknown message id is an error the SDK raises.
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0]["text"]
            .as_str()
            .unwrap()
            .contains("No file checkpoint found"),
        "{errors:?}"
    );
}

#[test]
fn rewind_files_needs_enable_file_checkpointing() {
    let (scratch, printed) = two_prompts_then_rewind(false);
    let errors = printed.of_kind("error");
    assert_eq!(errors.len(), 2, "{}", printed.stderr);
    assert!(
        errors[0]["text"]
            .as_str()
            .unwrap()
            .contains("File rewinding is not enabled."),
        "{errors:?}"
    );
    assert!(scratch.path().join("b.txt").exists());
}
