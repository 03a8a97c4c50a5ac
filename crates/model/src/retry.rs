//! Retry policy for transient model-call failures (L4).
//!
//! A client asks `RetryConfig::delay` how long to wait before retry number
//! `n` (1-based): the server's `retry-after-ms` / `retry-after` when it sent
//! one, else exponential backoff `base · 2^(n-1)` capped at `max_delay`, plus
//! up to `JITTER_FRACTION` of random jitter so many agents hitting one
//! overloaded server do not retry in lockstep. Which failures are retryable
//! is `crate::ModelError::is_retryable`; the attempt loop that applies it
//! is `crate::driver`, shared by every provider.

use std::time::Duration;

use reqwest::header::HeaderMap;

/// Retries after the first attempt (so up to 11 requests), as Claude Code.
pub const DEFAULT_MAX_RETRIES: u32 = 10;
/// First backoff delay, in milliseconds.
pub const DEFAULT_BASE_DELAY_MS: u64 = 500;
/// Largest backoff delay (before jitter), in milliseconds.
pub const DEFAULT_MAX_DELAY_MS: u64 = 32_000;
/// Random extra delay, as a fraction of the backoff delay (0.25 = up to +25 %).
pub(crate) const JITTER_FRACTION: f64 = 0.25;
/// A server's `retry-after` is honoured up to this many milliseconds (5 min).
pub(crate) const MAX_RETRY_AFTER_MS: u64 = 300_000;

/// Connect failures (refused, DNS, connect timeout) get a short schedule of
/// their own: a server that is not there rarely appears within minutes, and
/// the user should hear so in seconds. Retries after the first attempt
/// (fewer when [`RetryConfig::max_retries`] is lower).
pub const CONNECT_MAX_RETRIES: u32 = 3;
/// First backoff delay after a connect failure, in milliseconds (lower
/// when [`RetryConfig::base_delay_ms`] is lower).
pub(crate) const CONNECT_BASE_DELAY_MS: u64 = 250;
/// Largest backoff delay after a connect failure (before jitter), in
/// milliseconds. With the defaults the waits are 250, 500 and 1000 ms plus
/// jitter: a refused connection is reported after ≈ 2 s.
pub(crate) const CONNECT_MAX_DELAY_MS: u64 = 1_000;

/// Env var overriding [`RetryConfig::max_retries`].
pub const ENV_MAX_RETRIES: &str = "ORBIT_MAX_RETRIES";
/// Env var overriding [`RetryConfig::base_delay_ms`] (tests set 1).
pub const ENV_BASE_DELAY_MS: &str = "ORBIT_RETRY_BASE_DELAY_MS";

/// Retry policy (L4).
#[derive(Debug, Clone, PartialEq)]
pub struct RetryConfig {
    /// Retries after the first attempt; 0 disables retrying.
    pub max_retries: u32,
    /// Backoff before the first retry, in milliseconds; doubles per retry.
    pub base_delay_ms: u64,
    /// Cap of the backoff (before jitter), in milliseconds.
    pub max_delay_ms: u64,
}

impl Default for RetryConfig {
    fn default() -> Self {
        Self {
            max_retries: DEFAULT_MAX_RETRIES,
            base_delay_ms: DEFAULT_BASE_DELAY_MS,
            max_delay_ms: DEFAULT_MAX_DELAY_MS,
        }
    }
}

