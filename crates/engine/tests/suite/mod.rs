//! One module per area.

mod approver;
mod store;
mod support;

mod abort;
mod attachments;
mod builtin_tools;
mod builtin_tools_files;
mod builtin_tools_search;
mod builtin_tools_shell;
mod compaction;
mod executor;
mod loop_control;
mod loop_defects;
mod real_bash;
mod replacement_ready;
mod reply_check;
mod request_bytes;
mod results_bash;
mod results_budget;
mod results_e2e;
mod results_errors;
mod results_persist;
mod runaway_guard;
mod sessions;
mod snapshot;
mod tool_errors;
