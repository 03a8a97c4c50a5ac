//! Integration tests of the fake servers, through raw TCP.
mod suite;