impl RetryConfig {
    /// Defaults overridden by `ORBIT_MAX_RETRIES` and
    /// `ORBIT_RETRY_BASE_DELAY_MS` (unparsable values are ignored).
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`Self::from_env`] with an injectable variable lookup.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let mut config = Self::default();
        if let Some(n) = lookup(ENV_MAX_RETRIES).and_then(|v| v.trim().parse().ok()) {
            config.max_retries = n;
        }
        if let Some(ms) = lookup(ENV_BASE_DELAY_MS).and_then(|v| v.trim().parse().ok()) {
            config.base_delay_ms = ms;
        }
        config
    }

    /// The schedule for connect failures ([`crate::ModelError::Connect`]):
    /// this one bounded by [`CONNECT_MAX_RETRIES`], [`CONNECT_BASE_DELAY_MS`]
    /// and [`CONNECT_MAX_DELAY_MS`], so a test's fast backoff stays fast.
    pub(crate) fn for_connect(&self) -> Self {
        Self {
            max_retries: self.max_retries.min(CONNECT_MAX_RETRIES),
            base_delay_ms: self.base_delay_ms.min(CONNECT_BASE_DELAY_MS),
            max_delay_ms: self.max_delay_ms.min(CONNECT_MAX_DELAY_MS),
        }
    }

    /// The schedule that applies to `error`.
    pub(crate) fn for_error(&self, error: &crate::ModelError) -> Self {
        if error.is_connect() {
            self.for_connect()
        } else {
            self.clone()
        }
    }

    /// Backoff before retry `retry` (1-based) without jitter.
    pub(crate) fn backoff(&self, retry: u32) -> Duration {
        let exp = retry.saturating_sub(1).min(30);
        let ms = self
            .base_delay_ms
            .saturating_mul(1u64 << exp)
            .min(self.max_delay_ms);
        Duration::from_millis(ms)
    }

    /// The wait before retry `retry` (1-based): the server's `retry_after`
    /// when given (capped at [`MAX_RETRY_AFTER_MS`]), else backoff + jitter.
    pub(crate) fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after {
            return after.min(Duration::from_millis(MAX_RETRY_AFTER_MS));
        }
        let backoff = self.backoff(retry);
        backoff + backoff.mul_f64(JITTER_FRACTION * rand::random::<f64>())
    }
}

/// The server's requested wait: `retry-after-ms` (milliseconds) first, then
/// `retry-after` in seconds (fractions allowed; HTTP dates are ignored).
pub(crate) fn parse_retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let secs = get("retry-after").and_then(|v| v.parse::<f64>().ok())?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn backoff_doubles_and_caps() {
        let c = RetryConfig::default();
        assert_eq!(c.backoff(1), Duration::from_millis(500));
        assert_eq!(c.backoff(2), Duration::from_millis(1000));
        assert_eq!(c.backoff(4), Duration::from_millis(4000));
        assert_eq!(c.backoff(7), Duration::from_millis(32_000));
        assert_eq!(c.backoff(40), Duration::from_millis(32_000));
    }

    #[test]
    fn jitter_stays_within_a_quarter() {
        let c = RetryConfig::default();
        for _ in 0..200 {
            let d = c.delay(3, None);
            assert!(
                d >= Duration::from_millis(2000) && d <= Duration::from_millis(2500),
                "{d:?}"
            );
        }
    }

    #[test]
    fn retry_after_wins_and_is_capped() {
        let c = RetryConfig::default();
        assert_eq!(
            c.delay(5, Some(Duration::from_secs(2))),
            Duration::from_secs(2)
        );
        assert_eq!(
            c.delay(1, Some(Duration::from_secs(3600))),
            Duration::from_secs(300)
        );
    }

    #[test]
    fn parses_retry_after_headers() {
        let mut h = HeaderMap::new();
        assert_eq!(parse_retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(parse_retry_after(&h), Some(Duration::from_secs(3)));
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(parse_retry_after(&h), Some(Duration::from_millis(250)));
        let mut h = HeaderMap::new();
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(parse_retry_after(&h), None);
    }

    #[test]
    fn connect_failures_give_up_within_seconds() {
        let c = RetryConfig::default().for_connect();
        assert_eq!(c.max_retries, CONNECT_MAX_RETRIES);
        let worst: Duration = (1..=c.max_retries)
            .map(|n| c.backoff(n).mul_f64(1.0 + JITTER_FRACTION))
            .sum();
        assert!(worst <= Duration::from_secs(3), "{worst:?}");
        // Shorter than the general schedule's, which is kept for 429/529/5xx.
        let general: Duration = (1..=DEFAULT_MAX_RETRIES)
            .map(|n| RetryConfig::default().backoff(n))
            .sum();
        assert!(general >= Duration::from_secs(120), "{general:?}");
        let fast = RetryConfig {
            max_retries: 1,
            base_delay_ms: 1,
            max_delay_ms: 4,
        };
        assert_eq!(fast.for_connect(), fast);
    }

    #[test]
    fn env_overrides() {
        let c = RetryConfig::from_lookup(|k| match k {
            "ORBIT_MAX_RETRIES" => Some("3".into()),
            "ORBIT_RETRY_BASE_DELAY_MS" => Some("1".into()),
            _ => None,
        });
        assert_eq!((c.max_retries, c.base_delay_ms), (3, 1));
        let c = RetryConfig::from_lookup(|_| Some("x".into()));
        assert_eq!(c, RetryConfig::default());
    }
}
