//! The Read tool (T4): a text file as `N\tline` lines, an image as an image
//! block, with Claude Code's texts for missing files, directories, empty
//! files and offsets past the end.
//!
//! Facts: read-only, concurrency-safe, reads the resolved path. `validate`
//! refuses nothing (a missing file is an answer, not a refusal): the plan is
//! the path resolved against the cwd plus the window.
//!
//! Flow of `call`: open through `model_file` (missing, directory, a
//! FIFO or device refused without blocking; a directory answers with its
//! entries after the `EISDIR` line, see `directory`) → empty → sniff the first
//! bytes (`detect`: image or binary) → size guard for whole-file reads →
//! stream the line window (`lines`) → token guard → record the file's
//! state (T5) in `ctx.file_state`. Every read that shows
//! the model content (or tells it the file is empty or shorter than the
//! offset) records state; refusals do not. A partial read of a large file
//! records it without a hash, so any later change of size or mtime counts as
//! a modification. A text read reports its window to the embedder
//! ([`ToolDetail::Read`]: the lines without prefixes, the first line, the
//! file's line count).

mod detect;
mod directory;
mod image;
mod lines;
pub(crate) mod model_file;
mod notebook;
mod pdf;

use std::fs::{self, File};
use std::io::{Read, Seek};
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use orbit_tool::texts::tools::{self as tools_texts, read as texts};
use orbit_tool::{
    CallFacts, ReadDetail, ResultLimit, ToolDetail, ToolError, ToolInfo, ToolOutput, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::builtin::blocking::with_file_state;
use crate::builtin::paths::read_facts;
use crate::context::{CallContext, ToolUseContext};
use crate::file_state::{FileState, FileStateCache, state_key};
use model_file::Refused;

pub use lines::LINE_TRUNCATION_MARKER;

/// Lines returned when no `limit` is given.
pub(crate) const DEFAULT_READ_LINES: u64 = 2_000;
/// Largest file read whole (no offset/limit), in bytes.
pub(crate) const MAX_READ_FILE_BYTES: u64 = 256 * 1024;
/// Largest file whose lines a partial read counts for the embedder's
/// `total_lines` (the rest of the file is read once more, unformatted).
pub(crate) const READ_COUNT_LINES_MAX_BYTES: u64 = 64 * 1024 * 1024;
/// Buffer of [`count_lines`]' pass, in bytes.
const COUNT_BUF_BYTES: usize = 64 * 1024;
/// Largest result of one read, in estimated tokens (chars / 4).
pub(crate) const MAX_READ_TOKENS: usize = 25_000;
/// Largest image returned, in bytes (3.75 MiB): its base64 then stays
/// within the API's 5 MiB per-image limit.
pub const MAX_IMAGE_BYTES: u64 = 3 * 1024 * 1024 + 768 * 1024;

pub use orbit_tool::texts::tools::read::EMPTY_FILE_REMINDER;
/// Claude Code's formatFileSize as Read prints sizes: bytes, KB or MB with
/// at most one decimal (a trailing `.0` dropped).
pub use orbit_tool::texts::units::format_read_size as format_size;

// Input of Read (no doc comment: it would become a schema description).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadInput {
    /// Path of the file to read
    pub file_path: String,
    /// Line number to start from (1-based)
    pub offset: Option<u64>,
    /// Number of lines to read
    pub limit: Option<u64>,
    /// Page range for PDF files (e.g. "1-5", "3"); at most 20 pages per read
    pub pages: Option<String>,
}

/// The Read tool (stateless; register it with `orbit_tool::typed`).
#[derive(Debug, Default, Clone, Copy)]
pub struct ReadTool;

/// A read with its path resolved against the session cwd.
pub struct ReadRequest {
    path: PathBuf,
    cwd: PathBuf,
    offset: Option<u64>,
    limit: Option<u64>,
    pages: Option<pdf::PageRange>,
    media: orbit_tool::ModelMedia,
    view: orbit_tool::ReadView,
    /// Paths a read deny rule covers (left out of a directory's entries).
    hidden: Option<orbit_tool::ReadFilter>,
}

#[async_trait]
impl TypedTool for ReadTool {
    type Input = ReadInput;
    type Plan = ReadRequest;

