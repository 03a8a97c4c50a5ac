//! The Anthropic client against `FakeAnthropic`: what only the Messages
//! API has (the shared faults are in `suite::faults`).

mod faults;
mod request;
mod stream;

use orbit_model::ModelRequest;
use orbit_protocol::Message;

use super::completed_with_invalid_input as completed;
pub use super::wire::{client, client_with};
use super::{retries, run};

pub fn request(prompt: &str) -> ModelRequest {
    ModelRequest {
        model: "claude-sonnet-4-5".into(),
        system: "You are a test.".into(),
        messages: vec![Message::user_text(prompt).into()],
        max_tokens: 1024,
        ..Default::default()
    }
}
