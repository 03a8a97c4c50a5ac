//! Integration tests of the model clients, through the real reqwest client
//! against the fake provider servers of orbit-test-support.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
