//! Grep's engine: ripgrep's crates wired the way `rg` wires them.
//!
//! Flow: a [`SearchRequest`] → [`build_matcher`] (grep-regex, line-oriented
//! unless multiline) and [`build_walker`] (ignore: .gitignore/.ignore,
//! hidden files searched but VCS directories skipped like Claude Code's
//! `rg --hidden`, `glob` overrides, `type` filters) → a parallel walk where
//! each thread owns a `Searcher` and feeds one `FileSink` per file → each
//! file with a hit becomes a [`FileHit`] (its formatted lines, match count
//! and mtime), collected unsorted. Binary files (a NUL byte) are skipped
//! whole. Ordering and the final text are `super::format_output`'s.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::SystemTime;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use ignore::{WalkBuilder, WalkState};
use orbit_tool::ReadFilter;
use orbit_tool::texts::tools::grep as texts;
use tokio_util::sync::CancellationToken;

use super::OutputMode;
use crate::builtin::paths::{Found, display_path, modified, normalize, walked_file};

/// Content-mode lines longer than this (in chars) are cut, like
/// `rg --max-columns 500 --max-columns-preview`.
pub(crate) const GREP_MAX_LINE_CHARS: usize = 500;
/// Appended to a cut line (ripgrep's own marker).
pub(crate) use orbit_tool::texts::tools::grep::LONG_LINE_MARKER;
/// Stop collecting content-mode output past this many bytes, so a pattern
/// that matches everything cannot exhaust memory. The engine persists large
/// results anyway (R1), so this is far above what a model reads.
pub(crate) const GREP_MAX_COLLECTED_BYTES: usize = 16 * 1024 * 1024;
/// Directories never searched even though hidden files are (Claude Code's list).
const VCS_DIRS: [&str; 5] = [".git", ".svn", ".hg", ".bzr", ".jj"];

/// Everything one search needs, already resolved.
#[derive(Debug, Clone)]
pub(crate) struct SearchRequest {
    pub pattern: String,
    /// File or directory to search (absolute).
    pub root: PathBuf,
    /// Paths are shown relative to this when inside it.
    pub cwd: PathBuf,
    pub mode: OutputMode,
    pub case_insensitive: bool,
    pub line_numbers: bool,
    pub before: usize,
    pub after: usize,
    pub multiline: bool,
    /// Globs as `rg --glob` takes them (`!` negates).
    pub globs: Vec<String>,
    pub file_type: Option<String>,
    /// Paths the walk leaves out (read deny rules; see `ToolUseContext::read_filter`).
    pub hidden: Option<ReadFilter>,
}

/// One file with at least one match.
#[derive(Debug, Clone)]
pub(crate) struct FileHit {
    pub path: PathBuf,
    /// Formatted output lines (content mode only), each ending in `\n`.
    pub text: String,
    /// Matching lines in the file (count mode).
    pub count: u64,
    pub mtime: SystemTime,
}

/// What a search found.
#[derive(Debug, Default)]
pub(crate) struct SearchOutcome {
    pub hits: Vec<FileHit>,
    /// True when [`GREP_MAX_COLLECTED_BYTES`] stopped the search early.
    pub capped: bool,
}

/// The regex matcher for a request; `Err` is the text the model sees.
pub(crate) fn build_matcher(req: &SearchRequest) -> Result<RegexMatcher, String> {
    let mut builder = RegexMatcherBuilder::new();
    builder
        .case_insensitive(req.case_insensitive)
        // ^ and $ match at line boundaries, as in rg.
        .multi_line(true)
        // A match never contains NUL, the byte binary detection quits on
        // (rg does the same; it keeps the fast paths simple).
        .ban_byte(Some(b'\x00'));
    if req.multiline {
        builder.dot_matches_new_line(true);
    } else {
        // Lets the matcher search line by line (rg's fast path).
        builder.line_terminator(Some(b'\n'));
    }
    builder
        .build(&req.pattern)
        .map_err(|e| texts::invalid_regex(&req.pattern, e))
}

/// The walker for a request; `Err` is the text the model sees.
pub(crate) fn build_walker(req: &SearchRequest) -> Result<WalkBuilder, String> {
    let mut walker = WalkBuilder::new(&req.root);
    walker
        .hidden(false)
        .require_git(false)
        .threads(0)
        .filter_entry({
            let hidden = req.hidden.clone();
            move |e| {
                let vcs_dir = e.file_type().is_some_and(|t| t.is_dir())
                    && VCS_DIRS.iter().any(|d| e.file_name() == *d);
                let denied = hidden.as_ref().is_some_and(|h| h.is_hidden(e.path()));
                !vcs_dir && !denied
            }
        });
    if !req.globs.is_empty() {
        let mut overrides = OverrideBuilder::new(&req.root);
        for g in &req.globs {
            overrides.add(g).map_err(|e| texts::invalid_glob(g, e))?;
        }
        let built = overrides.build().map_err(texts::invalid_glob_filter)?;
        walker.overrides(built);
    }
    if let Some(t) = &req.file_type {
        let mut types = TypesBuilder::new();
        types.add_defaults();
        types.select(t);
        let built = types.build().map_err(|e| texts::invalid_file_type(t, e))?;
        walker.types(built);
    }
    Ok(walker)
}

