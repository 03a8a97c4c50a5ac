//! TodoWrite: session state, the progress event, the one-in_progress rule.

use orbit_protocol::TodoItem;
use orbit_protocol::ToolResultContent;
use orbit_protocol::events::TodoStatus;
use orbit_tools::builtin::todo::TodoWriteTool;
use orbit_tools::{CallContext, Tool, ToolProgress};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::glob::{Tree, run};

#[tokio::test]
async fn stores_the_list_reports_progress_and_answers_like_claude_code() {
    let t = Tree::new();
    let ctx = t.ctx("");
    let tool = TodoWriteTool::new();
    let input = json!({"todos": [
        {"content": "Write tests", "status": "completed", "activeForm": "Writing tests"},
        {"content": "Run tests", "status": "in_progress", "activeForm": "Running tests"},
        // Older models send id/priority; they are ignored, not rejected.
        {"content": "Ship", "status": "pending", "activeForm": "Shipping", "id": "3", "priority": "high"}
    ]});
    tool.validate_input(&input, &ctx).await.unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let call = CallContext::new("toolu_todo", CancellationToken::new(), Some(tx));
    let out = tool.call(input, &ctx, &call).await;
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

#[tokio::test]
async fn more_than_one_in_progress_is_refused() {
    let t = Tree::new();
    let ctx = t.ctx("");
    let err = run(
        &TodoWriteTool::new(),
        &ctx,
        json!({"todos": [
            {"content": "A", "status": "in_progress", "activeForm": "Doing A"},
            {"content": "B", "status": "in_progress", "activeForm": "Doing B"}
        ]}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err,
        "Only one task can be in_progress at a time, but 2 are. Keep one in_progress and mark the others pending or completed."
    );
    assert!(ctx.todos.lock().unwrap().is_empty());
}

#[tokio::test]
async fn is_neither_read_only_nor_concurrency_safe() {
    let tool = TodoWriteTool::new();
    let input = json!({"todos": []});
    assert_eq!(tool.name(), "TodoWrite");
    assert!(!tool.is_read_only(&input));
    assert!(!tool.is_concurrency_safe(&input));
    let item = &tool.input_schema()["properties"]["todos"]["items"];
    assert_eq!(
        item["properties"]["status"]["enum"],
        json!(["pending", "in_progress", "completed"])
    );
    assert_eq!(item["required"], json!(["content", "status", "activeForm"]));
}
