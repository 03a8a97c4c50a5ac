//! A tiny scripted HTTP/1.1 server core shared by the fake providers.
//!
//! Data flow: `ScriptServer::start` binds 127.0.0.1:0 and runs an accept
//! loop on its own thread with its own tokio runtime (so it serves both
//! `#[test]` and `#[tokio::test]` callers). Each request is parsed (request
//! line, headers, `Content-Length` or chunked body), captured as a
//! [`CapturedRequest`], and — when its method and path match the route — answered
//! with the next [`WireReply`] of the script, in order. A request to another
//! route gets a 404; a request after the script is exhausted gets the
//! server's `exhausted` reply (a 500 with a clear body), so a test bug shows
//! up as an error, never a hang. Dropping the server ends the accept loop and
//! every connection (including hanging ones).
//!
//! Streamed replies are sent with `Transfer-Encoding: chunked`, one chunk per
//! `Frame`, flushed at once (TCP_NODELAY), each after its own delay. A
//! stream ends cleanly (`StreamEnd::Complete`, the connection stays open for
//! the next request), abruptly (`StreamEnd::Abort`, socket closed without
//! the final chunk) or never (`StreamEnd::Hang`); `StreamEnd::CompleteAfter`
//! sends the final chunk late, and [`ScriptServer::connection_count`] counts
//! accepted TCP connections, for connection-reuse tests. What is captured
//! and what is sent are in `message`; the wire side (parsing a request,
//! writing a reply) is in `wire`.
//!
//! Entry points for a new provider fake (e.g. `openai.rs`): render each
//! scripted reply to a [`WireReply`] (use `WireReply::json` for status
//! replies, `WireReply::sse` with `sse_event` / `sse_data` frames for
//! streams), then `ScriptServer::start(replies, route, exhausted)`; expose
//! `base_url`, `requests` and `wait_for_requests*` by delegation.

mod message;
mod wire;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, watch};

pub use message::{CapturedRequest, WireReply};
pub(crate) use message::{EncodeFrame, Frame, StreamEnd, sse_data, sse_event};
use wire::{read_request, write_reply};

/// Which requests consume a scripted reply: `(method, path) -> bool`.
pub(crate) type Route = fn(&str, &str) -> bool;
/// The reply to the request with 0-based index `n` when the script is empty.
pub(crate) type Exhausted = fn(usize) -> WireReply;
/// A reply chosen from the request itself: `(0-based index, JSON body)` →
/// a reply, or None to take the next scripted one
/// ([`ScriptServer::respond_with`]).
pub type Responder = Arc<dyn Fn(usize, &Value) -> Option<WireReply> + Send + Sync>;

/// Picks the side requests ([`ScriptServer::answer_side_requests`]) by
/// their JSON body.
pub type SideFilter = Arc<dyn Fn(&Value) -> bool + Send + Sync>;

struct State {
    replies: VecDeque<WireReply>,
    requests: Vec<CapturedRequest>,
    responder: Option<Responder>,
    /// Side requests: answered outside the script, captured apart.
    side: Option<(SideFilter, Responder)>,
    side_requests: Vec<CapturedRequest>,
}

