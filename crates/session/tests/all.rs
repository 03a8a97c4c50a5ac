//! The transcript format, writer, reader (with repair) and listing, on real files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
