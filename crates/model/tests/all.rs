//! Integration tests of the model clients, through the real reqwest client
//! against the fake provider servers of orbit-test-support.
mod suite;
