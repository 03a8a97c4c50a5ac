//! Integration tests of orbit-hooks: matchers, the runner with real `sh`
//! processes, folded verdicts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
