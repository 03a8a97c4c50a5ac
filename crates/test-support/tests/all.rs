//! Integration tests of the fake servers, through raw TCP.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
