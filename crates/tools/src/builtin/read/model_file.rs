//! Opening a file the model named, for Read, Edit and Write (the content an
//! overwrite replaces): the model chooses the path, so it may name a FIFO
//! (a plain open blocks until a writer comes), a device (`/dev/zero` never
//! ends, `/dev/stdin` is orbit's own input) or a huge file.
//!
//! Flow: `stat` the path (links followed: the model may name a link, and
//! a missing path is an answer of its own) → refuse a directory or any
//! special file before opening it (opening a device can have effects) →
//! [`orbit_untrusted::open_untrusted`] opens it non-blocking and checks the
//! type again on the open file, so a FIFO swapped in after the `stat` is
//! refused instead of blocking → [`read_capped`] reads at most a cap, never
//! the whole file first. Every refusal is a [`Refused`], which the tools
//! turn into their own texts (`Cannot read X: it is a FIFO, not a regular
//! file`).

use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::Path;

use orbit_untrusted::{ReadOpts, UntrustedError, check_regular, open_untrusted};

/// Why a model-named path was not opened or read.
#[derive(Debug)]
pub(crate) enum Refused {
    /// Nothing at the path.
    Missing,
    /// A directory.
    Directory,
    /// A FIFO, device or socket: `kind` names it (`a FIFO`, …).
    Special(&'static str),
    /// Over the cap: the file's size in bytes (at least the cap + 1).
    TooLarge(u64),
    /// Any other failure (permissions, I/O).
    Io(io::Error),
}

impl From<UntrustedError> for Refused {
    fn from(err: UntrustedError) -> Self {
        match err {
            UntrustedError::NotFound => Self::Missing,
            UntrustedError::Directory => Self::Directory,
            UntrustedError::NotRegular { kind } => Self::Special(kind),
            UntrustedError::TooLarge { size, .. } => Self::TooLarge(size),
            UntrustedError::Io(e) => Self::Io(e),
            other => Self::Io(io::Error::other(other)),
        }
    }
}

/// What a `meta` that is not a regular file is (`a FIFO`, `a character
/// device`, …), as [`Refused::Special`] names it.
pub(crate) fn special_kind(meta: &Metadata) -> &'static str {
    match check_regular(meta) {
        Err(UntrustedError::NotRegular { kind }) => kind,
        _ => "a special file",
    }
}

/// `path` opened for reading, a regular file, with its `fstat`.
pub(crate) fn open(path: &Path) -> Result<(File, Metadata), Refused> {
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(Refused::Missing),
        Err(e) => return Err(Refused::Io(e)),
    };
    check_regular(&meta)?;
    // No containment and no deny predicate here: the permission layer
    // decided about the path before the tool runs.
    let (file, meta, _) = open_untrusted(path, &ReadOpts::user_file(0))?;
    Ok((file, meta))
}

/// The whole of a regular file at `path` when it holds at most `cap_bytes`,
/// with its `fstat`; a larger file is [`Refused::TooLarge`] without being
/// read (and a file that grows past the cap while read is cut there).
pub(crate) fn read_capped(path: &Path, cap_bytes: u64) -> Result<(Vec<u8>, Metadata), Refused> {
    let (file, meta) = open(path)?;
    if meta.len() > cap_bytes {
        return Err(Refused::TooLarge(meta.len()));
    }
    let bytes = read_to_cap(file, cap_bytes).map_err(Refused::Io)?;
    let read = bytes.len() as u64;
    if read > cap_bytes {
        return Err(Refused::TooLarge(read.max(meta.len())));
    }
    Ok((bytes, meta))
}

/// At most `cap_bytes + 1` bytes of `file` from where it stands (one more
/// than the cap tells the caller it went on).
pub(crate) fn read_to_cap(file: impl Read, cap_bytes: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(cap_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_told_apart_before_anything_is_opened() {
        let (dir, fifo) = orbit_test_support::files::temp_fifo();
        assert!(matches!(open(&fifo), Err(Refused::Special("a FIFO"))));
        assert!(matches!(
            open(Path::new("/dev/zero")),
            Err(Refused::Special("a character device"))
        ));
        assert!(matches!(open(dir.path()), Err(Refused::Directory)));
        assert!(matches!(
            open(&dir.path().join("no")),
            Err(Refused::Missing)
        ));
        let file = dir.path().join("f");
        fs::write(&file, "12345").unwrap();
        assert_eq!(read_capped(&file, 5).unwrap().0, b"12345");
        assert!(matches!(read_capped(&file, 4), Err(Refused::TooLarge(5))));
    }
}