    fn facts(&self, input: &ReadInput, ctx: &ToolUseContext) -> CallFacts {
        read_facts(ctx.resolve_path(&input.file_path), &input.file_path)
    }

    /// Nothing to refuse up front: every outcome of a read (a missing file
    /// included) is the tool's own answer, so the plan is the resolved path
    /// and window.
    async fn validate(
        &self,
        input: ReadInput,
        ctx: &ToolUseContext,
    ) -> Result<ReadRequest, ToolError> {
        let pages = match input.pages.as_deref() {
            Some(spec) => Some(pdf::parse_pages(spec).map_err(ToolError::RespondToModel)?),
            None => None,
        };
        Ok(ReadRequest {
            path: ctx.resolve_path(&input.file_path),
            cwd: ctx.cwd(),
            offset: input.offset,
            limit: input.limit,
            pages,
            media: ctx.model_media(),
            view: ctx.read_view(),
            hidden: ctx.read_filter(),
        })
    }

    async fn call(
        &self,
        request: ReadRequest,
        ctx: &ToolUseContext,
        _call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        with_file_state("Read", ctx, move |cache| read_file(&request, cache)).await
    }

    fn info(&self) -> ToolInfo<'_> {
        // Read bounds its own output (size and token guards), so it is never
        // persisted to disk: the model would only Read the copy again.
        ToolInfo::new("Read", texts::DESCRIPTION)
            .only_reads()
            .with_search_hint("read view open file contents lines image")
            .with_result_limit(ResultLimit::NeverPersist)
    }
}

/// The whole read, blocking; every outcome is a `ToolOutput`.
fn read_file(req: &ReadRequest, cache: &FileStateCache) -> ToolOutput {
    let path = &req.path;
    // A FIFO or device would block or never end: refused, never read.
    let (mut file, meta) = match model_file::open(path) {
        Ok(opened) => opened,
        Err(refused) => return ToolOutput::error(refusal_text(refused, req)),
    };
    if meta.len() == 0 {
        cache.record(&state_key(path), FileState::from_content(&meta, b""));
        return ToolOutput::text(EMPTY_FILE_REMINDER);
    }

    let mut head = Vec::with_capacity(detect::SNIFF_BYTES);
    if let Err(e) = (&mut file)
        .take(detect::SNIFF_BYTES as u64)
        .read_to_end(&mut head)
    {
        return ToolOutput::error(tools_texts::cannot_read(path, e));
    }
    if let Some(media_type) = detect::image_media_type(&head) {
        return read_whole(
            path,
            file,
            &meta,
            image::MAX_IMAGE_FILE_BYTES,
            true,
            cache,
            |bytes| image::read_image_bytes(path, bytes, media_type, req.media.images),
        );
    }
    let ext = detect::extension(path);
    if head.starts_with(b"%PDF-") || ext == "pdf" {
        return read_whole(
            path,
            file,
            &meta,
            pdf::MAX_PDF_BYTES,
            false,
            cache,
            |bytes| pdf::read_pdf(path, bytes, req.pages, req.media.documents),
        );
    }
    if ext == "ipynb" {
        return read_whole(
            path,
            file,
            &meta,
            notebook::MAX_NOTEBOOK_BYTES,
            false,
            cache,
            |bytes| notebook::read_notebook(path, bytes, req.media.images),
        );
    }
    if detect::is_binary(path, &head) {
        return ToolOutput::error(texts::binary_file(&detect::extension(path)));
    }

    let whole = req.offset.is_none() && req.limit.is_none();
    if whole && meta.len() > MAX_READ_FILE_BYTES {
        return ToolOutput::error(texts::file_too_large(meta.len(), MAX_READ_FILE_BYTES));
    }
    if let Err(e) = file.rewind() {
        return ToolOutput::error(tools_texts::cannot_read(path, e));
    }
    // Claude Code treats offset 0 as the first line; limit 0 as no limit.
    let start = req.offset.unwrap_or(1).max(1);
    let limit = req.limit.filter(|l| *l > 0).unwrap_or(DEFAULT_READ_LINES);
    let window = match lines::read_window(&file, start, limit, whole, req.view) {
        Ok(w) => w,
        Err(e) => return ToolOutput::error(tools_texts::cannot_read(path, e)),
    };
    let tokens = window.text.len() / 4;
    if tokens > MAX_READ_TOKENS {
        // Not recorded: the model has not seen the content.
        return ToolOutput::error(texts::too_many_tokens(tokens, MAX_READ_TOKENS));
    }
    cache.record(
        &state_key(path),
        FileState {
            size: meta.len(),
            mtime: meta.modified().ok(),
            hash: window.hash.unwrap_or_default(),
        },
    );
    if window.lines_shown == 0 {
        let total = window.total_lines.unwrap_or(0);
        return ToolOutput::text(texts::shorter_than_offset(start, total));
    }
    let total_lines = window
        .total_lines
        .or_else(|| count_lines(&mut file, meta.len()));
    let detail = ToolDetail::Read(ReadDetail {
        file: path.clone(),
        content: window.content,
        num_lines: window.lines_shown,
        start_line: start,
        total_lines,
    });
    ToolOutput::text(window.text).with_detail(detail)
}

