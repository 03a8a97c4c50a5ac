//! A streamed SSE response body shared by every wire format, its drain,
//! and the wait for that drain before a client's next request.
//!
//! [`SseBody`] is the response's bytes → SSE events, counting the bytes
//! read. The engine stops reading at `message_stop` and drops the stream;
//! a hyper connection goes back to the pool only when its body was read to
//! the end, and the end (the final chunk) may arrive in a later read than
//! the last event. So when the driver sees the last event it hands the body
//! to [`DrainGate::start`]: a spawned task reads the rest
//! ([`SseBody::drain_in_background`]), bounded by [`DRAIN_TIMEOUT_MS`] and
//! [`MAX_DRAIN_BYTES`], and drops it. The last events reach the caller at
//! once; the drain costs them nothing.
//!
//! The next call of the same client may start before that drain finished
//! (the engine's tools can take a millisecond): its request would then open
//! a new connection. So each attempt first awaits the running drain
//! ([`DrainGate::wait`]), for at most [`DRAIN_WAIT_MS`] (plus
//! [`POOL_RETURN_MS`] on a multi-thread runtime); when no drain is running
//! (the usual case) that is one uncontended lock and no await.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use eventsource_stream::{Event, EventStreamError, Eventsource};

use crate::ModelError;
use crate::eventstream::{FrameReader, frame_event};
use crate::reach::error_chain;
use futures::StreamExt;
use futures::stream::BoxStream;
use tokio::task::JoinHandle;

/// Longest wait for the end of a body after its last event, in milliseconds.
pub(crate) const DRAIN_TIMEOUT_MS: u64 = 1_000;
/// Most bytes read while draining a body after its last event; a server
/// still sending more is not worth the connection.
pub(crate) const MAX_DRAIN_BYTES: u64 = 64 * 1024;
/// Longest wait, before a client's next request, for the drain of its
/// previous call to finish, in milliseconds. A server that ends its body
/// later than this costs a new connection rather than more latency.
pub(crate) const DRAIN_WAIT_MS: u64 = 200;
/// On a multi-thread runtime, the pause after a waited drain that lets
/// hyper return the connection to the pool, in milliseconds (one timer tick).
pub(crate) const POOL_RETURN_MS: u64 = 1;

/// One event, or why the body could not be read (a transport error is
/// [`ModelError::Connection`], a malformed event or frame
/// [`ModelError::Malformed`]).
pub(crate) type SseItem = Result<Event, ModelError>;

/// The content type of AWS event-stream bodies (Bedrock's streams).
pub(crate) const EVENT_STREAM_CONTENT_TYPE: &str = "application/vnd.amazon.eventstream";

/// A 2xx response body read as SSE events.
pub(crate) struct SseBody {
    events: BoxStream<'static, SseItem>,
    bytes_read: Arc<AtomicU64>,
}

impl SseBody {
    pub(crate) fn new(response: reqwest::Response) -> Self {
        let event_stream = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with(EVENT_STREAM_CONTENT_TYPE));
        let bytes_read = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&bytes_read);
        let bytes = response.bytes_stream().inspect(move |chunk| {
            if let Ok(chunk) = chunk {
                counter.fetch_add(chunk.len() as u64, Ordering::Relaxed);
            }
        });
        let events = if event_stream {
            frames(bytes.boxed())
        } else {
            bytes
                .eventsource()
                .map(|item| {
                    item.map_err(|e| match e {
                        EventStreamError::Transport(e) => ModelError::Connection(error_chain(&e)),
                        other => ModelError::Malformed(other.to_string()),
                    })
                })
                .boxed()
        };
        Self { events, bytes_read }
    }

    /// The next event; None at the end of the body.
    pub(crate) async fn next(&mut self) -> Option<SseItem> {
        self.events.next().await
    }

    /// Reads the rest of the body in a spawned task (bounded in time and
    /// bytes), so the connection can return to the pool; the task's handle.
    /// Without a tokio runtime the body is dropped (the connection is
    /// closed) and there is no task.
    pub(crate) fn drain_in_background(mut self) -> Option<JoinHandle<()>> {
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        Some(runtime.spawn(async move {
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
        }))
    }
}

