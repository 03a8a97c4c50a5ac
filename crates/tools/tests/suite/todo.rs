//! TodoWrite: session state, the progress event, the one-in_progress rule.

use orbit_protocol::TodoItem;
use orbit_protocol::ToolResultContent;
use orbit_protocol::events::TodoStatus;
use orbit_tool::CallFacts;
use orbit_tools::{CallContext, ToolProgress};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::glob::Tree;
use super::harness::{Refusal, builtin, facts, output, run, run_with};

#[tokio::test]
async fn stores_the_list_reports_progress_and_answers_like_claude_code() {
    let t = Tree::new();
    let ctx = t.ctx("");
    let tool = builtin("TodoWrite");
    let input = json!({"todos": [
        {"content": "Write tests", "status": "completed", "activeForm": "Writing tests"},
        {"content": "Run tests", "status": "in_progress", "activeForm": "Running tests"},
        // Older models send id/priority; they are ignored, not rejected.
        {"content": "Ship", "status": "pending", "activeForm": "Shipping", "id": "3", "priority": "high"}
    ]});
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let call = CallContext::new("toolu_todo", CancellationToken::new(), Some(tx));
    let out = output(run_with(&tool, &ctx, input, &call).await);
    assert!(!out.is_error);
    assert_eq!(
        out.content,
        ToolResultContent::Text("Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable".into())
    );
    let expected = vec![
        TodoItem {
            content: "Write tests".into(),
            status: TodoStatus::Completed,
            active_form: "Writing tests".into(),
        },
        TodoItem {
            content: "Run tests".into(),
            status: TodoStatus::InProgress,
            active_form: "Running tests".into(),
        },
        TodoItem {
            content: "Ship".into(),
            status: TodoStatus::Pending,
            active_form: "Shipping".into(),
        },
    ];
    assert_eq!(*ctx.todos.lock().unwrap(), expected);
    assert_eq!(
        rx.recv().await,
        Some(("toolu_todo".to_string(), ToolProgress::Todos(expected)))
    );

    // The next write replaces the list.
    let out = run(&tool, &ctx, json!({"todos": []})).await.unwrap();
    assert!(!out.is_error);
    assert!(ctx.todos.lock().unwrap().is_empty());
}

/// Lists the tool refuses, each with its exact message; a refused write
/// leaves the session list untouched.
#[tokio::test]
async fn bad_lists_are_refused_and_not_stored() {
    let rows = [
        (
            "more than one in_progress",
            json!([
                {"content": "A", "status": "in_progress", "activeForm": "Doing A"},
                {"content": "B", "status": "in_progress", "activeForm": "Doing B"}
            ]),
            "Only one task can be in_progress at a time, but 2 are. Keep one in_progress and mark the others pending or completed.",
        ),
        (
            "blank texts",
            json!([
                {"content": "A", "status": "pending", "activeForm": "Doing A"},
                {"content": "  ", "status": "pending", "activeForm": "Doing B"}
            ]),
            "Todo 2 needs a non-empty content and activeForm.",
        ),
    ];
    for (label, todos, expected) in rows {
        let t = Tree::new();
        let ctx = t.ctx("");
        let err = run(&builtin("TodoWrite"), &ctx, json!({ "todos": todos }))
            .await
            .unwrap_refusal();
        assert_eq!(err, expected, "{label}");
        assert!(ctx.todos.lock().unwrap().is_empty(), "{label}");
    }
}

/// Session state only: read-only for policy (allowed without a rule, never
/// a file write), but not concurrency-safe (whole-list writes would race).
#[tokio::test]
async fn is_read_only_but_not_concurrency_safe() {
    let t = Tree::new();
    let tool = builtin("TodoWrite");
    assert_eq!(
        facts(&tool, &t.ctx(""), &json!({"todos": []})),
        CallFacts {
            read_only: true,
            ..CallFacts::default()
        }
    );
    let item = &tool.input_schema()["properties"]["todos"]["items"];
    assert_eq!(
        item["properties"]["status"]["enum"],
        json!(["pending", "in_progress", "completed"])
    );
    assert_eq!(item["required"], json!(["content", "status", "activeForm"]));
}
