//! The file-state cache behind read-before-write (T5): what each file looked
//! like when a tool last read or wrote it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

/// A file's observed state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileState {
    pub size: u64,
    pub mtime: Option<SystemTime>,
    /// sha256 of the content, hex.
    pub hash: String,
}

#[derive(Debug, Default)]
pub struct FileStateCache {
    entries: Mutex<HashMap<PathBuf, FileState>>,
}

impl FileStateCache {
    pub fn record(&self, path: &Path, state: FileState) {
        let mut g = match self.entries.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        g.insert(path.to_path_buf(), state);
    }

    pub fn get(&self, path: &Path) -> Option<FileState> {
        let g = match self.entries.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        g.get(path).cloned()
    }

    pub fn forget(&self, path: &Path) {
        let mut g = match self.entries.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        g.remove(path);
    }
}