struct Shared {
    state: Mutex<State>,
    arrived: Condvar,
    count: watch::Sender<usize>,
    /// TCP connections accepted so far.
    connections: AtomicUsize,
    route: Route,
    exhausted: Exhausted,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock only poisons test bookkeeping; keep going.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A scripted HTTP server on 127.0.0.1; see the module docs.
pub struct ScriptServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl ScriptServer {
    /// Binds 127.0.0.1 on a random port and starts serving `replies` in order.
    ///
    /// Panics if the socket or runtime cannot be created (a test environment bug).
    pub(crate) fn start(replies: Vec<WireReply>, route: Route, exhausted: Exhausted) -> Self {
        let std_listener = match std::net::TcpListener::bind("127.0.0.1:0") {
            Ok(l) => l,
            Err(e) => panic!("fake server: cannot bind 127.0.0.1:0: {e}"),
        };
        let addr = match std_listener.local_addr() {
            Ok(a) => a,
            Err(e) => panic!("fake server: no local address: {e}"),
        };
        if let Err(e) = std_listener.set_nonblocking(true) {
            panic!("fake server: set_nonblocking: {e}");
        }
        let (count, _) = watch::channel(0usize);
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                replies: replies.into(),
                requests: Vec::new(),
                responder: None,
                side: None,
                side_requests: Vec::new(),
            }),
            arrived: Condvar::new(),
            count,
            connections: AtomicUsize::new(0),
            route,
            exhausted,
        });
        let (shutdown, shutdown_rx) = oneshot::channel();
        let loop_shared = shared.clone();
        let thread = std::thread::Builder::new()
            .name(format!("fake-server-{}", addr.port()))
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => panic!("fake server: tokio runtime: {e}"),
                };
                rt.block_on(accept_loop(std_listener, loop_shared, shutdown_rx));
                // Cancels every connection task, including hanging streams.
                rt.shutdown_background();
            });
        let thread = match thread {
            Ok(t) => t,
            Err(e) => panic!("fake server: cannot spawn thread: {e}"),
        };
        Self {
            addr,
            shared,
            shutdown: Some(shutdown),
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Appends a reply to the script.
    pub fn push(&self, reply: WireReply) {
        self.shared.lock().replies.push_back(reply);
    }

    /// Answers routed requests with `responder` first: a request it returns
    /// None for takes the next scripted reply (for long sessions whose
    /// replies depend on what was asked, e.g. a summary request).
    pub fn respond_with(&self, responder: Responder) {
        self.shared.lock().responder = Some(responder);
    }

    /// Answers the routed requests `is_side` picks (a tool's side request
    /// to the model: WebFetch's prompt, WebSearch's search) with
    /// `responder` (given their 0-based side index), outside the script:
    /// they take no scripted reply and are captured in
    /// [`Self::side_requests`], not [`Self::requests`]. A None answer is
    /// a 500.
    pub fn answer_side_requests(&self, is_side: SideFilter, responder: Responder) {
        self.shared.lock().side = Some((is_side, responder));
    }

    /// Every side request received so far ([`Self::answer_side_requests`]).
    pub fn side_requests(&self) -> Vec<CapturedRequest> {
        self.shared.lock().side_requests.clone()
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<CapturedRequest> {
        self.shared.lock().requests.clone()
    }

    /// The requests from the `first`-th (0-based) on, in arrival order
    /// (cheaper than [`Self::requests`] in long sessions).
    pub fn requests_since(&self, first: usize) -> Vec<CapturedRequest> {
        let state = self.shared.lock();
        state.requests.get(first..).unwrap_or_default().to_vec()
    }

    /// How long the server spent on each request from the `first`-th on:
    /// first byte received → end of its response (zero while still
    /// answering). Copies no body, so a benchmark timing its client around
    /// it leaves no garbage for the client's next allocation to sweep.
    pub fn server_times_since(&self, first: usize) -> Vec<std::time::Duration> {
        let state = self.shared.lock();
        let requests = state.requests.get(first..).unwrap_or_default();
        requests
            .iter()
            .map(|r| {
                r.responded_at.map_or(std::time::Duration::ZERO, |t| {
                    t.duration_since(r.received_at)
                })
            })
            .collect()
    }

    /// The JSON bodies of every request so far.
    pub fn bodies(&self) -> Vec<Value> {
        self.requests().into_iter().map(|r| r.body).collect()
    }

    /// TCP connections accepted so far (1 after any number of requests =
    /// the client kept reusing one pooled connection).
    pub fn connection_count(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }

    pub fn request_count(&self) -> usize {
        self.shared.lock().requests.len()
    }

    /// Scripted replies not yet served.
    pub(crate) fn remaining_replies(&self) -> usize {
        self.shared.lock().replies.len()
    }

    /// Blocks until at least `n` requests arrived; panics after `timeout`.
    /// In an async test use [`Self::wait_for_requests_async`] instead (this
    /// blocks the calling thread).
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> Vec<CapturedRequest> {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.lock();
        while state.requests.len() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                panic!(
                    "fake server: waited {timeout:?} for {n} requests, got {}",
                    state.requests.len()
                );
            }
            state = match self.shared.arrived.wait_timeout(state, left) {
                Ok((s, _)) => s,
                Err(p) => p.into_inner().0,
            };
        }
        state.requests.clone()
    }

    /// Async form of [`Self::wait_for_requests`].
    pub async fn wait_for_requests_async(
        &self,
        n: usize,
        timeout: Duration,
    ) -> Vec<CapturedRequest> {
        let mut rx = self.shared.count.subscribe();
        let waited = tokio::time::timeout(timeout, rx.wait_for(|c| *c >= n)).await;
        if !matches!(waited, Ok(Ok(_))) {
            panic!(
                "fake server: waited {timeout:?} for {n} requests, got {}",
                self.request_count()
            );
        }
        self.requests()
    }
}

