//! Subagent transcripts ("sidechains"), kept beside the parent's:
//!
//! ```text
//! <data dir>/projects/<cwd slug>/<session id>.jsonl                         the parent
//! <data dir>/projects/<cwd slug>/<session id>/subagents/agent-<id>.jsonl    one subagent
//! <data dir>/projects/<cwd slug>/<session id>/subagents/agent-<id>.meta.json what started it
//! ```
//!
//! (Claude Code 2.1.332's layout.) A sidechain is an ordinary transcript
//! — the subagent's engine records it with the same [`crate::TranscriptWriter`]
//! as any session, so it survives a SIGKILL the same way and [`crate::load`]
//! reads it. The meta file names the agent type, the task's description and
//! the parent's Agent tool_use id, so a sidechain can be paired with the
//! call that started it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::paths::{TRANSCRIPT_EXTENSION, file_component, session_dir};

/// Name of the directory of a session's subagent transcripts, inside its
/// session directory.
pub const SUBAGENTS_DIR_NAME: &str = "subagents";

/// `<session dir>/subagents`.
pub fn sidechain_dir(data_dir: &Path, cwd: &Path, session_id: &str) -> PathBuf {
    session_dir(data_dir, cwd, session_id).join(SUBAGENTS_DIR_NAME)
}

/// `<session dir>/subagents/agent-<agent id>.jsonl`.
pub fn sidechain_path(data_dir: &Path, cwd: &Path, session_id: &str, agent_id: &str) -> PathBuf {
    sidechain_dir(data_dir, cwd, session_id).join(format!(
        "agent-{}.{TRANSCRIPT_EXTENSION}",
        file_component(agent_id)
    ))
}

/// What started a subagent (`agent-<id>.meta.json`, Claude Code's field
/// names).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SidechainMeta {
    /// The agent type (`general-purpose`, a project agent's name, …).
    pub agent_type: String,
    /// The task's short description.
    pub description: String,
    /// The parent's Agent tool_use id.
    pub tool_use_id: String,
    /// `foreground` or `background`.
    pub request_shape: String,
    /// The model it runs with.
    pub model: String,
}

/// The meta file beside a sidechain transcript.
pub fn meta_path(sidechain: &Path) -> PathBuf {
    sidechain.with_extension("meta.json")
}

/// Writes `meta` beside `sidechain` (its directory created, mode `0o600`
/// for the file as for transcripts).
pub fn write_meta(sidechain: &Path, meta: &SidechainMeta) -> std::io::Result<()> {
    if let Some(dir) = sidechain.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let bytes = serde_json::to_vec(meta).map_err(std::io::Error::other)?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    std::io::Write::write_all(&mut options.open(meta_path(sidechain))?, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sidechain_sits_in_its_parent_s_session_directory() {
        let path = sidechain_path(Path::new("/d"), Path::new("/p"), "s1", "a12/x");
        assert_eq!(
            path,
            PathBuf::from("/d/projects/-p/s1/subagents/agent-a12-x.jsonl")
        );
        assert_eq!(
            meta_path(&path),
            PathBuf::from("/d/projects/-p/s1/subagents/agent-a12-x.meta.json")
        );
    }
}
