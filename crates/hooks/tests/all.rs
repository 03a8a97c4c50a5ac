//! orbit-hooks integration tests (one binary): see `suite/`.
mod suite;
