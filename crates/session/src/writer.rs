//! [`TranscriptWriter`]: appends records to a transcript on a thread of its
//! own, and makes them durable (`fdatasync`) when asked.
//!
//! Data flow: [`TranscriptWriter::append`] encodes a record on the caller's
//! thread and sends the bytes over a channel; the writer thread (started on
//! the first append, so a run that never records costs nothing) opens the
//! file, writes every batch it finds as one `write` followed by one
//! `fdatasync` (group commit), and answers
//! [`TranscriptWriter::sync`] requests after one `fdatasync` covering
//! everything sent before them; [`TranscriptWriter::written`] requests as
//! soon as the bytes are in the file (a crash of the process cannot lose
//! them), the `fdatasync` following at once without the caller waiting.
//! The caller only blocks where it must: an engine awaits `sync` right
//! before each model request (`written` before the first request of a
//! prompt, which adds nothing but the prompt), while tools, streaming and
//! encoding overlap the writes.
//!
//! Opening: a new transcript is created `0o600` with `create_new` (an
//! existing session id is never overwritten) and its directory is synced
//! with the first `fdatasync` so the new name is durable too; an existing one is first cut back to
//! its last complete record (a torn tail from a crash is dropped, see
//! [`crate::load`]). The first I/O error is kept; every later `sync`
//! reports it and nothing more is written.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use crate::SessionError;
use crate::record::{Record, encode};

/// How the file is opened when the thread starts.
#[derive(Debug, Clone)]
enum OpenMode {
    /// A new transcript; fails if the file exists.
    Create,
    /// An existing transcript: cut to `valid_len` bytes, then append (after
    /// a newline when the last kept record lacks one).
    Append { valid_len: u64, needs_newline: bool },
}

type Ack = oneshot::Sender<Result<(), String>>;

enum Command {
    Write(Vec<u8>),
    /// Answer once everything before is written (in the page cache: it
    /// survives a crash of the process); the sync follows at once.
    Written(Ack),
    /// Answer once everything before is synced to disk.
    Sync(Ack),
}

/// Appends records to one transcript file; see the module docs.
#[derive(Debug)]
pub struct TranscriptWriter {
    path: PathBuf,
    mode: OpenMode,
    tx: Option<Sender<Command>>,
    /// The first I/O error of the thread (or of starting it).
    error: Arc<Mutex<Option<String>>>,
    /// Records sent since the last `sync`.
    dirty: bool,
}

impl TranscriptWriter {
    /// A writer for a new transcript at `path` (created on the first append).
    pub fn create(path: PathBuf) -> Self {
        Self::new(path, OpenMode::Create)
    }

    /// A writer appending to the existing transcript at `path` after its
    /// first `valid_len` bytes (what [`crate::load`] found intact).
    pub fn append_existing(path: PathBuf, valid_len: u64, needs_newline: bool) -> Self {
        Self::new(
            path,
            OpenMode::Append {
                valid_len,
                needs_newline,
            },
        )
    }

    fn new(path: PathBuf, mode: OpenMode) -> Self {
        Self {
            path,
            mode,
            tx: None,
            error: Arc::new(Mutex::new(None)),
            dirty: false,
        }
    }

    /// The transcript's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Sends `record` to the writer thread (starting it on first use).
    /// Never blocks on I/O; errors surface at the next [`Self::sync`].
    pub fn append(&mut self, record: &Record) {
        let bytes = match encode(record) {
            Ok(bytes) => bytes,
            Err(err) => {
                self.fail(format!("cannot encode a transcript record: {err}"));
                return;
            }
        };
        if self.tx.is_none() {
            self.start();
        }
        if let Some(tx) = &self.tx
            && tx.send(Command::Write(bytes)).is_ok()
        {
            self.dirty = true;
        }
    }

    /// Resolves once every record appended so far is written and synced to
    /// disk; `Err` if any write failed (the first error, every time).
    pub fn sync(&mut self) -> impl Future<Output = Result<(), SessionError>> + use<> {
        self.wait(Command::Sync)
    }

    /// Resolves once every record appended so far is written to the file
    /// (a crash of this process can no longer lose it); the writer syncs it
    /// to disk right after, without the caller waiting.
    pub fn written(&mut self) -> impl Future<Output = Result<(), SessionError>> + use<> {
        self.wait(Command::Written)
    }

