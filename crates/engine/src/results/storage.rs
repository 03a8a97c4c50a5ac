//! Where persisted tool results live on disk (R1/R2), and how they get there.
//!
//! Layout: `<data dir>/projects/<cwd slug>/<session id>/tool-results/<tool_use id>.txt`,
//! beside the session's transcript `<session id>.jsonl`: the directory and
//! the slug rule are `orbit_session::paths`, the one place that computes
//! them (`/home/me/my.proj` becomes `-home-me-my-proj`). A write goes to a temporary file in the same directory
//! and is renamed into place, so a reader (the model's Read tool, a resumed
//! session) never sees a half-written file. Files are created `0o600`: tool
//! output may hold secrets.

use std::path::{Path, PathBuf};

use orbit_session::{file_component, project_dir};
use tokio::io::AsyncWriteExt;

pub use orbit_session::project_slug;

/// Why a result could not be persisted. The pipeline then keeps the original
/// result (R1: "if writing fails, the original result is kept").
#[derive(Debug, thiserror::Error)]
pub enum PersistError {
    /// The results directory could not be created.
    #[error("cannot create tool-results directory {path}: {source}")]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The result file could not be written.
    #[error("cannot write tool result to {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// The per-session directory of persisted tool results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResultStorage {
    dir: PathBuf,
}

impl ToolResultStorage {
    /// `data_dir` is `$ORBIT_HOME` (default `~/.orbit`); `cwd` is the
    /// session's project directory, made absolute if it is not.
    pub fn new(data_dir: &Path, cwd: &Path, session_id: &str) -> Self {
        let dir = project_dir(data_dir, cwd)
            .join(file_component(session_id))
            .join("tool-results");
        Self { dir }
    }

    /// `<data dir>/projects/<cwd slug>/<session id>/tool-results`.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the result of `tool_use_id` is (or would be) saved.
    pub fn path_for(&self, tool_use_id: &str) -> PathBuf {
        self.dir
            .join(format!("{}.txt", file_component(tool_use_id)))
    }

    /// Writes `text` byte-exact to [`Self::path_for`]`(tool_use_id)`,
    /// atomically (temp file + rename); an existing file is replaced.
    pub async fn write(&self, tool_use_id: &str, text: &str) -> Result<PathBuf, PersistError> {
        tokio::fs::create_dir_all(&self.dir)
            .await
            .map_err(|source| PersistError::CreateDir {
                path: self.dir.clone(),
                source,
            })?;
        let path = self.path_for(tool_use_id);
        let tmp = self.dir.join(format!(
            ".{}.{}.tmp",
            file_component(tool_use_id),
            uuid::Uuid::new_v4().simple()
        ));
        let written = write_new_file(&tmp, text.as_bytes()).await;
        let renamed = match written {
            Ok(()) => tokio::fs::rename(&tmp, &path).await,
            Err(e) => Err(e),
        };
        match renamed {
            Ok(()) => Ok(path),
            Err(source) => {
                // Best effort: the temp file may not even exist.
                let _ = tokio::fs::remove_file(&tmp).await;
                Err(PersistError::Write { path, source })
            }
        }
    }
}

async fn write_new_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut opts = tokio::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    opts.mode(0o600);
    let mut file = opts.open(path).await?;
    file.write_all(bytes).await?;
    file.flush().await?;
    Ok(())
}
