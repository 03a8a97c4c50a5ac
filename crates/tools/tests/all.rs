//! Integration tests of orbit-tools: each module in `suite/` drives real
//! tools through the erased contract the engine uses (`suite/harness.rs`:
//! parse → validate → call) on real files, processes and local servers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
