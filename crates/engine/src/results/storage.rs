//! Where persisted tool results live on disk (R1/R2), and how they get there.
//!
//! Layout: `<data dir>/projects/<cwd slug>/<session id>/tool-results/<tool_use id>.txt`.
//! The slug replaces every non-ASCII-alphanumeric char of the absolute cwd
//! with `-` (Claude Code's `sanitizePath`), so `/home/me/my.proj` becomes
//! `-home-me-my-proj`. A write goes to a temporary file in the same directory
//! and is renamed into place, so a reader (the model's Read tool, a resumed
//! session) never sees a half-written file. Files are created `0o600`: tool
//! output may hold secrets.

use std::path::{Path, PathBuf};

use tokio::io::AsyncWriteExt;

/// Longest slug kept verbatim; longer ones are cut and suffixed with a hash
/// so the directory name stays under the usual 255-byte file-name limit.
pub(super) const MAX_SLUG_CHARS: usize = 200;

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
        let abs_cwd = if cwd.is_absolute() {
            cwd.to_path_buf()
        } else {
            std::env::current_dir()
                .map(|d| d.join(cwd))
                .unwrap_or_else(|_| cwd.to_path_buf())
        };
        let dir = data_dir
            .join("projects")
            .join(project_slug(&abs_cwd))
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

/// The project directory name for an absolute cwd: every char that is not
/// ASCII alphanumeric becomes `-`. Slugs over `MAX_SLUG_CHARS` are cut and
/// get `-<hash>` appended so distinct long paths stay distinct.
pub fn project_slug(abs_cwd: &Path) -> String {
    let raw = abs_cwd.to_string_lossy();
    let slug: String = raw
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    if slug.len() <= MAX_SLUG_CHARS {
        return slug;
    }
    // All chars are ASCII here, so byte slicing is on char boundaries.
    format!("{}-{}", &slug[..MAX_SLUG_CHARS], base36(djb2(&raw)))
}

/// A tool_use id or session id as one safe path component: ASCII
/// alphanumerics, `_` and `-` are kept, anything else (`/`, `.`) becomes `-`,
/// so an id can never escape the tool-results directory.
fn file_component(id: &str) -> String {
    let s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if s.is_empty() { "-".to_string() } else { s }
}

fn djb2(s: &str) -> u32 {
    s.bytes().fold(5381u32, |h, b| {
        h.wrapping_mul(33).wrapping_add(u32::from(b))
    })
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8_lossy(&out).into_owned()
}
