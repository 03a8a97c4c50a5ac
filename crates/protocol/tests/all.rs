//! Integration tests of the protocol types against real API JSON.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
