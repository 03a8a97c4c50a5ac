//! placeholder
/// Retry policy (L4). Filled in by the anthropic client work.
#[derive(Debug, Clone)]
pub struct RetryConfig {
    pub max_attempts: u32,
}
