//! TodoWrite's texts: its description, its fixed answer (Claude Code's),
//! and its refusals.

/// TodoWrite's description.
pub const DESCRIPTION: &str = "Create and update the task list for this session. Send the whole list each time; it replaces the previous one. \
Each item: content (imperative, e.g. \"Run tests\"), activeForm (present continuous, e.g. \"Running tests\"), status pending|in_progress|completed. \
Use it for multi-step tasks. Keep exactly one task in_progress while working and mark each completed as soon as it is done.";

/// The fixed answer (Claude Code's text).
pub const TODO_WRITE_RESULT: &str = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable";

/// More than one item is `in_progress`.
pub fn too_many_in_progress(in_progress: usize) -> String {
    format!(
        "Only one task can be in_progress at a time, but {in_progress} are. Keep one in_progress and mark the others pending or completed."
    )
}

/// Item number `position` (1-based) has an empty text.
pub fn empty_item(position: usize) -> String {
    format!("Todo {position} needs a non-empty content and activeForm.")
}
