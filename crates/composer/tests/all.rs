//! The input box driven as the UI drives it: key events, pastes and renders
//! into a ratatui buffer, with real history files and real project trees.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
