//! A non-streamed request on a client's transport: [`Transport::post_json`].
//!
//! The Anthropic client's one use (`ModelClient::send_json`) is a
//! Messages request with server tools (WebSearch's web search), whose
//! `server_tool_use`/`web_search_tool_result` blocks the event stream does
//! not carry. Same request (`attempt::post`: headers, key helper — a 401
//! runs it again, once — and credentials), idle timeout and retry
//! schedule as a streamed call; the answer is the response's JSON.

use std::time::Duration;

use bytes::Bytes;
use reqwest::header::HeaderMap;
use serde_json::Value;

use super::{Transport, WireDecoder, millis};
use crate::ModelError;
use crate::retry::parse_retry_after;

impl Transport {
    /// Posts `body` (with `headers` over the client's) and returns the
    /// response JSON; error statuses become `D`'s errors, retried as a
    /// streamed call's are.
    pub(crate) async fn post_json<D: WireDecoder>(
        &self,
        headers: HeaderMap,
        body: Bytes,
    ) -> Result<Value, ModelError> {
        let (mut retries, mut rekeyed) = (0u32, false);
        loop {
            let (error, retry_after) = match self.post_once::<D>(&headers, &body).await {
                Ok(value) => return Ok(value),
                Err(failed) => failed,
            };
            if error.status() == Some(401)
                && !rekeyed
                && let Some(helper) = self.key_helper.get()
            {
                rekeyed = true;
                helper.invalidate();
                continue;
            }
            let schedule = self.retry.for_error(&error);
            if !error.is_retryable() || retries >= schedule.max_retries {
                return Err(error.into_final(retries + 1, &self.endpoint));
            }
            retries += 1;
            let delay = schedule.delay(retries, retry_after);
            tracing::debug!(attempt = retries, delay_ms = millis(delay), %error, "retrying");
            tokio::time::sleep(delay).await;
        }
    }

    async fn post_once<D: WireDecoder>(
        &self,
        headers: &HeaderMap,
        body: &Bytes,
    ) -> Result<Value, (ModelError, Option<Duration>)> {
        let url = &self.endpoint.url;
        let response = super::attempt::post(self, headers, body)
            .await
            .map_err(|e| (e, None))?;
        let status = response.status();
        let retry_after = parse_retry_after(response.headers());
        let text = match tokio::time::timeout(self.idle_timeout, response.text()).await {
            Err(_) => return Err((ModelError::IdleTimeout(self.idle_timeout_ms()), None)),
            Ok(Err(e)) => return Err((ModelError::Connection(e.to_string()), None)),
            Ok(Ok(text)) => text,
        };
        if !status.is_success() {
            return Err((D::api_error(status.as_u16(), &text, url), retry_after));
        }
        serde_json::from_str(&text).map_err(|e| {
            let head = super::attempt::head(&text);
            (ModelError::Malformed(format!("{e}: {head}")), None)
        })
    }
}

#[cfg(test)]
mod tests {
    use orbit_test_support::{FakeAnthropic, Reply};
    use serde_json::json;

    use crate::anthropic::{AnthropicClient, AnthropicConfig};
    use crate::{ModelClient, RetryConfig};

    fn client(server: &FakeAnthropic) -> AnthropicClient {
        let config = AnthropicConfig {
            base_url: server.base_url(),
            api_key: Some("k".into()),
            retry: RetryConfig {
                max_retries: 2,
                base_delay_ms: 1,
                max_delay_ms: 1,
            },
            ..AnthropicConfig::default()
        };
        AnthropicClient::new(config).unwrap_or_else(|e| panic!("{e}"))
    }

    #[tokio::test]
    async fn a_raw_request_is_sent_unstreamed_and_retried() {
        let answer = json!({"type": "message", "content": [{"type": "text", "text": "hi"}],
                            "stop_reason": "end_turn"});
        let server = FakeAnthropic::start(vec![
            Reply::overloaded(),
            Reply::status(200, answer.to_string()),
        ]);
        let got = client(&server)
            .send_json(json!({"model": "m", "max_tokens": 5, "messages": []}))
            .await;
        assert_eq!(got.ok(), Some(answer));
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "the 529 was retried");
        assert_eq!(requests[1].body["stream"], false);
        assert_eq!(requests[1].header("accept"), Some("application/json"));
        assert_eq!(requests[1].header("x-api-key"), Some("k"));
    }

    #[tokio::test]
    async fn an_error_status_is_the_api_s_error() {
        let server = FakeAnthropic::start(vec![Reply::api_error(
            400,
            "invalid_request_error",
            "tools.0: unknown tool type",
        )]);
        let got = client(&server).send_json(json!({"messages": []})).await;
        let text = got.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(text.contains("tools.0: unknown tool type"), "{text}");
        assert_eq!(server.requests().len(), 1, "a 400 is not retried");
    }
}
