//! One safe way to read a file orbit did not write itself: a project's
//! instruction files (`CLAUDE.md`, `AGENTS.md`), its settings files,
//! `.mcp.json`, custom command files, and files named on the command line.
//!
//! A cloned repository controls those paths, so a plain read is an attack
//! surface: a FIFO (or `/dev/stdin`) blocks forever, `/dev/zero` fills
//! memory, and a link to `~/.ssh/id_rsa` puts a key where it is sent or
//! shown. [`read_untrusted`] instead:
//!
//! 1. resolves the path canonically (every link, in every component) and
//!    refuses a target outside [`ReadOpts::project_root`] unless
//!    [`ReadOpts::follow_links_out`] (a trusted folder) — a `CLAUDE.md` →
//!    `AGENTS.md` link inside the project keeps working;
//! 2. asks [`ReadOpts::deny`] about the final target (the Read deny rules,
//!    the sandbox's deny list) and refuses what it denies;
//! 3. refuses anything but a regular file before opening it, then opens the
//!    target with `O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC`, checks the type
//!    again with `fstat` and the opened file's real path (`/proc/self/fd`)
//!    again against 1 and 2, so a swap between the checks and the open
//!    gains nothing;
//! 4. reads at most [`ReadOpts::cap_bytes`] (+1 to know it was cut), never
//!    the whole file first; a file over the cap is cut or refused
//!    ([`ReadOpts::refuse_over_cap`]).
//!
//! Every refusal is an [`UntrustedError`] whose `Display` completes the
//! line `orbit: warning: skipped CLAUDE.md: …` (the callers print that one
//! line). Files the user names on the command line use
//! [`ReadOpts::user_named`]: links are followed and a pipe (`<(…)`) is
//! read, still capped.

#![deny(missing_docs)]

use std::fs::{File, Metadata, OpenOptions};
use std::io::{ErrorKind, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// A cap for settings-like files (settings JSON, `.mcp.json`, a schema):
/// far above any real one, far below what hurts.
pub const CONFIG_FILE_MAX_BYTES: usize = 1024 * 1024;

/// How [`read_untrusted`] reads one file.
#[derive(Clone, Copy)]
pub struct ReadOpts<'a> {
    /// Most bytes kept; the read stops one byte past it.
    pub cap_bytes: usize,
    /// A file larger than the cap is an error ([`UntrustedError::TooLarge`])
    /// instead of being cut (for JSON, which a cut breaks).
    pub refuse_over_cap: bool,
    /// The project the path belongs to: a target outside it (reached
    /// through a link) is refused unless [`Self::follow_links_out`].
    /// `None`: no containment check.
    pub project_root: Option<&'a Path>,
    /// Follow links out of [`Self::project_root`] (a trusted folder).
    pub follow_links_out: bool,
    /// Final targets (canonical paths) that may not be read.
    pub deny: Option<&'a dyn Fn(&Path) -> bool>,
    /// Accept a FIFO or pipe and read it blocking (a file the user named,
    /// such as `--settings <(…)`); never for a project's files.
    pub allow_fifo: bool,
}

impl<'a> ReadOpts<'a> {
    /// A file of the project at `root`: links must stay inside it, only a
    /// regular file, cut at `cap_bytes`.
    pub fn in_project(root: &'a Path, cap_bytes: usize) -> Self {
        Self {
            cap_bytes,
            refuse_over_cap: false,
            project_root: Some(root),
            follow_links_out: false,
            deny: None,
            allow_fifo: false,
        }
    }

    /// A file outside any project that orbit's user controls (their home's
    /// settings, a `/etc` policy file): links followed, only a regular
    /// file, cut at `cap_bytes`.
    pub fn user_file(cap_bytes: usize) -> Self {
        Self {
            project_root: None,
            ..Self::in_project(Path::new("/"), cap_bytes)
        }
    }

    /// A file the user named on the command line: as [`Self::user_file`],
    /// and a FIFO or pipe (`<(…)`) is read too.
    pub fn user_named(cap_bytes: usize) -> Self {
        Self {
            allow_fifo: true,
            ..Self::user_file(cap_bytes)
        }
    }

