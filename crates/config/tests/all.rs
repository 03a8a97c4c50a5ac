//! Tests of orbit-config: precedence, environment values, settings files,
//! the setting-sources filter and the data-dir rule.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
