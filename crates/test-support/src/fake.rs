//! A fake provider, generic over its wire dialect: scripted replies
//! ([`ReplyOf`]: a streamed message or an HTTP status, plus headers) served
//! in order by a [`FakeServer`] over the shared [`ScriptServer`] core.
//!
//! Data flow: a test builds replies → [`FakeServer::start`] renders each
//! to a [`WireReply`] (a stream through its [`Dialect::render`], a status
//! as a whole JSON body) → the `ScriptServer` answers the dialect's route
//! ([`Dialect::ROUTE`]) in order, a request past the script with the
//! dialect's 500 error body. [`crate::FakeAnthropic`] and
//! [`crate::FakeOpenAi`] are this server for [`crate::Turn`] and
//! [`crate::Completion`].

use std::marker::PhantomData;

use crate::http::{ScriptServer, WireReply};

/// A provider's wire format, implemented by its streamed message type.
pub trait Dialect: Clone + std::fmt::Debug {
    /// The path suffix of the requests that take scripted replies.
    const ROUTE: &'static str;
    /// Appended to the server's address in [`FakeServer::base_url`].
    const BASE_PATH: &'static str;
    /// Env vars naming the base URL and the API key.
    const ENV_BASE_URL: &'static str;
    const ENV_API_KEY: &'static str;
    /// The error type of a server fault in [`Dialect::error_body`].
    const SERVER_ERROR_TYPE: &'static str;
    /// Ids of messages that set none: this + their 1-based script position.
    const ID_PREFIX: &'static str;
    /// The model name of messages that set none.
    const MODEL: &'static str;

    /// A message with this text only (for [`ReplyOf::text`]).
    fn with_text(text: &str) -> Self;

    /// The message as a streamed reply; `position` is its 1-based place in
    /// the script.
    fn render(&self, position: usize) -> WireReply;

    /// The provider's JSON error body.
    fn error_body(error_type: &str, message: &str) -> String;
}

/// Implements [`Dialect`] for a stream type from its wire facts. The type
/// itself provides `new`, `text`, `render_stream` (its frames with the
/// fault applied) and `wire_error_body`.
macro_rules! dialect {
    ($message:ident: POST $route:literal under $base:literal, env $url:literal $key:literal,
     server error $server_error:literal, ids $prefix:literal, model $model:path) => {
        impl $crate::fake::Dialect for $message {
            const ROUTE: &'static str = $route;
            const BASE_PATH: &'static str = $base;
            const ENV_BASE_URL: &'static str = $url;
            const ENV_API_KEY: &'static str = $key;
            const SERVER_ERROR_TYPE: &'static str = $server_error;
            const ID_PREFIX: &'static str = $prefix;
            const MODEL: &'static str = $model;

            fn with_text(text: &str) -> Self {
                $message::new().text(text)
            }

            fn render(&self, position: usize) -> $crate::http::WireReply {
                self.render_stream(position)
            }

            fn error_body(error_type: &str, message: &str) -> String {
                $message::wire_error_body(error_type, message)
            }
        }
    };
}
pub(crate) use dialect;

#[derive(Debug, Clone)]
enum ReplyKind<T> {
    Stream(Box<T>),
    Status { status: u16, body: String },
}

/// One scripted answer: a streamed message `T`, or an HTTP status with a
/// whole body; plus extra response headers.
#[derive(Debug, Clone)]
pub struct ReplyOf<T> {
    kind: ReplyKind<T>,
    headers: Vec<(String, String)>,
}

impl<T: Dialect> ReplyOf<T> {
    /// A streamed message (possibly with a fault).
    pub fn stream(message: T) -> Self {
        Self {
            kind: ReplyKind::Stream(Box::new(message)),
            headers: Vec::new(),
        }
    }

    /// Shorthand: a streamed message with text only (`end_turn` / `stop`).
    pub fn text(text: impl AsRef<str>) -> Self {
        Self::stream(T::with_text(text.as_ref()))
    }