    /// With links out of the project followed when `trusted`.
    pub fn follow_links_out(self, trusted: bool) -> Self {
        Self {
            follow_links_out: trusted,
            ..self
        }
    }

    /// With `deny` asked about the final target.
    pub fn deny(self, deny: &'a dyn Fn(&Path) -> bool) -> Self {
        Self {
            deny: Some(deny),
            ..self
        }
    }

    /// With a file over the cap refused rather than cut.
    pub fn refuse_over_cap(self) -> Self {
        Self {
            refuse_over_cap: true,
            ..self
        }
    }
}

/// What [`read_untrusted`] read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UntrustedFile {
    /// At most the cap's bytes, from the start of the file.
    pub bytes: Vec<u8>,
    /// Whether the file went on past [`Self::bytes`].
    pub truncated: bool,
    /// The file's size by `fstat` (0 for a pipe or a `/proc` file).
    pub size: u64,
    /// The file that was read (canonical when links were resolved).
    pub target: PathBuf,
}

impl UntrustedFile {
    /// The bytes as text: invalid UTF-8 replaced, and a character cut by
    /// the cap dropped.
    pub fn text(&self) -> String {
        let mut bytes = self.bytes.as_slice();
        if self.truncated
            && let Err(err) = std::str::from_utf8(bytes)
            && err.error_len().is_none()
        {
            bytes = &bytes[..err.valid_up_to()];
        }
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// Why a file was not read. `Display` completes `skipped NAME: …`.
#[derive(Debug, thiserror::Error)]
pub enum UntrustedError {
    /// Neither the file nor a link's target exists.
    #[error("it does not exist")]
    NotFound,
    /// A FIFO, a device, a socket or a directory.
    #[error("{kind}, not a regular file")]
    NotRegular {
        /// "a FIFO", "a character device", …
        kind: &'static str,
    },
    /// A directory (a broken layout rather than a trap: callers that fail
    /// on an unreadable file may fail on this too).
    #[error("a directory, not a regular file")]
    Directory,
    /// A link to a target outside the project, in an untrusted folder.
    #[error(
        "a link to {}, outside the project (links out of a project are followed only in a trusted folder)",
        target.display()
    )]
    LinkOut {
        /// Where the link leads.
        target: PathBuf,
    },
    /// The target is covered by a Read deny rule or the sandbox's deny list.
    #[error("{} is denied for reading", target.display())]
    Denied {
        /// The denied target.
        target: PathBuf,
    },
    /// Larger than the cap, with [`ReadOpts::refuse_over_cap`].
    #[error("{} bytes, over the {} cap", size, human_bytes(*cap))]
    TooLarge {
        /// The file's size.
        size: u64,
        /// The cap.
        cap: usize,
    },
    /// Any other failure to open or read.
    #[error("{0}")]
    Io(std::io::Error),
}

impl UntrustedError {
    /// Whether the file is simply absent (callers skip it silently).
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound)
    }

    /// Whether the file was refused as a possible trap (a FIFO, a device,
    /// a link out, a denied target, over the cap) rather than missing,
    /// a directory or unreadable: callers skip such a file with one
    /// warning where they would fail on a broken one.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            Self::NotRegular { .. }
                | Self::LinkOut { .. }
                | Self::Denied { .. }
                | Self::TooLarge { .. }
        )
    }
}

impl From<std::io::Error> for UntrustedError {
    fn from(err: std::io::Error) -> Self {
        match err.kind() {
            ErrorKind::NotFound | ErrorKind::NotADirectory => Self::NotFound,
            _ => Self::Io(err),
        }
    }
}

/// `1 MiB`, `40 KiB`, or `N bytes`.
fn human_bytes(n: usize) -> String {
    const KIB: usize = 1024;
    match n {
        n if n >= KIB * KIB && n % (KIB * KIB) == 0 => format!("{} MiB", n / (KIB * KIB)),
        n if n >= KIB && n % KIB == 0 => format!("{} KiB", n / KIB),
        n => format!("{n} bytes"),
    }
}

