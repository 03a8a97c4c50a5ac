//! The TodoWrite tool: the session's task list (DESIGN T4).
//!
//! Facts: read-only (it changes only the session's own list: no file, no
//! process, no network, so the permission gate allows it without a rule, in
//! default and plan mode, and it never counts as a file write), not
//! concurrency-safe (two whole-list writes would race).
//!
//! Flow: `todos` (the whole list, replacing the previous one) → `validate`
//! enforces at most one `in_progress` item and non-empty texts
//! (`ToolError::RespondToModel`) and converts the items to
//! [`orbit_protocol::TodoItem`]s, the plan → `call` stores them in
//! `ToolUseContext::todos` and reports [`ToolProgress::Todos`], which the
//! engine turns into `EngineEvent::TodoUpdate` for UIs → the model gets
//! Claude Code's fixed confirmation text. A cancelled call leaves the list
//! as it was.

use async_trait::async_trait;
use orbit_protocol::TodoItem;
use orbit_protocol::events::TodoStatus;
use orbit_tool::texts::tools::todo as texts;
use orbit_tool::{CallFacts, ToolError, ToolInfo, ToolOutput, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::{CallContext, ToolProgress, ToolUseContext};

/// The fixed answer (Claude Code's text).
pub use orbit_tool::texts::tools::todo::TODO_WRITE_RESULT;

// Status of a todo item as the model sends it. (Plain comments on schema
// types: doc comments would be sent to the model as descriptions.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub enum TodoInputStatus {
    Pending,
    InProgress,
    Completed,
}

// One item. Unknown keys (e.g. an old `id`/`priority`) are ignored, as
// Claude Code's non-strict item schema does.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct TodoInputItem {
    #[schemars(length(min = 1))]
    pub content: String,
    pub status: TodoInputStatus,
    #[serde(rename = "activeForm")]
    #[schemars(length(min = 1))]
    pub active_form: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoWriteInput {
    /// The updated todo list
    pub todos: Vec<TodoInputItem>,
}

impl From<TodoInputItem> for TodoItem {
    fn from(item: TodoInputItem) -> Self {
        TodoItem {
            content: item.content,
            status: match item.status {
                TodoInputStatus::Pending => TodoStatus::Pending,
                TodoInputStatus::InProgress => TodoStatus::InProgress,
                TodoInputStatus::Completed => TodoStatus::Completed,
            },
            active_form: item.active_form,
        }
    }
}

/// The TodoWrite tool (stateless; register it with `orbit_tool::typed`).
#[derive(Debug, Default, Clone, Copy)]
pub struct TodoWriteTool;

/// The one-in_progress rule; `Err` is the text the model sees.
pub(crate) fn check_todos(todos: &[TodoInputItem]) -> Result<(), String> {
    let in_progress = todos
        .iter()
        .filter(|t| t.status == TodoInputStatus::InProgress)
        .count();
    if in_progress > 1 {
        return Err(texts::too_many_in_progress(in_progress));
    }
    if let Some(i) = todos
        .iter()
        .position(|t| t.content.trim().is_empty() || t.active_form.trim().is_empty())
    {
        return Err(texts::empty_item(i + 1));
    }
    Ok(())
}

#[async_trait]
impl TypedTool for TodoWriteTool {
    type Input = TodoWriteInput;
    type Plan = Vec<TodoItem>;

    /// Session state only: read-only as far as policy is concerned (see the
    /// module docs); two concurrent writes of the whole list would race
    /// (Claude Code marks it unsafe too).
    fn facts(&self, _input: &TodoWriteInput, _ctx: &ToolUseContext) -> CallFacts {
        CallFacts {
            read_only: true,
            ..CallFacts::default()
        }
    }

    async fn validate(
        &self,
        input: TodoWriteInput,
        _ctx: &ToolUseContext,
    ) -> Result<Vec<TodoItem>, ToolError> {
        check_todos(&input.todos).map_err(ToolError::RespondToModel)?;
        Ok(input.todos.into_iter().map(TodoItem::from).collect())
    }

    async fn call(
        &self,
        todos: Vec<TodoItem>,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        if call.cancel.is_cancelled() {
            return Ok(ToolOutput::interrupted());
        }
        match ctx.todos.lock() {
            Ok(mut g) => *g = todos.clone(),
            Err(p) => *p.into_inner() = todos.clone(),
        }
        call.progress(ToolProgress::Todos(todos));
        Ok(ToolOutput::text(TODO_WRITE_RESULT))
    }

    fn info(&self) -> ToolInfo<'_> {
        // The default result limit: the answer is one fixed line.
        ToolInfo::new("TodoWrite", texts::DESCRIPTION)
            .with_search_hint("manage the session task list")
    }
}
