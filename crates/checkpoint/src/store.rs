//! [`Store`]: a session's checkpoints on disk, in
//! `<session dir>/checkpoints/` (removed with the session's directory):
//!
//! ```text
//! manifest.json        the checkpoints (prompt, kind, snapshot id, timing, lists)
//! index, objects/      git backend: the private index and object store
//! objects/, states/    plain backend: content copies and one state per snapshot
//! stamps.json          plain backend: the last snapshot's stats
//! ```
//!
//! [`Store::take`] snapshots the project with the backend its directory
//! calls for and records the checkpoint; [`Store::state`] reads one back.
//! The store stops taking checkpoints at [`STORE_MAX_BYTES`] (one line,
//! kept in the manifest and shown by `orbit sessions show`).

use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::disk::{dir_bytes, read_json, write_json};
use crate::git::GitRepo;
use crate::plain::{self, Stamps};
use crate::state::State;
use crate::{CheckpointError, NotRestorable};

/// Most bytes a session's checkpoint store may hold; at the cap no more
/// checkpoints are taken (stated once).
pub const STORE_MAX_BYTES: u64 = 1024 * 1024 * 1024;

/// Name of the store's directory inside the session's directory.
pub const STORE_DIR_NAME: &str = "checkpoints";

/// When a checkpoint was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Before the prompt's first writing call.
    Before,
    /// When the prompt ended (what orbit left; later differences are
    /// someone else's).
    After,
    /// Right before a rewind (what `orbit rewind --undo` goes back to).
    Rewind,
}

/// One checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Sequence number in the store, from 1.
    pub id: u32,
    /// The session's prompt it belongs to, from 1 (0 for a rewind's).
    pub prompt: u32,
    /// When it was taken.
    pub kind: Kind,
    /// The snapshot: a git tree id, or `plain:<n>`.
    pub snapshot: String,
    /// When it was taken, in milliseconds since the Unix epoch.
    pub taken_at_ms: u64,
    /// How long the snapshot took, in milliseconds.
    pub elapsed_ms: u64,
    /// Paths the prompt's writing calls changed (the before/after probe).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
    /// Paths the prompt wrote that no checkpoint can bring back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_restorable: Vec<NotRestorable>,
    /// A rewind's checkpoint: the snapshot it restored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored_to: Option<String>,
    /// A conversation rewind removed this prompt; the fork file keeping it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired: Option<String>,
}

/// `manifest.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Manifest {
    /// Every checkpoint, oldest first.
    #[serde(default)]
    pub checkpoints: Vec<Checkpoint>,
    /// Bytes the store holds (objects written by this store).
    #[serde(default)]
    pub stored_bytes: u64,
    /// Why checkpoints stopped, once they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off: Option<String>,
}

/// A session's checkpoint store.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    root: PathBuf,
    git: Option<GitRepo>,
    /// The manifest as last read or written.
    pub manifest: Manifest,
    stamps: Option<Stamps>,
}

