//! Faults only chat-completions servers show (the shared ones are in
//! `suite::faults`): a JSON body instead of the requested stream.

use orbit_test_support::{FakeOpenAi, OpenAiReply};

use super::{client, request, run};

/// A server that ignores `stream: true` and answers one JSON body fails
/// at once with what it sent, instead of retrying a stream that never
/// comes.
#[tokio::test]
async fn a_json_answer_instead_of_a_stream_fails_at_once() {
    let body = r#"{"id":"chatcmpl-1","object":"chat.completion","choices":[]}"#;
    let server = FakeOpenAi::start(vec![
        OpenAiReply::status(200, body),
        OpenAiReply::text("must not be reached"),
    ]);
    let (events, err) = run(&client(&server), &request("hi")).await;
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(
        err.map(|e| e.to_string()),
        Some(format!(
            "API error (HTTP 200): expected an SSE stream (text/event-stream) but got JSON: {body}"
        ))
    );
    assert_eq!(server.request_count(), 1);
}
