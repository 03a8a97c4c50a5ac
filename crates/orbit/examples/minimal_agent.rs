//! The smallest agent: the provider from the environment (an API key, else
//! the local model), orbit's built-in tools, one prompt.
//! `cargo run -p orbit --example minimal_agent -- "What does this repo do?"`

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), orbit::Error> {
    let prompt = std::env::args()
        .nth(1)
        .unwrap_or("What is in this directory?".into());
    let mut agent = orbit::Agent::builder().build()?;
    let result = agent.ask(prompt).await?;
    println!("{}", result.result);
    Ok(())
}
