//! The project's file list for `@path` completion.
//!
//! Data flow: the first `@` the user types starts building a [`FileIndex`]
//! on a background thread ([`Files`]; the popup shows "indexing files…"
//! meanwhile and keys stay responsive; the thread calls the UI's
//! [`IndexWaker`] when done) by walking the project root with the `ignore` crate (`.gitignore`, `.ignore` and git
//! excludes honoured, with or without a git repository; `.git` skipped),
//! stopping at [`FILE_INDEX_CAP`] files. The paths are kept sorted with a
//! lowercase copy in one buffer, and each query is ranked with [`crate::fuzzy`]. A query
//! that extends the previous one only re-scores the previous hits, so typing
//! narrows the list without rescanning the whole tree.

use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc;

use crate::fuzzy;

/// Called from the indexing thread when the file index is ready, so the UI
/// can redraw the popup (e.g. by waking its event loop).
#[derive(Clone)]
pub struct IndexWaker(pub Arc<dyn Fn() + Send + Sync>);

impl std::fmt::Debug for IndexWaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IndexWaker")
    }
}

/// The project's file index: not asked for yet, being built on a thread,
/// or ready.
#[derive(Debug, Default)]
pub(crate) enum Files {
    #[default]
    None,
    Building(mpsc::Receiver<FileIndex>),
    Ready(FileIndex),
}

impl Files {
    /// Takes a finished index from the thread; true when it just arrived.
    pub(crate) fn poll(&mut self) -> bool {
        let Files::Building(rx) = self else {
            return false;
        };
        match rx.try_recv() {
            Ok(index) => *self = Files::Ready(index),
            // The thread ended without sending (it cannot panic past its
            // catch_unwind, but a thread can still be torn down): no
            // completions rather than "indexing files…" forever.
            Err(mpsc::TryRecvError::Disconnected) => *self = Files::Ready(FileIndex::default()),
            Err(mpsc::TryRecvError::Empty) => return false,
        }
        true
    }

    /// The index when ready; starts building it (once) when not.
    pub(crate) fn get(
        &mut self,
        root: &Path,
        waker: Option<&IndexWaker>,
    ) -> Option<&mut FileIndex> {
        self.poll();
        if matches!(self, Files::None) {
            let (tx, rx) = mpsc::channel();
            let owned = root.to_path_buf();
            let waker = waker.cloned();
            let spawned = std::thread::Builder::new()
                .name("orbit-file-index".into())
                .spawn(move || {
                    // A walk that panics gives an empty index: the popup
                    // then says there are no matches, and the UI is woken.
                    let index =
                        std::panic::catch_unwind(|| FileIndex::build(&owned, FILE_INDEX_CAP))
                            .unwrap_or_default();
                    let _ = tx.send(index);
                    if let Some(IndexWaker(wake)) = waker {
                        wake();
                    }
                });
            *self = match spawned {
                Ok(_) => Files::Building(rx),
                // No thread: build here, as before.
                Err(_) => Files::Ready(FileIndex::build(root, FILE_INDEX_CAP)),
            };
        }
        match self {
            Files::Ready(index) => Some(index),
            _ => None,
        }
    }
}

/// The most files the index holds; larger trees are cut off.
pub(crate) const FILE_INDEX_CAP: usize = 50_000;

/// One indexed path.
#[derive(Debug, Clone)]
struct Entry {
    /// Relative to the project root, `/`-separated.
    path: String,
    /// Where `path` with ASCII letters lowercased sits in
    /// [`FileIndex::lower`].
    lower: std::ops::Range<usize>,
    /// Where the basename starts in `path`.
    base: usize,
}

/// The most narrowing steps remembered (one per query char typed).
const QUERY_STACK_MAX: usize = 64;

/// One remembered query: the entries it matched and its best paths.
#[derive(Debug)]
struct Level {
    query: String,
    hits: Vec<u32>,
    limit: usize,
    top: Vec<String>,
}

