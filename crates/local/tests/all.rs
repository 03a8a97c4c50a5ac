//! Integration tests of orbit-local: real processes (a stand-in
//! llama-server written in Python that speaks `/health`), real files, real
//! zip wheels assembled by the real setup code.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
