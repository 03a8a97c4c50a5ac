//! Connection reuse between model calls (issue 9, item 11), shared by both
//! providers' tests: the engine stops reading at `message_stop` and drops
//! the stream, so the client itself must finish the body for the pooled
//! connection to be reused, even when the end of the body arrives later
//! than `message_stop`.

use std::time::{Duration, Instant};

use futures::StreamExt;
use orbit_model::{ModelClient, ModelRequest};
use orbit_protocol::StreamEvent;

/// How long after `message_stop` / `[DONE]` the fake server ends the body,
/// in milliseconds.
pub const LATE_END_MS: u64 = 50;
/// Model calls per test.
pub const CALLS: usize = 5;
/// Pause between calls, in milliseconds: stands for the engine running
/// tools; longer than [`LATE_END_MS`] so the end of the body has arrived.
const PAUSE_MS: u64 = 250;

/// Runs [`CALLS`] calls with one client, each read only until
/// `MessageStop` and then dropped (as the engine does); returns when each
/// `MessageStop` arrived.
pub async fn calls_dropped_at_message_stop(
    client: &dyn ModelClient,
    request: &ModelRequest,
) -> Vec<Instant> {
    let mut stops = Vec::new();
    for call in 0..CALLS {
        let mut stream = client.stream(request);
        loop {
            match stream.next().await {
                Some(Ok(StreamEvent::MessageStop)) => break,
                Some(Ok(_)) => {}
                other => panic!("call {call}: stream ended before MessageStop: {other:?}"),
            }
        }
        stops.push(Instant::now());
        drop(stream);
        tokio::time::sleep(Duration::from_millis(PAUSE_MS)).await;
    }
    stops
}

/// `MessageStop` must reach the caller at once, not after the late end of
/// the body: each one came before the server finished writing its response.
pub fn assert_stops_not_delayed(stops: &[Instant], responded: &[Option<Instant>]) {
    assert_eq!(stops.len(), responded.len());
    for (i, (stop, done)) in stops.iter().zip(responded).enumerate() {
        let done = done.unwrap_or_else(|| panic!("call {i}: response never finished"));
        assert!(
            *stop < done,
            "call {i}: MessageStop waited for the end of the body"
        );
    }
}
