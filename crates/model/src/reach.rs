//! Reaching the server: what a failed send means, in one short line.
//!
//! A send that fails before any response is either a connect failure (the
//! server could not be reached: connection refused, DNS lookup failed,
//! connect timeout, TLS handshake) or another transport error. Connect
//! failures become [`ModelError::Connect`] with a short cause
//! (`cannot reach http://127.0.0.1:9/v1/messages (connection refused)`) and
//! are retried on the short connect schedule ([`crate::RetryConfig::for_connect`]);
//! after the last attempt the driver ([`crate::driver`]) turns them into
//! [`ModelError::Unreachable`] via [`ModelError::into_final`], naming the
//! [`Endpoint::check`] (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`, …).
//! Other errors keep their cause chain on one line ([`error_chain`]).

use std::error::Error as _;
use std::io::ErrorKind;

use crate::ModelError;

/// Where a client's requests go, and what to tell a user who cannot reach it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Endpoint {
    /// The full request URL (`http://host/v1/messages`).
    pub url: String,
    /// The configured base URL, without a trailing `/`.
    pub base_url: String,
    /// What to check when the server cannot be reached, as it ends the
    /// final error (`check ANTHROPIC_BASE_URL`).
    pub check: String,
}

impl Endpoint {
    /// `path` under `base_url` (a trailing `/` of the base is ignored);
    /// `check` is what to name when it cannot be reached.
    pub(crate) fn at(base_url: &str, path: &str, check: impl Into<String>) -> Self {
        let base_url = base_url.trim_end_matches('/');
        Self {
            url: format!("{base_url}{path}"),
            base_url: base_url.to_string(),
            check: check.into(),
        }
    }
}

/// A failed `send` (no response) as a [`ModelError`].
pub(crate) fn send_error(e: &reqwest::Error, url: &str) -> ModelError {
    if e.is_connect() {
        ModelError::Connect {
            url: url.to_string(),
            cause: connect_cause(e),
        }
    } else {
        ModelError::Connection(error_chain(e))
    }
}

/// A short, single-line cause of a connect failure: `connection refused`,
/// `DNS lookup failed`, `connection timed out`, …, else the innermost
/// error's own text (a TLS error, say).
pub(crate) fn connect_cause(e: &reqwest::Error) -> String {
    let mut innermost = e.to_string();
    let mut dns = false;
    let mut source = e.source();
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            let known = match io.kind() {
                ErrorKind::ConnectionRefused => Some("connection refused"),
                ErrorKind::TimedOut => Some("connection timed out"),
                ErrorKind::ConnectionReset => Some("connection reset"),
                ErrorKind::NetworkUnreachable => Some("network unreachable"),
                ErrorKind::HostUnreachable => Some("host unreachable"),
                ErrorKind::AddrNotAvailable => Some("address not available"),
                _ => None,
            };
            if let Some(cause) = known {
                return cause.to_string();
            }
        }
        let text = s.to_string();
        dns |= text.contains("dns error");
        innermost = text;
        source = s.source();
    }
    if dns {
        "DNS lookup failed".to_string()
    } else if e.is_timeout() {
        "connection timed out".to_string()
    } else {
        one_line(&innermost)
    }
}

/// A reqwest error with its causes on one line (`error sending request
/// for url (…): client error (SendRequest): connection closed before
/// message completed`), because the top-level message alone names no cause.
pub(crate) fn error_chain(e: &reqwest::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    one_line(&out)
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_collapses_newlines() {
        assert_eq!(one_line("a\n  b\tc "), "a b c");
    }
}