    fn wait(
        &mut self,
        command: fn(Ack) -> Command,
    ) -> impl Future<Output = Result<(), SessionError>> + use<> {
        let path = self.path.clone();
        let known = self.error_text();
        let waiter = match (&self.tx, self.dirty) {
            (Some(tx), true) => {
                let (ack, wait) = oneshot::channel();
                tx.send(command(ack)).ok().map(|()| wait)
            }
            _ => None,
        };
        self.dirty = false;
        let error = Arc::clone(&self.error);
        async move {
            let outcome = match waiter {
                Some(wait) => match wait.await {
                    Ok(outcome) => outcome,
                    Err(_) => Err(current_error(&error)
                        .unwrap_or_else(|| "the transcript writer stopped".into())),
                },
                None => known.map_or(Ok(()), Err),
            };
            outcome.map_err(|reason| SessionError::Write { path, reason })
        }
    }

    fn error_text(&self) -> Option<String> {
        current_error(&self.error)
    }

    fn fail(&self, reason: String) {
        record_error(&self.error, reason);
    }

    fn start(&mut self) {
        let (tx, rx) = channel();
        let path = self.path.clone();
        let mode = self.mode.clone();
        let error = Arc::clone(&self.error);
        let spawned = std::thread::Builder::new()
            .name("orbit-transcript".into())
            .spawn(move || run_writer(&path, mode, &rx, &error));
        match spawned {
            Ok(_) => self.tx = Some(tx),
            Err(err) => self.fail(format!("cannot start the transcript writer: {err}")),
        }
    }
}

fn current_error(error: &Mutex<Option<String>>) -> Option<String> {
    match error.lock() {
        Ok(e) => e.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    }
}

fn record_error(error: &Mutex<Option<String>>, reason: String) {
    let mut slot = match error.lock() {
        Ok(e) => e,
        Err(poisoned) => poisoned.into_inner(),
    };
    if slot.is_none() {
        *slot = Some(reason);
    }
}

/// The writer thread: open, then write batches and answer syncs until every
/// sender is gone (then a last sync).
fn run_writer(path: &Path, mode: OpenMode, rx: &Receiver<Command>, error: &Mutex<Option<String>>) {
    let mut file = match open(path, &mode) {
        Ok(file) => Some(file),
        Err(err) => {
            record_error(error, format!("cannot open: {err}"));
            None
        }
    };
    // A new file's name is made durable with the first sync.
    let mut new_dir =
        matches!(mode, OpenMode::Create).then(|| path.parent().map(Path::to_path_buf));
    let mut batch = Vec::new();
    let mut acks = Vec::new();
    let mut written_acks = Vec::new();
    let mut unsynced = false;
    loop {
        let Ok(first) = rx.recv() else {
            if unsynced && let Some(f) = &file {
                let _ = f.sync_data();
            }
            return;
        };
        let mut next = Some(first);
        while let Some(command) = next {
            match command {
                Command::Write(bytes) => batch.extend_from_slice(&bytes),
                Command::Written(ack) => written_acks.push(ack),
                Command::Sync(ack) => acks.push(ack),
            }
            next = rx.try_recv().ok();
        }
        if let Some(f) = file.as_mut()
            && !batch.is_empty()
        {
            match f.write_all(&batch) {
                Ok(()) => unsynced = true,
                Err(err) => {
                    record_error(error, format!("cannot write: {err}"));
                    file = None;
                }
            }
        }
        batch.clear();
        for ack in written_acks.drain(..) {
            let _ = ack.send(current_error(error).map_or(Ok(()), Err));
        }
        // Every batch is synced as soon as it is written (group commit):
        // a `sync` request mostly finds nothing left to wait for.
        if unsynced && let Some(f) = &file {
            let synced = f.sync_data().and_then(|()| match new_dir.take().flatten() {
                Some(dir) => File::open(dir)?.sync_all(),
                None => Ok(()),
            });
            match synced {
                Ok(()) => unsynced = false,
                Err(err) => {
                    record_error(error, format!("cannot sync: {err}"));
                    file = None;
                }
            }
        }
        let outcome = current_error(error).map_or(Ok(()), Err);
        for ack in acks.drain(..) {
            let _ = ack.send(outcome.clone());
        }
    }
}

fn open(path: &Path, mode: &OpenMode) -> std::io::Result<File> {
    match mode {
        OpenMode::Create => {
            let dir = path.parent().unwrap_or(Path::new("."));
            std::fs::create_dir_all(dir)?;
            let mut options = OpenOptions::new();
            options.append(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.mode(0o600);
            }
            options.open(path)
        }
        OpenMode::Append {
            valid_len,
            needs_newline,
        } => {
            let mut file = OpenOptions::new().write(true).open(path)?;
            if file.metadata()?.len() != *valid_len {
                file.set_len(*valid_len)?;
            }
            file.seek(SeekFrom::End(0))?;
            if *needs_newline {
                file.write_all(b"\n")?;
            }
            Ok(file)
        }
    }
}
