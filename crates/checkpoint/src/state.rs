//! [`State`]: what a snapshot says the working tree held — each
//! non-ignored file's path (relative to the project, `/`-separated), its
//! content id (a git blob id, or the SHA-256 of a plain copy) and its mode.
//! Both backends produce one; rewind compares them here, so the
//! conflict and restore rules are one code whatever the backend.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// A regular file's mode.
pub const MODE_FILE: u32 = 0o100_644;
/// An executable file's mode.
pub const MODE_EXEC: u32 = 0o100_755;
/// A symbolic link's mode (the content is the link's target).
pub const MODE_LINK: u32 = 0o120_000;

/// One file of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// The content's id in the store.
    pub id: String,
    /// [`MODE_FILE`], [`MODE_EXEC`] or [`MODE_LINK`].
    pub mode: u32,
}

/// Path (relative, `/`-separated) → file.
pub type State = BTreeMap<String, FileEntry>;

/// The paths whose entry differs between `a` and `b` (added, removed or
/// changed in either direction).
pub fn changed_paths(a: &State, b: &State) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (path, entry) in a {
        if b.get(path) != Some(entry) {
            out.insert(path.clone());
        }
    }
    for path in b.keys() {
        if !a.contains_key(path) {
            out.insert(path.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str) -> FileEntry {
        FileEntry {
            id: id.into(),
            mode: MODE_FILE,
        }
    }

    #[test]
    fn changed_paths_covers_added_removed_and_changed() {
        let a: State = [("a".into(), entry("1")), ("b".into(), entry("2"))].into();
        let b: State = [("b".into(), entry("3")), ("c".into(), entry("4"))].into();
        let got: Vec<_> = changed_paths(&a, &b).into_iter().collect();
        assert_eq!(got, ["a", "b", "c"]);
        assert!(changed_paths(&a, &a).is_empty());
    }
}
