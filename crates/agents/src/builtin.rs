//! The built-in subagent types, with the roles Claude Code's have: a
//! general-purpose agent with every tool, a read-only explorer and a
//! read-only planner ("read-only" is the tools' own facts, applied when
//! the subagent's tool set is made).

use crate::{AgentDefinition, AgentSource, ToolFilter};

/// The general-purpose type's name (the default `subagent_type`).
pub const GENERAL_PURPOSE: &str = "general-purpose";

const GENERAL_PROMPT: &str = "You are a subagent of orbit, a coding agent. Given the task in the \
user's message, use the tools available to complete it fully. When you are done, reply with a \
concise report of what you did and found: the parent agent sees only that final reply, not your \
intermediate work, so include the file paths, names and facts it needs.";

const EXPLORE_PROMPT: &str = "You are a read-only search subagent of orbit, a coding agent. Find \
what the user's message asks for in the codebase: search broadly, read only the excerpts you \
need, and do not change anything (your tools cannot). Reply with a concise report: the file \
paths (with line numbers) and the facts found; the parent agent sees only that final reply.";

const PLAN_PROMPT: &str = "You are a read-only planning subagent of orbit, a coding agent. Study \
the codebase for the task in the user's message and design how to implement it; do not change \
anything (your tools cannot). Reply with a step-by-step plan naming the critical files, the \
changes in each, and the trade-offs; the parent agent sees only that final reply.";

/// The built-in definitions.
pub fn definitions() -> Vec<AgentDefinition> {
    let make = |name: &str, description: &str, prompt: &str, tools| AgentDefinition {
        name: name.to_string(),
        description: description.to_string(),
        prompt: prompt.to_string(),
        tools,
        model: None,
        source: AgentSource::BuiltIn,
    };
    vec![
        make(
            GENERAL_PURPOSE,
            "General-purpose agent for researching complex questions, searching for code and \
             executing multi-step tasks.",
            GENERAL_PROMPT,
            ToolFilter::All,
        ),
        make(
            "Explore",
            "Read-only search agent: finds files, definitions and uses across the codebase and \
             reports where they are.",
            EXPLORE_PROMPT,
            ToolFilter::ReadOnly,
        ),
        make(
            "Plan",
            "Read-only software architect agent: designs an implementation plan (steps, critical \
             files, trade-offs).",
            PLAN_PROMPT,
            ToolFilter::ReadOnly,
        ),
    ]
}
