//! Files a test sets up in its own temp dir before it hands the path to the
//! code under test: plain ones anywhere below a root ([`put`]), and hostile
//! ones for code that must not block on or read whole what a model or a
//! repository names: a FIFO ([`mkfifo`], or [`temp_fifo`] in a temp dir of
//! its own) and a large text file that takes no disk ([`large_text_file`]).

use std::path::{Path, PathBuf};

/// Writes `text` at `root/rel`, making the folders on the way; the path.
/// Panics on an I/O error.
pub fn put(root: &Path, rel: &str, text: &str) -> PathBuf {
    let path = root.join(rel);
    let made = match path.parent() {
        Some(dir) => std::fs::create_dir_all(dir),
        None => Ok(()),
    }
    .and_then(|()| std::fs::write(&path, text));
    assert!(made.is_ok(), "write {}: {made:?}", path.display());
    path
}

/// Makes a FIFO at `path` (the `mkfifo` program); panics when it cannot.
pub fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(
        matches!(&made, Ok(status) if status.success()),
        "mkfifo {}: {made:?}",
        path.display()
    );
}

/// A FIFO `pipe` in a new temp dir (removed when the returned dir drops).
pub fn temp_fifo() -> (tempfile::TempDir, PathBuf) {
    let dir = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => panic!("cannot make a temp dir: {e}"),
    };
    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    (dir, fifo)
}

/// How many `text line\n` lines [`large_text_file`] writes before its
/// sparse tail (16,400 bytes).
const TEXT_HEAD_LINES: usize = 1640;

/// A file of `len_bytes` bytes at `path` that reads as text: 16 KiB of
/// lines, then a sparse tail of zeros that uses no disk. Panics on an I/O
/// error.
pub fn large_text_file(path: &Path, len_bytes: u64) {
    let made = std::fs::write(path, "text line\n".repeat(TEXT_HEAD_LINES)).and_then(|()| {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)?
            .set_len(len_bytes)
    });
    assert!(made.is_ok(), "large file {}: {made:?}", path.display());
}
