//! End-to-end tests of the `orbit` binary against the fake Anthropic server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
