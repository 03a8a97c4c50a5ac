//! Integration tests of the `orbit` library crate (one binary, `suite/`
//! modules).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