impl Store {
    /// The store of session `session_id` of the project at `root` (no
    /// snapshot is taken; `git rev-parse` runs once).
    pub fn open(data_dir: &Path, root: &Path, session_id: &str) -> Self {
        let dir =
            orbit_session::paths::session_dir(data_dir, root, session_id).join(STORE_DIR_NAME);
        let manifest = std::fs::read(dir.join("manifest.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        Self {
            git: GitRepo::discover(root),
            dir,
            root: root.to_path_buf(),
            manifest,
            stamps: None,
        }
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The project directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether the project is in a git work tree.
    pub fn is_git(&self) -> bool {
        self.git.is_some()
    }

    /// Snapshots the project now, without recording a checkpoint: the
    /// snapshot id, what it holds, the files it could not keep and how
    /// long it took (ms).
    pub fn snapshot(&mut self) -> Result<Snapshot, CheckpointError> {
        if let Some(off) = &self.manifest.off {
            return Err(CheckpointError::Off(off.clone()));
        }
        let started = Instant::now();
        std::fs::create_dir_all(&self.dir).map_err(CheckpointError::io(&self.dir))?;
        let (id, state, not_restorable) = match &self.git {
            Some(git) => {
                let before = dir_bytes(&self.dir.join("objects"));
                let (tree, state) = git.snapshot(&self.dir)?;
                let after = dir_bytes(&self.dir.join("objects"));
                self.manifest.stored_bytes += after.saturating_sub(before);
                (tree, state, Vec::new())
            }
            None => {
                let prev = match self.stamps.take() {
                    Some(stamps) => stamps,
                    None => read_json(&self.dir.join("stamps.json")).unwrap_or_default(),
                };
                let snap = match plain::snapshot(&self.root, &self.dir, &prev) {
                    Ok(snap) => snap,
                    Err(CheckpointError::OverCap(line)) => {
                        self.turn_off(&line);
                        return Err(CheckpointError::Off(line));
                    }
                    Err(err) => return Err(err),
                };
                let seq = self.manifest.checkpoints.len() + 1;
                let id = format!("plain:{seq}-{}", now_ms());
                write_json(&self.state_path(&id), &snap.state)?;
                write_json(&self.dir.join("stamps.json"), &snap.stamps)?;
                self.manifest.stored_bytes += snap.added_bytes;
                self.stamps = Some(snap.stamps);
                (id, snap.state, snap.not_restorable)
            }
        };
        let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        if self.manifest.stored_bytes > STORE_MAX_BYTES {
            self.turn_off(&format!(
                "checkpoints stopped: this session's checkpoint store reached its cap of {} MiB ({})",
                STORE_MAX_BYTES >> 20,
                self.dir.display()
            ));
        }
        Ok(Snapshot {
            id,
            state,
            not_restorable,
            elapsed_ms,
        })
    }

    /// Records a checkpoint of `snapshot` and saves the manifest.
    pub fn record(
        &mut self,
        prompt: u32,
        kind: Kind,
        snapshot: &Snapshot,
    ) -> Result<&Checkpoint, CheckpointError> {
        let id = u32::try_from(self.manifest.checkpoints.len() + 1).unwrap_or(u32::MAX);
        self.manifest.checkpoints.push(Checkpoint {
            id,
            prompt,
            kind,
            snapshot: snapshot.id.clone(),
            taken_at_ms: now_ms(),
            elapsed_ms: snapshot.elapsed_ms,
            changed: Vec::new(),
            not_restorable: snapshot.not_restorable.clone(),
            restored_to: None,
            retired: None,
        });
        self.save()?;
        let last = self.manifest.checkpoints.len() - 1;
        Ok(&self.manifest.checkpoints[last])
    }

    /// Writes the manifest.
    pub fn save(&self) -> Result<(), CheckpointError> {
        write_json(&self.dir.join("manifest.json"), &self.manifest)
    }

    /// What snapshot `id` holds.
    pub fn state(&self, id: &str) -> Result<State, CheckpointError> {
        match &self.git {
            Some(git) if !id.starts_with("plain:") => git.state(&self.dir, id),
            _ => read_json(&self.state_path(id)).ok_or_else(|| {
                CheckpointError::Damaged(format!(
                    "snapshot {id} is missing from {}",
                    self.dir.display()
                ))
            }),
        }
    }

    /// The content of file `id` of a snapshot.
    pub fn read(&self, id: &str) -> Result<Vec<u8>, CheckpointError> {
        match &self.git {
            Some(git) => git.read_blob(&self.dir, id),
            None => plain::read_object(&self.dir, id),
        }
    }

    /// Which of `paths` (relative to the project) git ignores (none
    /// outside git).
    pub fn ignored(&self, paths: &[String]) -> Vec<String> {
        self.git
            .as_ref()
            .map_or_else(Vec::new, |git| git.ignored(&self.dir, paths))
    }

    fn state_path(&self, id: &str) -> PathBuf {
        let name = crate::safe_name(id.trim_start_matches("plain:"));
        self.dir.join("states").join(format!("{name}.json"))
    }

    fn turn_off(&mut self, line: &str) {
        tracing::warn!("{line}");
        self.manifest.off = Some(line.to_string());
        let _ = self.save();
    }
}

/// A snapshot of the project.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Its id in the store.
    pub id: String,
    /// What it holds.
    pub state: State,
    /// Files it could not keep.
    pub not_restorable: Vec<NotRestorable>,
    /// How long it took, in milliseconds.
    pub elapsed_ms: u64,
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
