//! Test support for orbit: fake provider servers that speak the real wire
//! formats on 127.0.0.1, scripted turn by turn, capturing every request.
//!
//! - [`http`]: the shared scripted HTTP/1.1 + SSE server core
//!   ([`ScriptServer`], [`WireReply`], `sse_event` / `sse_data`).
//! - [`fake`]: a fake provider over that core, generic over its wire
//!   [`Dialect`]: [`FakeServer`] serving [`ReplyOf`]s (a streamed message or
//!   a status); `script` holds what the dialects' streams share (late end
//!   of body, faults, text splitting).
//! - [`anthropic`]: [`FakeAnthropic`] with the [`Turn`] / [`Reply`] DSL.
//! - [`bedrock`]: [`FakeBedrock`], Anthropic turns in AWS event-stream
//!   frames, and a SigV4 checker ([`bedrock::sigv4::verify`]).
//! - [`vertex`]: [`FakeVertex`] (Anthropic turns over SSE at
//!   `:streamRawPredict`) and [`FakeGoogleToken`], a token endpoint.
//! - [`openai`]: [`FakeOpenAi`] with the [`Completion`] / [`OpenAiReply`] DSL
//!   (chat-completions chunks, parallel tool calls, usage, faults).
//! - [`local`]: a stand-in local runtime ([`stub_local_runtime`]) whose
//!   `llama-server` is a script of the test's ([`llama_server_script!`]).
//! - [`search`]: [`search::FakeSearxng`], a SearXNG-shaped search backend;
//!   `anthropic::side` answers WebFetch's and WebSearch's side requests.
//! - [`process`]: the live members of a process group (`/proc`).
//! - [`files`]: hostile files for a test's temp dir (a FIFO, a large
//!   sparse text file).
//! - [`body`]: assertions over captured request bodies
//!   ([`body::tool_result_texts`], [`body::without_cache_control`], …).
//! - [`vars`]: a test's variables as a `from_lookup` lookup.
//!
//! A whole scripted exchange:
//!
//! ```no_run
//! use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
//! use serde_json::json;
//!
//! let server = FakeAnthropic::start(vec![
//!     Reply::turn(Turn::new().text("Let me read it.")
//!         .tool_use("toolu_1", "Read", json!({"file_path": "a.txt"})).usage(100, 20)),
//!     Reply::overloaded().retry_after_secs(0),
//!     Reply::text("done"),
//! ]);
//! // … point the client at server.base_url() and run the turn …
//! let reqs = server.wait_for_requests(3, std::time::Duration::from_secs(5));
//! assert_eq!(body::tool_result_texts(&reqs[2].body), vec!["1\thello"]);
//! ```
//!
//! The server runs on its own thread and runtime, so the API is synchronous
//! and works from `#[test]` and `#[tokio::test]` alike (in async tests prefer
//! the `*_async` waits, which do not block the test's runtime).

pub mod anthropic;
pub mod bedrock;
pub mod body;
pub mod fake;
pub mod files;
pub mod http;
pub mod local;
pub mod openai;
pub mod process;
mod script;
pub mod search;
pub mod vars;
pub mod vertex;

pub use anthropic::{DEFAULT_MODEL, FakeAnthropic, OVERLOADED_BODY, Reply, Turn};
pub use bedrock::{BedrockReply, BedrockTurn, FakeBedrock, bedrock_env};
pub use fake::{Dialect, FakeServer, ReplyOf};
pub use http::{CapturedRequest, Responder, ScriptServer, WireReply};
pub use local::{HEALTHY_LLAMA_SERVER, stub_local_runtime};
pub use openai::{Completion, FakeOpenAi, OpenAiReply};
pub use vertex::{FakeGoogleToken, FakeVertex, VertexReply, VertexTurn, vertex_env};
