//! The project's file list for `@path` completion.
//!
//! Data flow: the first `@` the user types builds a [`FileIndex`] by walking
//! the project root with the `ignore` crate (`.gitignore`, `.ignore` and git
//! excludes honoured, with or without a git repository; `.git` skipped),
//! stopping at [`FILE_INDEX_CAP`] files. The paths are kept sorted with a
//! lowercase copy, and each query is ranked with [`crate::fuzzy`]. A query
//! that extends the previous one only re-scores the previous hits, so typing
//! narrows the list without rescanning the whole tree.

use std::path::Path;

use crate::fuzzy;

/// The most files the index holds; larger trees are cut off.
pub(crate) const FILE_INDEX_CAP: usize = 50_000;

/// One indexed path.
#[derive(Debug, Clone)]
struct Entry {
    /// Relative to the project root, `/`-separated.
    path: String,
    /// `path` with ASCII letters lowercased.
    lower: String,
    /// Where the basename starts in `path`.
    base: usize,
}

/// The project's files, relative to its root.
#[derive(Debug, Default)]
pub(crate) struct FileIndex {
    entries: Vec<Entry>,
    /// The last query and the entries it matched, to narrow from.
    last_query: Option<String>,
    last_hits: Vec<u32>,
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
                    lower: path.to_ascii_lowercase(),
                    base: fuzzy::basename_start(&path),
                    path,
                })
            })
            .take(cap)
            .collect();
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        Self {
            entries,
            ..Self::default()
        }
    }

    /// The best `limit` paths for `query`, best first.
    pub fn search(&mut self, query: &str, limit: usize) -> Vec<String> {
        let query = query.to_ascii_lowercase();
        let narrowing = self
            .last_query
            .as_deref()
            .is_some_and(|last| query.starts_with(last));
        let pool: Vec<u32> = if narrowing {
            std::mem::take(&mut self.last_hits)
        } else {
            (0..u32::try_from(self.entries.len()).unwrap_or(u32::MAX)).collect()
        };
        let mut scored: Vec<(i32, u32)> = pool
            .into_iter()
            .filter_map(|i| {
                let e = self.entries.get(i as usize)?;
                fuzzy::score_lower(query.as_bytes(), e.lower.as_bytes(), e.base).map(|s| (s, i))
            })
            .collect();
        self.last_hits = scored.iter().map(|&(_, i)| i).collect();
        self.last_query = Some(query);
        let better = |a: &(i32, u32), b: &(i32, u32)| {
            let (pa, pb) = (&self.entries[a.1 as usize].path, &self.entries[b.1 as usize].path);
            b.0.cmp(&a.0)
                .then(pa.len().cmp(&pb.len()))
                .then(pa.cmp(pb))
        };
        if scored.len() > limit && limit > 0 {
            scored.select_nth_unstable_by(limit - 1, better);
            scored.truncate(limit);
        }
        scored.sort_by(better);
        scored
            .into_iter()
            .take(limit)
            .map(|(_, i)| self.entries[i as usize].path.clone())
            .collect()
    }
}
