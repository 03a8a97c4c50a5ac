//! orbit-tui's views rendered into ratatui's `TestBackend` (insta snapshots).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
