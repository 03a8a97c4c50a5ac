//! Matchers, the runner with real `sh` processes, and folded verdicts.
mod hooks;
