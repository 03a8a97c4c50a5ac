//! orbit-shell's integration tests (one binary; modules in `suite/`).

mod suite;