impl Drop for ScriptServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn accept_loop(
    std_listener: std::net::TcpListener,
    shared: Arc<Shared>,
    mut shutdown: oneshot::Receiver<()>,
) {
    let listener = match TcpListener::from_std(std_listener) {
        Ok(l) => l,
        Err(e) => panic!("fake server: listener: {e}"),
    };
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => {
                let Ok((socket, _)) = accepted else { continue };
                let _ = socket.set_nodelay(true);
                let connection_id = shared.connections.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(serve_connection(socket, connection_id, shared.clone()));
            }
        }
    }
}

/// The reply to a side request ([`ScriptServer::answer_side_requests`]),
/// captured apart; None for every other request.
fn answer_side(shared: &Shared, req: &wire::RawRequest, connection_id: usize) -> Option<WireReply> {
    let mut state = shared.lock();
    let (is_side, responder) = state.side.clone()?;
    if !(shared.route)(&req.method, &req.path) {
        return None;
    }
    let raw_body = String::from_utf8_lossy(&req.body).into_owned();
    let body = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
    if !is_side(&body) {
        return None;
    }
    let index = state.side_requests.len();
    let reply = responder(index, &body).unwrap_or_else(|| {
        WireReply::json(500, r#"{"type":"error","error":{"type":"api_error","message":"fake server: no side answer"}}"#)
    });
    state.side_requests.push(CapturedRequest {
        method: req.method.clone(),
        path: req.path.clone(),
        headers: req.headers.clone(),
        body,
        raw_body,
        connection_id,
        received_at: req.received_at,
        responded_at: Some(Instant::now()),
    });
    Some(reply)
}

/// Serves requests on one connection until it closes or a reply aborts it.
async fn serve_connection(mut socket: TcpStream, connection_id: usize, shared: Arc<Shared>) {
    let mut buf: Vec<u8> = Vec::new();
    loop {
        let Some(req) = read_request(&mut socket, &mut buf).await else {
            return;
        };
        let close_after = req
            .headers
            .iter()
            .any(|(k, v)| k == "connection" && v.eq_ignore_ascii_case("close"));
        if let Some(reply) = answer_side(&shared, &req, connection_id) {
            if !write_reply(&mut socket, &reply).await || close_after {
                let _ = socket.shutdown().await;
                return;
            }
            continue;
        }
        let (reply, index) = {
            let mut state = shared.lock();
            let index = state.requests.len();
            let routed = (shared.route)(&req.method, &req.path);
            let raw_body = String::from_utf8_lossy(&req.body).into_owned();
            let body = serde_json::from_str(&raw_body).unwrap_or(Value::Null);
            let chosen = match (&state.responder, routed) {
                (Some(responder), true) => responder(index, &body),
                _ => None,
            };
            let reply = if let Some(r) = chosen {
                r
            } else if !routed {
                WireReply::json(
                    404,
                    format!(
                        r#"{{"type":"error","error":{{"type":"not_found_error","message":"fake server: no route for {} {}"}}}}"#,
                        req.method, req.path
                    ),
                )
            } else if let Some(r) = state.replies.pop_front() {
                r
            } else {
                (shared.exhausted)(index)
            };
            state.requests.push(CapturedRequest {
                method: req.method,
                path: req.path,
                headers: req.headers,
                body,
                raw_body,
                connection_id,
                received_at: req.received_at,
                responded_at: None,
            });
            let n = state.requests.len();
            drop(state);
            shared.arrived.notify_all();
            shared.count.send_replace(n);
            (reply, index)
        };
        let keep_open = write_reply(&mut socket, &reply).await;
        shared.lock().requests[index].responded_at = Some(Instant::now());
        if !keep_open || close_after {
            let _ = socket.shutdown().await;
            return;
        }
    }
}