fn searcher_for(req: &SearchRequest) -> Searcher {
    let context = matches!(req.mode, OutputMode::Content);
    SearcherBuilder::new()
        // Counting lines costs a pass over every byte; only content shows them.
        .line_number(context)
        .multi_line(req.multiline)
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .before_context(if context { req.before } else { 0 })
        .after_context(if context { req.after } else { 0 })
        .build()
}

/// Splits `req.globs`-style input the way Claude Code does: on whitespace,
/// and on commas unless the pattern uses braces (`*.{ts,tsx}`).
pub(crate) fn split_globs(glob: &str) -> Vec<String> {
    let mut out = Vec::new();
    for raw in glob.split_whitespace() {
        if raw.contains('{') && raw.contains('}') {
            out.push(raw.to_string());
        } else {
            out.extend(raw.split(',').filter(|s| !s.is_empty()).map(String::from));
        }
    }
    out
}

/// Runs the search on the calling thread (use `spawn_blocking`).
pub(crate) fn run_search(
    req: &SearchRequest,
    cancel: &CancellationToken,
) -> Result<SearchOutcome, String> {
    let matcher = build_matcher(req)?;
    let walker = build_walker(req)?;
    let hits: Found<FileHit> = Found::new();
    let collected = AtomicUsize::new(0);
    let capped = AtomicBool::new(false);
    walker.build_parallel().run(|| {
        let matcher = matcher.clone();
        let mut searcher = searcher_for(req);
        let hits = &hits;
        let collected = &collected;
        let capped = &capped;
        Box::new(move |entry| {
            if cancel.is_cancelled() || capped.load(Ordering::Relaxed) {
                return WalkState::Quit;
            }
            let Some(entry) = walked_file(entry) else {
                return WalkState::Continue;
            };
            let mut sink = FileSink::new(req, entry.path());
            if searcher
                .search_path(&matcher, entry.path(), &mut sink)
                .is_err()
                || sink.binary
                || sink.count == 0
            {
                return WalkState::Continue;
            }
            if !sink.text.is_empty()
                && collected.fetch_add(sink.text.len(), Ordering::Relaxed) + sink.text.len()
                    > GREP_MAX_COLLECTED_BYTES
            {
                capped.store(true, Ordering::Relaxed);
            }
            hits.push(FileHit {
                path: normalize(entry.path()),
                text: sink.text,
                count: sink.count,
                mtime: modified(&entry),
            });
            WalkState::Continue
        })
    });
    Ok(SearchOutcome {
        hits: hits.into_vec(),
        capped: capped.load(Ordering::Relaxed),
    })
}

/// Collects one file's results in the requested mode.
struct FileSink<'r> {
    req: &'r SearchRequest,
    path: &'r Path,
    /// The path as shown, computed on the first output line.
    display: Option<String>,
    text: String,
    count: u64,
    binary: bool,
}

impl<'r> FileSink<'r> {
    fn new(req: &'r SearchRequest, path: &'r Path) -> Self {
        Self {
            req,
            path,
            display: None,
            text: String::new(),
            count: 0,
            binary: false,
        }
    }

    /// One output line: `path:12:text` (match) or `path-13-text` (context),
    /// without the number when `-n` is off.
    fn push_line(&mut self, sep: char, number: Option<u64>, line: &[u8]) {
        let line = strip_terminator(line);
        let display = self
            .display
            .get_or_insert_with(|| display_path(&normalize(self.path), &self.req.cwd));
        self.text.push_str(display);
        self.text.push(sep);
        if let (true, Some(n)) = (self.req.line_numbers, number) {
            self.text.push_str(&n.to_string());
            self.text.push(sep);
        }
        let line = String::from_utf8_lossy(line);
        match line.char_indices().nth(GREP_MAX_LINE_CHARS) {
            Some((cut, _)) => {
                self.text.push_str(&line[..cut]);
                self.text.push_str(LONG_LINE_MARKER);
            }
            None => self.text.push_str(&line),
        }
        self.text.push('\n');
    }

    fn push_lines(&mut self, sep: char, first: Option<u64>, bytes: &[u8]) -> u64 {
        let mut n = 0;
        for line in bytes.split_inclusive(|b| *b == b'\n') {
            self.push_line(sep, first.map(|f| f + n), line);
            n += 1;
        }
        n
    }
}

fn strip_terminator(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        match self.req.mode {
            OutputMode::FilesWithMatches => {
                self.count += 1;
                // One match is enough to list the file.
                Ok(false)
            }
            OutputMode::Count => {
                self.count += mat.bytes().split_inclusive(|b| *b == b'\n').count().max(1) as u64;
                Ok(true)
            }
            OutputMode::Content => {
                self.count += self.push_lines(':', mat.line_number(), mat.bytes());
                Ok(true)
            }
        }
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, std::io::Error> {
        self.push_lines('-', ctx.line_number(), ctx.bytes());
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, std::io::Error> {
        self.text.push_str("--\n");
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _offset: u64) -> Result<bool, std::io::Error> {
        // rg skips binary files found while walking; so do we, whole.
        self.binary = true;
        Ok(false)
    }
}
