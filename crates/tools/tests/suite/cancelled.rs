//! A call whose cancel token has fired (the engine may already have told
//! the model it was cancelled) must not act: Write and Edit leave the disk
//! as it was, Bash runs nothing, TodoWrite keeps the list, KillShell kills
//! nothing and BashOutput consumes no output. Each answers with the
//! interrupt text.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use orbit_tools::INTERRUPT_MESSAGE_FOR_TOOL_USE as INTERRUPT_MESSAGE;
use orbit_tools::builtin::bash::background::BackgroundShells;
use orbit_tools::builtin::bash::{BashOutputTool, BashTool, KillShellTool};
use orbit_tools::builtin::edit::EditTool;
use orbit_tools::builtin::read::ReadTool;
use orbit_tools::builtin::todo::TodoWriteTool;
use orbit_tools::builtin::write::WriteTool;
use orbit_tools::{CallContext, Tool, ToolOutput, ToolUseContext};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::bash::{run_tool, session, text};
use super::contract::{call, call_after_cancel};

/// Validates like the engine does, then calls with a token that already fired.
async fn call_cancelled(tool: &dyn Tool, ctx: &ToolUseContext, input: Value) -> ToolOutput {
    tool.validate_input(&input, ctx).await.unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    tool.call(input, ctx, &CallContext::new("t", cancel, None))
        .await
}

fn assert_interrupted(out: &ToolOutput, what: &str) {
    assert!(out.is_error, "{what}: {out:?}");
    assert_eq!(text(out), INTERRUPT_MESSAGE, "{what}");
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every entry under `dir`, for "nothing was created" checks.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn cancelled_write_and_edit_leave_the_disk_alone() {
    let (_d, ctx, root) = session();
    let existing = root.join("existing.txt");
    fs::write(&existing, "old one\n").unwrap();
    let out = run_tool(&ReadTool::new(), &ctx, json!({ "file_path": s(&existing) })).await;
    assert!(!out.is_error);
    let before = listing(&root);

    let write = WriteTool::new();
    let edit = EditTool::new();
    let table: Vec<(&str, &dyn Tool, Value)> = vec![
        (
            "Write of a new file in a new directory",
            &write,
            json!({ "file_path": s(&root.join("new/dir/f.txt")), "content": "x" }),
        ),
        (
            "Write over a read file",
            &write,
            json!({ "file_path": s(&existing), "content": "replaced" }),
        ),
        (
            "Edit of a read file",
            &edit,
            json!({ "file_path": s(&existing), "old_string": "one", "new_string": "two" }),
        ),
        (
            "Edit with replace_all",
            &edit,
            json!({ "file_path": s(&existing), "old_string": "o", "new_string": "0", "replace_all": true }),
        ),
        (
            "Edit creating a file",
            &edit,
            json!({ "file_path": s(&root.join("made/by-edit.txt")), "old_string": "", "new_string": "x" }),
        ),
    ];
    for (what, tool, input) in table {
        let out = call_cancelled(tool, &ctx, input).await;
        assert_interrupted(&out, what);
        assert_eq!(
            fs::read_to_string(&existing).unwrap(),
            "old one\n",
            "{what}"
        );
        assert_eq!(
            listing(&root),
            before,
            "{what}: no file, directory or temp file"
        );
    }

    // The file state is untouched too: an uncancelled Edit still goes through.
    let out = run_tool(
        &edit,
        &ctx,
        json!({ "file_path": s(&existing), "old_string": "one", "new_string": "two" }),
    )
    .await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(fs::read_to_string(&existing).unwrap(), "old two\n");
}

#[tokio::test]
async fn cancelled_bash_runs_nothing() {
    let (_d, ctx, root) = session();
    for background in [false, true] {
        let marker = root.join(format!("ran-{background}"));
        let input = json!({
            "command": format!("touch {}", s(&marker)),
            "run_in_background": background,
        });
        let out = call_after_cancel(BashTool::new(), &ctx, input).await;
        assert_interrupted(&out, &format!("background {background}"));
        // A started command would have touched it within this time.
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(!marker.exists(), "background {background}: command ran");
    }
    assert!(BackgroundShells::of(&ctx).ids().is_empty());
}

#[tokio::test]
async fn cancelled_todo_write_keeps_the_list() {
    let (_d, ctx, _) = session();
    let input = json!({"todos": [
        {"content": "Ship", "status": "pending", "activeForm": "Shipping"}
    ]});
    let out = call_cancelled(&TodoWriteTool::new(), &ctx, input).await;
    assert_interrupted(&out, "TodoWrite");
    assert!(ctx.todos.lock().unwrap().is_empty());
}

#[tokio::test]
async fn cancelled_kill_shell_and_bash_output_leave_the_shell_alone() {
    let (_d, ctx, _) = session();
    let out = call(
        BashTool::new(),
        &ctx,
        json!({ "command": "echo hello; sleep 30", "run_in_background": true }),
    )
    .await;
    assert!(!out.is_error);
    let shells = BackgroundShells::of(&ctx);
    let id = shells.ids().pop().unwrap();
    let shell = shells.get(&id).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while shell.received_bytes().0 < 6 {
        assert!(Instant::now() < deadline, "no output from {id}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    let out = call_after_cancel(BashOutputTool::new(), &ctx, json!({ "bash_id": id })).await;
    assert_interrupted(&out, "BashOutput");
    let out = call_after_cancel(KillShellTool::new(), &ctx, json!({ "shell_id": id })).await;
    assert_interrupted(&out, "KillShell");
    assert_eq!(shell.status().label(), "running");

    // The output was not consumed: the next (uncancelled) read shows it.
    let out = call(BashOutputTool::new(), &ctx, json!({ "bash_id": id })).await;
    assert_eq!(
        text(&out),
        "<status>running</status>\n\n<stdout>\nhello\n</stdout>"
    );
    let out = call(KillShellTool::new(), &ctx, json!({ "shell_id": id })).await;
    assert!(!out.is_error, "{out:?}");
}
