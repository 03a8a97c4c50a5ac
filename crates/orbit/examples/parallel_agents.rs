//! Delegating two searches in parallel: a read-only `searcher` subagent type
//! is offered through the `Agent` tool, and the main agent is asked to send
//! one searcher per question in the same reply. Each subagent runs in a
//! session of its own (its own history, the searcher's prompt and tools);
//! the main agent sees only their final answers. Each subagent's tool calls
//! are printed to stderr as they happen; the final answer to stdout.
//!
//! `cargo run -p orbit --example parallel_agents -- "where is Agent::builder defined" "where is it used"`

use futures::StreamExt;
use orbit::{AgentDefinition, EngineEvent, SUBAGENT_EVENT_KEY, ToolFilter};
use serde_json::Value;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let first = args
        .next()
        .unwrap_or("where is the main function defined".into());
    let second = args.next().unwrap_or("where are the tests".into());
    let searcher = AgentDefinition {
        tools: ToolFilter::Only(vec!["Grep".into(), "Glob".into(), "Read".into()]),
        ..AgentDefinition::new(
            "searcher",
            "Searches this repository for one question and answers with file:line places.",
            "You search the repository with Grep, Glob and Read, and answer with the \
             file:line places that answer the question, one per line, nothing else.",
        )
    };
    let mut agent = orbit::Agent::builder().agent(searcher).build()?;
    let prompt = format!(
        "Start two `searcher` agents in parallel (both Agent calls in one reply): \
         one for \"{first}\", one for \"{second}\". Then sum up both answers."
    );
    let mut events = agent.run(prompt);
    let mut answer = None;
    while let Some(event) = events.next().await {
        match event {
            EngineEvent::ToolProgress { tool_use_id, data } => {
                print_subagent_tools(&tool_use_id, &data)
            }
            EngineEvent::Result(result) => answer = Some(result),
            _ => {}
        }
    }
    let result = answer.ok_or(orbit::Error::NoResult)?;
    if result.subtype.is_error() {
        return Err(result.errors.join("\n").into());
    }
    println!("{}", result.result);
    Ok(())
}

/// Prints `[<Agent call id> <subagent type>] <tool>` for each tool a
/// subagent's reply calls (its progress carries the subagent's events).
fn print_subagent_tools(call_id: &str, data: &Value) {
    let Some(event) = data.get(SUBAGENT_EVENT_KEY) else {
        return;
    };
    if event["type"] != "assistant_message" {
        return;
    }
    let kind = data["subagent_type"].as_str().unwrap_or("?");
    let blocks = event["message"]["content"].as_array().into_iter().flatten();
    for block in blocks.filter(|b| b["type"] == "tool_use") {
        eprintln!(
            "[{call_id} {kind}] {} {}",
            block["name"].as_str().unwrap_or("?"),
            block["input"]
        );
    }
}
