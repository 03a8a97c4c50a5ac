//! A headless runner that prints every event as one JSON line, then the
//! result, and exits non-zero on an error result — what a CI job or an
//! eval harness embeds. Ctrl-C interrupts the turn.
//! `cargo run -p orbit --example headless_json -- "List the crates"`

use futures::StreamExt;
use orbit::{EngineEvent, ResultSubtype};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<std::process::ExitCode, orbit::Error> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What is in this directory?".into());
    let mut agent = orbit::Agent::builder().max_turns(20).build()?;
    let abort = agent.abort_handle();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            abort.abort();
        }
    });
    let mut events = agent.run(prompt);
    let mut ok = false;
    while let Some(event) = events.next().await {
        let line = match &event {
            EngineEvent::Result(result) => {
                ok = result.subtype == ResultSubtype::Success;
                serde_json::json!({"type": "result", "result": result})
            }
            EngineEvent::AssistantMessage { message, .. } => {
                serde_json::json!({"type": "assistant", "message": message})
            }
            EngineEvent::UserMessage { message, .. } => {
                serde_json::json!({"type": "user", "message": message})
            }
            EngineEvent::ToolStarted { tool_use_id, name } => {
                serde_json::json!({"type": "tool_started", "tool_use_id": tool_use_id, "name": name})
            }
            _ => continue,
        };
        println!("{line}");
    }
    Ok(if ok {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    })
}