    /// An HTTP error (or any status) with a whole JSON body.
    pub fn status(status: u16, body: impl Into<String>) -> Self {
        Self {
            kind: ReplyKind::Status {
                status,
                body: body.into(),
            },
            headers: Vec::new(),
        }
    }

    /// An HTTP error with the provider's error body shape.
    pub fn api_error(status: u16, error_type: &str, message: &str) -> Self {
        Self::status(status, T::error_body(error_type, message))
    }

    /// Adds `retry-after: SECS`.
    pub fn retry_after_secs(self, secs: u64) -> Self {
        self.header("retry-after", secs.to_string())
    }

    /// Adds `retry-after-ms: MS`.
    pub fn retry_after_ms(self, ms: u64) -> Self {
        self.header("retry-after-ms", ms.to_string())
    }

    /// Adds any response header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The wire form; `position` is the 1-based place in the script.
    pub fn render(&self, position: usize) -> WireReply {
        let mut wire = match &self.kind {
            ReplyKind::Stream(message) => message.render(position),
            ReplyKind::Status { status, body } => WireReply::json(*status, body.clone()),
        };
        wire.headers.extend(self.headers.iter().cloned());
        wire
    }
}

fn is_route<T: Dialect>(method: &str, path: &str) -> bool {
    let path = path.split('?').next().unwrap_or(path);
    method == "POST" && path.ends_with(T::ROUTE)
}

fn exhausted<T: Dialect>(index: usize) -> WireReply {
    let message = format!(
        "orbit-test-support: script exhausted: request #{} has no scripted reply",
        index + 1
    );
    WireReply::json(500, T::error_body(T::SERVER_ERROR_TYPE, &message))
}

/// A fake provider server. Dropping it stops the server.
pub struct FakeServer<T> {
    server: ScriptServer,
    dialect: PhantomData<fn() -> T>,
}

impl<T: Dialect> FakeServer<T> {
    /// Starts serving `replies` in order on 127.0.0.1 (random port).
    pub fn start(replies: Vec<ReplyOf<T>>) -> Self {
        let wire = replies
            .iter()
            .enumerate()
            .map(|(i, r)| r.render(i + 1))
            .collect();
        Self {
            server: ScriptServer::start(wire, is_route::<T>, exhausted::<T>),
            dialect: PhantomData,
        }
    }

    /// Appends a reply to the script.
    pub fn push(&self, reply: ReplyOf<T>) {
        let position = self.server.request_count() + self.server.remaining_replies() + 1;
        self.server.push(reply.render(position));
    }

    /// Answers requests with `responder` (given the 0-based request index
    /// and the JSON body) before the script: None takes the next scripted
    /// reply.
    pub fn respond_with(
        &self,
        responder: impl Fn(usize, &serde_json::Value) -> Option<ReplyOf<T>> + Send + Sync + 'static,
    ) {
        self.server
            .respond_with(std::sync::Arc::new(move |index, body| {
                responder(index, body).map(|reply| reply.render(index + 1))
            }));
    }

    /// `http://127.0.0.1:PORT` plus the dialect's base path (`/v1` for
    /// OpenAI); use as the provider's base URL variable.
    pub fn base_url(&self) -> String {
        format!("{}{}", self.server.base_url(), T::BASE_PATH)
    }

    /// Environment for running `orbit` against this server: base URL, a test
    /// API key, and a 1 ms retry backoff base so fault tests run fast.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            (T::ENV_BASE_URL.into(), self.base_url()),
            (T::ENV_API_KEY.into(), "test-key".into()),
            ("ORBIT_RETRY_BASE_DELAY_MS".into(), "1".into()),
        ]
    }
}

/// Captured requests and waiting come from the shared server core
/// (`requests`, `bodies`, `request_count`, `connection_count`,
/// `remaining_replies`, `wait_for_requests`, `wait_for_requests_async`).
impl<T> std::ops::Deref for FakeServer<T> {
    type Target = ScriptServer;

    fn deref(&self) -> &ScriptServer {
        &self.server
    }
}
