//! Integration tests of orbit-engine: the real loop against the fake
//! Anthropic server through the real HTTP client.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
