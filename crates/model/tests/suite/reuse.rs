//! Connection reuse between model calls (issue 9 item 11, issue 10 item 5),
//! for both providers: the engine stops reading at `message_stop` and
//! drops the stream, so the client itself must finish the body for the
//! pooled connection to be reused, even when the end of the body arrives
//! later than `message_stop` — and even when the next call starts at once,
//! before that end arrived (the engine's tools can take a millisecond).

use std::time::{Duration, Instant};

use futures::StreamExt;
use orbit_model::{ModelClient, ModelRequest};
use orbit_protocol::StreamEvent;
use orbit_test_support::{Completion, FakeAnthropic, FakeOpenAi, OpenAiReply, Reply, Turn};

/// How long after `message_stop` / `[DONE]` the fake server ends the body,
/// in milliseconds.
const LATE_END_MS: u64 = 50;
/// Model calls per test.
const CALLS: usize = 5;
/// Pause between calls, in milliseconds: stands for the engine running
/// slow tools; longer than [`LATE_END_MS`] so the end of the body has
/// arrived before the next call.
const TOOLS_PAUSE_MS: u64 = 250;

/// Runs [`CALLS`] calls with one client, each read only until
/// `MessageStop` and then dropped (as the engine does), `pause` apart;
/// returns when each `MessageStop` arrived.
async fn calls_dropped_at_message_stop(
    client: &dyn ModelClient,
    request: &ModelRequest,
    pause: Duration,
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
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
    }
    stops
}

/// [`CALLS`] calls `pause` apart against `server`, whose bodies end
/// [`LATE_END_MS`] after their last event: every `MessageStop` reached the
/// caller before the server finished writing that response (the drain
/// delays nothing), and all calls used one TCP connection.
async fn assert_one_connection(
    client: &dyn ModelClient,
    request: &ModelRequest,
    server: &orbit_test_support::ScriptServer,
    pause: Duration,
) {
    let stops = calls_dropped_at_message_stop(client, request, pause).await;
    let responded = responses_finished(server).await;
    assert_eq!(stops.len(), responded.len());
    for (i, (stop, done)) in stops.iter().zip(&responded).enumerate() {
        let done = done.unwrap_or_else(|| panic!("call {i}: response never finished"));
        assert!(
            *stop < done,
            "call {i}: MessageStop waited for the end of the body"
        );
    }
    assert_eq!(server.request_count(), CALLS);
    assert_eq!(server.connection_count(), 1, "a new connection per call");
}

/// When the server finished writing each response, once the last one
/// finished (it ends [`LATE_END_MS`] after the last `MessageStop`) or a
/// second passed.
async fn responses_finished(server: &orbit_test_support::ScriptServer) -> Vec<Option<Instant>> {
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        let responded: Vec<_> = server.requests().iter().map(|r| r.responded_at).collect();
        if responded.iter().all(Option::is_some) || Instant::now() >= deadline {
            return responded;
        }
        tokio::time::sleep(Duration::from_millis(LATE_END_MS / 5)).await;
    }
}

fn late_ending_anthropic() -> FakeAnthropic {
    let late_end = Duration::from_millis(LATE_END_MS);
    FakeAnthropic::start(
        (0..CALLS)
            .map(|i| {
                Reply::turn(
                    Turn::new()
                        .text(format!("answer {i}"))
                        .end_body_after(late_end),
                )
            })
            .collect(),
    )
}

fn late_ending_openai() -> FakeOpenAi {
    let late_end = Duration::from_millis(LATE_END_MS);
    let completion = |i| {
        Completion::new()
            .text(format!("answer {i}"))
            .usage(10, 2)
            .end_body_after(late_end)
    };
    FakeOpenAi::start(
        (0..CALLS)
            .map(|i| OpenAiReply::completion(completion(i)))
            .collect(),
    )
}

/// [`assert_one_connection`] for both providers, `pause` between calls.
async fn both_providers_reuse_one_connection(pause: Duration) {
    let server = late_ending_anthropic();
    let client = super::anthropic::client(&server);
    let request = super::anthropic::request("hi");
    assert_one_connection(&client, &request, &server, pause).await;
    let server = late_ending_openai();
    let client = super::openai::client(&server);
    let request = super::openai::request("hi");
    assert_one_connection(&client, &request, &server, pause).await;
}

/// Item 11: the body ends 50 ms after `message_stop` / `[DONE]` and every
/// stream is dropped at `MessageStop`; the client still reuses one
/// connection.
#[tokio::test]
async fn connection_is_reused_when_the_body_ends_after_the_last_event() {
    both_providers_reuse_one_connection(Duration::from_millis(TOOLS_PAUSE_MS)).await;
}

/// Issue 10 item 5: the next call starts the moment `MessageStop` arrived,
/// 50 ms before the end of the previous body: it awaits the previous
/// call's drain and reuses its connection. On one thread (the CLI's
/// runtime) and on several.
#[tokio::test]
async fn back_to_back_calls_reuse_one_connection_on_one_thread() {
    both_providers_reuse_one_connection(Duration::ZERO).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn back_to_back_calls_reuse_one_connection_on_two_threads() {
    both_providers_reuse_one_connection(Duration::ZERO).await;
}