/// Reads `path` as `opts` says (see the crate docs for every check).
pub fn read_untrusted(path: &Path, opts: &ReadOpts<'_>) -> Result<UntrustedFile, UntrustedError> {
    let (file, meta, target) = open_untrusted(path, opts)?;
    let size = meta.len();
    if opts.refuse_over_cap && size > opts.cap_bytes as u64 {
        return Err(UntrustedError::TooLarge {
            size,
            cap: opts.cap_bytes,
        });
    }
    let limit = (opts.cap_bytes as u64).saturating_add(1);
    let capacity = usize::try_from(size.min(limit)).unwrap_or(opts.cap_bytes);
    let mut bytes = Vec::with_capacity(capacity);
    file.take(limit).read_to_end(&mut bytes)?;
    let truncated = bytes.len() > opts.cap_bytes;
    if truncated {
        if opts.refuse_over_cap {
            return Err(UntrustedError::TooLarge {
                size: size.max(bytes.len() as u64),
                cap: opts.cap_bytes,
            });
        }
        bytes.truncate(opts.cap_bytes);
    }
    Ok(UntrustedFile {
        bytes,
        truncated,
        size,
        target,
    })
}

/// Opens `path` read-only after every check of [`read_untrusted`] but the
/// cap: the open file, its `fstat` and the path that was opened (for a
/// caller that reads only part of it, such as the last byte).
pub fn open_untrusted(
    path: &Path,
    opts: &ReadOpts<'_>,
) -> Result<(File, Metadata, PathBuf), UntrustedError> {
    let checked = opts.project_root.is_some() || opts.deny.is_some();
    let target = if checked {
        let target = path.canonicalize()?;
        check_target(&target, opts)?;
        // Refuse a special file before opening it (opening a device can
        // have effects of its own); checked again after the open.
        check_type(&std::fs::metadata(&target)?, opts)?;
        target
    } else {
        path.to_path_buf()
    };
    let mut flags = libc::O_CLOEXEC;
    if checked {
        flags |= libc::O_NOFOLLOW;
    }
    if !opts.allow_fifo {
        flags |= libc::O_NONBLOCK;
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(&target)
        .map_err(|err| match err.raw_os_error() {
            Some(libc::ELOOP) => UntrustedError::NotRegular {
                kind: "a link that changed while it was opened",
            },
            _ => UntrustedError::from(err),
        })?;
    let meta = file.metadata()?;
    check_type(&meta, opts)?;
    if checked {
        // What was really opened, whatever happened to the path meanwhile.
        let fd_link = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        if let Ok(opened) = std::fs::read_link(fd_link)
            && opened != target
        {
            check_target(&opened, opts)?;
        }
    }
    Ok((file, meta, target))
}

/// Whether `meta` (a `stat` taken before deciding to open) is a regular
/// file, with the refusal [`read_untrusted`] gives for anything else: for
/// callers that must tell a missing path from a special one first (the
/// tools a model drives), then open with [`open_untrusted`].
pub fn check_regular(meta: &Metadata) -> Result<(), UntrustedError> {
    check_type(meta, &ReadOpts::user_file(0))
}

/// Containment in the project and the deny predicate, for a canonical
/// target.
fn check_target(target: &Path, opts: &ReadOpts<'_>) -> Result<(), UntrustedError> {
    if let Some(root) = opts.project_root
        && !opts.follow_links_out
    {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        if !target.starts_with(&root) {
            return Err(UntrustedError::LinkOut {
                target: target.to_path_buf(),
            });
        }
    }
    if let Some(deny) = opts.deny
        && deny(target)
    {
        return Err(UntrustedError::Denied {
            target: target.to_path_buf(),
        });
    }
    Ok(())
}

/// A regular file (or, with [`ReadOpts::allow_fifo`], a FIFO) only.
fn check_type(meta: &Metadata, opts: &ReadOpts<'_>) -> Result<(), UntrustedError> {
    let kind = meta.file_type();
    if kind.is_file() || (opts.allow_fifo && kind.is_fifo()) {
        return Ok(());
    }
    let kind = if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_dir() {
        return Err(UntrustedError::Directory);
    } else {
        "a special file"
    };
    Err(UntrustedError::NotRegular { kind })
}
