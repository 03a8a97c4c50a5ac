//! One module per area of the `orbit` binary's behaviour.

mod bash_timeout;
mod common;
mod crash;

mod compaction;
mod faults;
mod formats;
mod hooks;
mod hooks_session;
mod interrupt;
mod local_model;
mod local_profile;
mod logging;
mod max_turns;
mod mcp;
mod mcp_commands;
mod mcp_tool_search;
mod model_alias;
mod openai_provider;
mod permissions;
mod resume;
pub mod sdk;
mod sdk_output;
mod sdk_ts;
mod security_bash;
mod security_rules;
mod security_sandbox;
mod session;
mod settings;
mod small_model;
mod startup_errors;
mod stdin_prompt;
mod stdout_closed;
mod structured_output;
mod system_prompt;
mod trust;
mod tui;