/// The lines of a file a partial read did not reach the end of (a final
/// newline starts one more, empty line, as `lines` counts), for the
/// embedder's detail; `None` above [`READ_COUNT_LINES_MAX_BYTES`] or on an
/// error.
fn count_lines(file: &mut File, size: u64) -> Option<u64> {
    if size > READ_COUNT_LINES_MAX_BYTES {
        return None;
    }
    file.rewind().ok()?;
    let mut buf = vec![0u8; COUNT_BUF_BYTES];
    let mut newlines: u64 = 0;
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => newlines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(newlines + 1)
}

/// What Read answers when [`model_file::open`] refused the path.
fn refusal_text(refused: Refused, req: &ReadRequest) -> String {
    let path = &req.path;
    match refused {
        Refused::Missing => tools_texts::file_not_found(&req.cwd),
        Refused::Directory => directory::directory_text(path, req.hidden.as_ref()),
        Refused::Special(kind) => tools_texts::not_a_regular_file("read", path, kind),
        Refused::TooLarge(size) => texts::file_too_large(size, MAX_READ_FILE_BYTES),
        Refused::Io(e) => tools_texts::cannot_read(path, e),
    }
}

/// The whole of the already opened `file` (read from its start, at most
/// `cap_bytes` even if it grows meanwhile) shown by `show`; the file's
/// state is recorded when `show` answers without an error.
fn read_whole(
    path: &Path,
    mut file: File,
    meta: &fs::Metadata,
    cap_bytes: u64,
    is_image: bool,
    cache: &FileStateCache,
    show: impl FnOnce(&[u8]) -> ToolOutput,
) -> ToolOutput {
    let too_large = |size: u64| {
        if is_image {
            texts::image_too_large(size, cap_bytes)
        } else {
            texts::file_too_large(size, cap_bytes)
        }
    };
    if meta.len() > cap_bytes {
        return ToolOutput::error(too_large(meta.len()));
    }
    let bytes = match file
        .rewind()
        .and_then(|()| model_file::read_to_cap(file, cap_bytes))
    {
        Ok(b) => b,
        Err(e) => return ToolOutput::error(tools_texts::cannot_read(path, e)),
    };
    let read = bytes.len() as u64;
    if read > cap_bytes {
        return ToolOutput::error(too_large(read));
    }
    let out = show(&bytes);
    if !out.is_error {
        cache.record(&state_key(path), FileState::from_content(meta, &bytes));
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_claude_code() {
        assert_eq!(format_size(10), "10 bytes");
        assert_eq!(format_size(256 * 1024), "256KB");
        assert_eq!(format_size(300 * 1024 + 100), "300.1KB");
        assert_eq!(format_size(MAX_IMAGE_BYTES), "3.8MB");
        assert_eq!(format_size(5 * 1024 * 1024), "5MB");
    }

    #[test]
    fn schema_is_terse_and_numbers_are_optional() {
        let tool = ReadTool;
        let schema = tool.input_schema();
        assert_eq!(schema["required"], serde_json::json!(["file_path"]));
        assert_eq!(schema["properties"]["offset"]["type"], "integer");
        assert_eq!(schema["additionalProperties"], false);
        assert!(
            tool.info().description.len() <= 600,
            "{}",
            tool.info().description.len()
        );
    }
}