/// The project's files, relative to its root.
#[derive(Debug, Default)]
pub(crate) struct FileIndex {
    entries: Vec<Entry>,
    /// Every entry's lowercase path, back to back.
    lower: String,
    /// Queries typed so far, each extending the one below it: typing
    /// narrows the top level's hits, Backspace pops back to a level
    /// already computed.
    stack: Vec<Level>,
}

impl FileIndex {
    /// Walks `root` (at most `cap` files).
    pub fn build(root: &Path, cap: usize) -> Self {
        let walker = ignore::WalkBuilder::new(root)
            .hidden(false)
            .require_git(false)
            .filter_entry(|e| e.file_name() != ".git")
            .build();
        let mut entries: Vec<Entry> = walker
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .filter_map(|e| {
                let rel = e.path().strip_prefix(root).ok()?;
                let path = rel.to_str()?.replace('\\', "/");
                Some(Entry {
                    lower: 0..0,
                    base: fuzzy::basename_start(&path),
                    path,
                })
            })
            .take(cap)
            .collect();
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        // One buffer for all lowercase paths: scoring walks it in order.
        let mut lower = String::with_capacity(entries.iter().map(|e| e.path.len()).sum());
        for e in &mut entries {
            let start = lower.len();
            lower.push_str(&e.path.to_ascii_lowercase());
            e.lower = start..lower.len();
        }
        Self {
            entries,
            lower,
            stack: Vec::new(),
        }
    }

    /// The best `limit` paths for `query`, best first; ties go to the
    /// shorter, then the alphabetically first path.
    pub fn search(&mut self, query: &str, limit: usize) -> Vec<String> {
        let query = query.to_ascii_lowercase();
        while self
            .stack
            .last()
            .is_some_and(|l| !query.starts_with(&l.query))
        {
            self.stack.pop();
        }
        if let Some(level) = self.stack.last()
            && level.query == query
            && level.limit == limit
        {
            return level.top.clone();
        }
        let score = |i: u32| {
            let e = self.entries.get(i as usize)?;
            let lower = self.lower.as_bytes().get(e.lower.clone())?;
            let s = fuzzy::score_lower(query.as_bytes(), lower, e.base)?;
            Some(sort_key(s, e.path.len(), i))
        };
        let mut keys: Vec<u128> = match self.stack.last() {
            Some(level) => level.hits.iter().filter_map(|&i| score(i)).collect(),
            None => (0..u32::try_from(self.entries.len()).unwrap_or(u32::MAX))
                .filter_map(score)
                .collect(),
        };
        // Low 32 bits: the entry index; entries are sorted by path.
        let index = |k: u128| (k & u128::from(u32::MAX)) as usize;
        let mut hits: Vec<u32> = keys.iter().map(|&k| index(k) as u32).collect();
        hits.sort_unstable();
        if limit > 0 && keys.len() > limit {
            keys.select_nth_unstable(limit - 1);
            keys.truncate(limit);
        }
        keys.sort_unstable();
        let top: Vec<String> = keys
            .into_iter()
            .take(limit)
            .map(|k| self.entries[index(k)].path.clone())
            .collect();
        if self.stack.len() < QUERY_STACK_MAX {
            self.stack.push(Level {
                query,
                hits,
                limit,
                top: top.clone(),
            });
        }
        top
    }
}

/// Ascending order = best first: higher score, then shorter path, then
/// lower index (alphabetical, as entries are sorted).
fn sort_key(score: i32, len: usize, index: u32) -> u128 {
    let rank = u128::from((i64::from(i32::MAX) - i64::from(score)).unsigned_abs());
    let len = u128::from(u32::try_from(len).unwrap_or(u32::MAX));
    (rank << 64) | (len << 32) | u128::from(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_that_ends_without_an_index_leaves_an_empty_one_not_indexing_forever() {
        let (tx, rx) = mpsc::channel::<FileIndex>();
        let mut files = Files::Building(rx);
        assert!(!files.poll(), "nothing sent yet: still building");
        assert!(matches!(files, Files::Building(_)));
        drop(tx);
        assert!(files.poll());
        match &mut files {
            Files::Ready(index) => assert!(index.search("", 10).is_empty()),
            other => panic!("expected an empty index, got {other:?}"),
        }
    }
}
