//! Read of a directory: Claude Code answers only Node's `EISDIR` line, and
//! a small model then concludes the directory does not exist. orbit keeps
//! that line first and appends the directory's entries (a documented
//! improvement), so the next call can name a real file.
//!
//! Flow: the refused path → one level of `read_dir` (no file is opened),
//! entries a read deny rule covers left out → name-sorted, directories
//! marked with a trailing `/` → at most [`READ_DIR_MAX_ENTRIES`] lines, a
//! last line saying how many more there are.

use std::path::Path;

use orbit_tool::ReadFilter;
use orbit_tool::texts::tools as tools_texts;

/// Entries listed after the `EISDIR` line; the rest are counted.
pub(crate) const READ_DIR_MAX_ENTRIES: usize = 100;

/// The `EISDIR` line, then the directory's entries (bounded), or only the
/// line when the directory cannot be listed.
pub(crate) fn directory_text(path: &Path, hidden: Option<&ReadFilter>) -> String {
    let eisdir = tools_texts::is_a_directory("read", path);
    let Ok(entries) = std::fs::read_dir(path) else {
        return eisdir;
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| !hidden.is_some_and(|h| h.is_hidden(&e.path())))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            // Links followed: a link to a directory lists as a directory.
            if e.path().is_dir() {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect();
    names.sort();
    if names.is_empty() {
        return format!("{eisdir}\nIt is an empty directory.");
    }
    let total = names.len();
    let mut text = format!(
        "{eisdir}\nIt is a directory; Read one of its files instead. Its entries ({total}):"
    );
    for name in names.iter().take(READ_DIR_MAX_ENTRIES) {
        text.push('\n');
        text.push_str(name);
    }
    if total > READ_DIR_MAX_ENTRIES {
        text.push_str(&format!("\n… and {} more", total - READ_DIR_MAX_ENTRIES));
    }
    text
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn entries_follow_the_eisdir_line_sorted_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("b.txt"), "b").unwrap();
        std::fs::write(dir.path().join("a.txt"), "a").unwrap();
        let text = directory_text(dir.path(), None);
        let eisdir = tools_texts::is_a_directory("read", dir.path());
        assert_eq!(
            text,
            format!(
                "{eisdir}\nIt is a directory; Read one of its files instead. Its entries (3):\na.txt\nb.txt\nsub/"
            )
        );
        for i in 0..READ_DIR_MAX_ENTRIES + 5 {
            std::fs::write(dir.path().join(format!("f{i:03}")), "").unwrap();
        }
        let text = directory_text(dir.path(), None);
        assert_eq!(text.lines().count(), 2 + READ_DIR_MAX_ENTRIES + 1);
        assert!(text.ends_with("\n… and 8 more"), "{text}");
        let empty = tempfile::tempdir().unwrap();
        assert!(directory_text(empty.path(), None).ends_with("\nIt is an empty directory."));
    }
}
