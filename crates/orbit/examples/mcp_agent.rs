//! An agent with the MCP servers of a `.mcp.json`-shaped file: their tools
//! (`mcp__SERVER__TOOL`) join the built-ins once each server connects.
//! Read-only MCP tools run in the default permission mode; others need an
//! allow rule (`.allow(["mcp__SERVER"])`) or an approver.
//! `cargo run -p orbit --example mcp_agent -- .mcp.json "Add 2 and 3 with the py server."`

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), orbit::Error> {
    let mut args = std::env::args().skip(1);
    let config = args.next().unwrap_or_else(|| ".mcp.json".into());
    let prompt = args
        .next()
        .unwrap_or_else(|| "Which MCP tools do you have?".into());
    let mut agent = orbit::Agent::builder().mcp_config(config).build()?;
    let result = agent.ask(prompt).await?;
    for server in agent.mcp_servers() {
        println!("{}: {}", server.name, server.state.as_str());
    }
    println!("{}", result.result);
    Ok(())
}
