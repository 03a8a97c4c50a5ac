//! What the engine benchmarks share: the Anthropic client without retries
//! they all talk through, and one test tool, read-only and
//! concurrency-safe, named by the bench, whose call is a closure over the
//! raw input (so each bench says only what its tool does).

use std::future::Future;
use std::pin::Pin;

use async_trait::async_trait;
use orbit_model::RetryConfig;
use orbit_model::anthropic::{AnthropicClient, AnthropicConfig};
use orbit_tool::{
    CallContext, CallFacts, ToolError, ToolInfo, ToolOutput, ToolUseContext, TypedTool,
};
use serde_json::Value;

/// The real Anthropic client against `base_url`, no retries.
pub fn client(base_url: String) -> AnthropicClient {
    AnthropicClient::new(AnthropicConfig {
        base_url,
        api_key: Some("bench".into()),
        retry: RetryConfig {
            max_retries: 0,
            base_delay_ms: 1,
            max_delay_ms: 1,
        },
        ..AnthropicConfig::default()
    })
    .unwrap()
}

/// What a bench tool's call does with its input.
pub type BenchCall =
    Box<dyn Fn(Value) -> Pin<Box<dyn Future<Output = ToolOutput> + Send>> + Send + Sync>;

/// A read-only, concurrency-safe tool with the given name and input schema.
pub struct BenchTool {
    pub name: &'static str,
    pub schema: Value,
    pub call: BenchCall,
}

#[async_trait]
impl TypedTool for BenchTool {
    type Input = Value;
    type Plan = Value;

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(self.name, "bench")
    }

    fn input_schema(&self) -> Value {
        self.schema.clone()
    }

    fn facts(&self, _: &Value, _: &ToolUseContext) -> CallFacts {
        CallFacts::about(self.name).only_reads()
    }

    async fn validate(&self, input: Value, _: &ToolUseContext) -> Result<Value, ToolError> {
        Ok(input)
    }

    async fn call(
        &self,
        input: Value,
        _: &ToolUseContext,
        _: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        Ok((self.call)(input).await)
    }
}
