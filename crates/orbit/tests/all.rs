//! Integration tests of the `orbit` library crate (one binary, `suite/`
//! modules).

mod suite;