/// An AWS event-stream body (Bedrock) as events: each whole frame is one
/// event ([`frame_event`]); a frame that fails its checks ends the stream
/// with [`ModelError::Malformed`], and a body that ends inside a frame with
/// [`ModelError::StreamCut`]'s text as a connection error.
fn frames(
    bytes: BoxStream<'static, Result<bytes::Bytes, reqwest::Error>>,
) -> BoxStream<'static, SseItem> {
    let state = (bytes, FrameReader::default(), false);
    futures::stream::unfold(state, |(mut bytes, mut reader, mut done)| async move {
        loop {
            if done {
                return None;
            }
            match reader.next_frame() {
                Ok(Some(frame)) => return Some((Ok(frame_event(&frame)), (bytes, reader, done))),
                Ok(None) => {}
                Err(e) => {
                    done = true;
                    let error = ModelError::Malformed(e.to_string());
                    return Some((Err(error), (bytes, reader, done)));
                }
            }
            match bytes.next().await {
                Some(Ok(piece)) => reader.push(&piece),
                Some(Err(e)) => {
                    done = true;
                    let error = ModelError::Connection(error_chain(&e));
                    return Some((Err(error), (bytes, reader, done)));
                }
                None if reader.has_partial() => {
                    done = true;
                    let error = ModelError::Connection(
                        "the body ended inside an event-stream frame".into(),
                    );
                    return Some((Err(error), (bytes, reader, done)));
                }
                None => return None,
            }
        }
    })
    .boxed()
}

/// The drain of a client's latest finished call, shared by its calls.
#[derive(Debug, Default)]
pub(crate) struct DrainGate {
    running: Mutex<Option<JoinHandle<()>>>,
}

impl DrainGate {
    /// Drains `body` in the background and remembers the drain.
    pub(crate) fn start(&self, body: SseBody) {
        if let Some(drain) = body.drain_in_background() {
            self.track(drain);
        }
    }

    /// Remembers `drain` as the one the next request waits for.
    pub(crate) fn track(&self, drain: JoinHandle<()>) {
        *self.slot() = Some(drain);
    }

    /// Waits until the remembered drain finished, at most
    /// [`DRAIN_WAIT_MS`]; at once (without suspending) when none is running.
    pub(crate) async fn wait(&self) {
        let Some(drain) = self.take_running() else {
            return;
        };
        // Past the bound the drain goes on, detached; the request does not wait.
        let _ = tokio::time::timeout(Duration::from_millis(DRAIN_WAIT_MS), drain).await;
        // The end of the body wakes the drain and, separately, hyper's task
        // that puts the connection back in the pool. On one thread that
        // task runs before this one resumes; on several it may not have run
        // yet, and a request sent now would start a new connection.
        let runtime = tokio::runtime::Handle::current().runtime_flavor();
        if runtime != tokio::runtime::RuntimeFlavor::CurrentThread {
            tokio::time::sleep(Duration::from_millis(POOL_RETURN_MS)).await;
        }
    }

    fn take_running(&self) -> Option<JoinHandle<()>> {
        self.slot().take().filter(|drain| !drain.is_finished())
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<JoinHandle<()>>> {
        // The slot holds no invariant a panic could break.
        self.running.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use futures::FutureExt;

    use super::*;

    #[tokio::test]
    async fn no_wait_without_a_running_drain() {
        let gate = DrainGate::default();
        assert_eq!(gate.wait().now_or_never(), Some(()), "no drain");
        let finished = tokio::spawn(async {});
        while !finished.is_finished() {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        gate.track(finished);
        assert_eq!(gate.wait().now_or_never(), Some(()), "a finished drain");
    }

    #[tokio::test]
    async fn waits_for_a_running_drain_within_the_bound() {
        let gate = DrainGate::default();
        let started = Instant::now();
        gate.track(tokio::spawn(tokio::time::sleep(Duration::from_millis(50))));
        gate.wait().await;
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(50), "{waited:?}");
        assert!(waited < Duration::from_millis(DRAIN_WAIT_MS), "{waited:?}");
        // Only once: the next request does not wait again.
        assert_eq!(gate.wait().now_or_never(), Some(()));

        let started = Instant::now();
        gate.track(tokio::spawn(tokio::time::sleep(Duration::from_secs(30))));
        gate.wait().await;
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(DRAIN_WAIT_MS), "{waited:?}");
        assert!(waited < Duration::from_secs(5), "{waited:?}");
    }
}
