//! A streamed SSE response body shared by both drivers, and its drain.
//!
//! [`SseBody`] is the response's bytes → SSE events, counting the bytes
//! read. The engine stops reading at `message_stop` and drops the stream;
//! a hyper connection goes back to the pool only when its body was read to
//! the end, and the end (the final chunk) may arrive in a later read than
//! the last event. So when a driver sees the last event it hands the body
//! to [`SseBody::drain_in_background`]: a spawned task reads the rest,
//! bounded by [`DRAIN_TIMEOUT_MS`] and [`MAX_DRAIN_BYTES`], and drops it.
//! The last events reach the caller at once; the drain costs them nothing.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures::StreamExt;
use futures::stream::BoxStream;

/// Longest wait for the end of a body after its last event, in milliseconds.
pub const DRAIN_TIMEOUT_MS: u64 = 1_000;
/// Most bytes read while draining a body after its last event; a server
/// still sending more is not worth the connection.
pub const MAX_DRAIN_BYTES: u64 = 64 * 1024;

/// One SSE event, or why the body could not be read.
pub type SseItem = Result<Event, EventStreamError<reqwest::Error>>;

/// A 2xx response body read as SSE events.
pub struct SseBody {
    events: BoxStream<'static, SseItem>,
    bytes_read: Arc<AtomicU64>,
}

impl SseBody {
    pub fn new(response: reqwest::Response) -> Self {
        let bytes_read = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&bytes_read);
        let bytes = response.bytes_stream().inspect(move |chunk| {
            if let Ok(chunk) = chunk {
                counter.fetch_add(chunk.len() as u64, Ordering::Relaxed);
            }
        });
        Self {
            events: bytes.eventsource().boxed(),
            bytes_read,
        }
    }

    /// The next event; None at the end of the body.
    pub async fn next(&mut self) -> Option<SseItem> {
        self.events.next().await
    }

    /// Reads the rest of the body in a spawned task (bounded in time and
    /// bytes), so the connection can return to the pool. Without a tokio
    /// runtime the body is dropped (the connection is closed).
    pub fn drain_in_background(mut self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let limit = self
                .bytes_read
                .load(Ordering::Relaxed)
                .saturating_add(MAX_DRAIN_BYTES);
            let drain = async {
                while let Some(item) = self.events.next().await {
                    if item.is_err() || self.bytes_read.load(Ordering::Relaxed) > limit {
                        break;
                    }
                }
            };
            let _ = tokio::time::timeout(Duration::from_millis(DRAIN_TIMEOUT_MS), drain).await;
        });
    }
}
