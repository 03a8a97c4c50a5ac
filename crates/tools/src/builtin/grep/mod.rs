//! The Grep tool: content search with ripgrep's engine (DESIGN T4).
//!
//! Flow: [`GrepInput`] (Claude Code's parameter names) → `request_from`
//! resolves path, mode and flags into a `search::SearchRequest` →
//! `search::run_search` on a blocking thread (parallel walk, one searcher
//! per thread) → `format_output` orders and renders the hits:
//! - `files_with_matches` (default): `Found N file(s)` then paths, newest
//!   mtime first (ties by path);
//! - `content`: `path:line:text` (`-n` defaults to on), context lines
//!   `path-line-text`, `--` between non-adjacent groups, files in path order;
//! - `count`: `path:N` per file in path order, then
//!   `\n\nFound M total occurrence(s) across N file(s).` (M counts matching
//!   lines, as `rg -c` does).
//!
//! `head_limit` keeps the first N lines/entries. Nothing found →
//! `No files found` (file modes) / `No matches found` (content, count).

mod search;

use std::path::Path;

use async_trait::async_trait;
use orbit_tool::texts::tools::grep as texts;
use orbit_tool::{
    CallContext, CallFacts, ResultLimit, ToolError, ToolInfo, ToolOutput, ToolUseContext, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use self::search::{FileHit, SearchOutcome, SearchRequest, run_search, split_globs};
use crate::builtin::blocking::cancellable_search;
use crate::builtin::glob::{NO_FILES_FOUND, sort_newest_first};
use crate::builtin::paths::{
    display_path, not_found_message, optional_path, read_facts, search_root,
};

/// Larger results are persisted by the engine with a preview (R1); Claude
/// Code's threshold for Grep.
pub const GREP_MAX_RESULT_SIZE_CHARS: usize = 20_000;

/// The answer in content and count modes when nothing matched; appended
/// when `search::GREP_MAX_COLLECTED_BYTES` stopped the search.
pub use orbit_tool::texts::tools::grep::{GREP_CAPPED_NOTE, NO_MATCHES_FOUND};

// What Grep shows (no doc comment: it would become schema text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub enum OutputMode {
    Content,
    #[default]
    FilesWithMatches,
    Count,
}

/// Grep's input, with Claude Code's parameter names.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepInput {
    /// The regular expression to search for in file contents
    pub pattern: String,
    /// File or directory to search in (default: current working directory)
    pub path: Option<String>,
    /// Glob to filter files (e.g. "*.js", "*.{ts,tsx}")
    pub glob: Option<String>,
    /// "content" (matching lines), "files_with_matches" (file paths; default) or "count"
    pub output_mode: Option<OutputMode>,
    /// Lines of context before each match (content mode)
    #[serde(rename = "-B")]
    pub before: Option<u32>,
    /// Lines of context after each match (content mode)
    #[serde(rename = "-A")]
    pub after: Option<u32>,
    /// Lines of context before and after each match (content mode)
    #[serde(rename = "-C")]
    pub context: Option<u32>,
    /// Show line numbers (content mode; default true)
    #[serde(rename = "-n")]
    pub line_numbers: Option<bool>,
    /// Case insensitive search
    #[serde(rename = "-i")]
    pub case_insensitive: Option<bool>,
    /// File type to search (rg --type), e.g. js, py, rust, go, java
    #[serde(rename = "type")]
    pub file_type: Option<String>,
    /// Only the first N lines/entries of the output
    pub head_limit: Option<u64>,
    /// Let patterns span lines; . matches newlines
    pub multiline: Option<bool>,
}

/// The Grep tool (stateless; register it with `orbit_tool::typed`).
#[derive(Debug, Default, Clone, Copy)]
pub struct GrepTool;

/// Resolves an input against the session (cwd, defaults, `-C` over `-A`/`-B`).
pub(crate) fn request_from(input: &GrepInput, ctx: &ToolUseContext) -> SearchRequest {
    let cwd = ctx.cwd();
    let root = search_root(&input.path, ctx);
    let (before, after) = match input.context {
        Some(c) => (c, c),
        None => (input.before.unwrap_or(0), input.after.unwrap_or(0)),
    };
    SearchRequest {
        pattern: input.pattern.clone(),
        root,
        cwd,
        mode: input.output_mode.unwrap_or_default(),
        case_insensitive: input.case_insensitive.unwrap_or(false),
        line_numbers: input.line_numbers.unwrap_or(true),
        before: before as usize,
        after: after as usize,
        multiline: input.multiline.unwrap_or(false),
        globs: input.glob.as_deref().map(split_globs).unwrap_or_default(),
        file_type: input.file_type.clone().filter(|t| !t.trim().is_empty()),
        hidden: ctx.read_filter(),
    }
}

/// `head_limit` 0 or absent means no limit.
fn limit_of(head_limit: Option<u64>) -> usize {
    match head_limit {
        Some(0) | None => usize::MAX,
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
    }
}

/// Renders a search outcome as the text the model receives.
pub(crate) fn format_output(
    mut outcome: SearchOutcome,
    mode: OutputMode,
    head_limit: Option<u64>,
    context: bool,
    cwd: &Path,
) -> String {
    let limit = limit_of(head_limit);
    let mut text = match mode {
        OutputMode::FilesWithMatches => {
            if outcome.hits.is_empty() {
                return NO_FILES_FOUND.to_string();
            }
            let mut files: Vec<_> = outcome
                .hits
                .into_iter()
                .map(|h| (h.path, h.mtime))
                .collect();
            sort_newest_first(&mut files);
            files.truncate(limit);
            let paths: Vec<String> = files.iter().map(|(p, _)| display_path(p, cwd)).collect();
            texts::files_found(&paths)
        }
        OutputMode::Content => {
            if outcome.hits.is_empty() {
                return NO_MATCHES_FOUND.to_string();
            }
            sort_by_path(&mut outcome.hits);
            let separator = if context { "--\n" } else { "" };
            let joined = outcome
                .hits
                .iter()
                .map(|h| h.text.as_str())
                .collect::<Vec<_>>()
                .join(separator);
            let lines: Vec<&str> = joined.lines().take(limit).collect();
            lines.join("\n")
        }
        OutputMode::Count => {
            if outcome.hits.is_empty() {
                return NO_MATCHES_FOUND.to_string();
            }
            sort_by_path(&mut outcome.hits);
            outcome.hits.truncate(limit);
            let total: u64 = outcome.hits.iter().map(|h| h.count).sum();
            let lines: Vec<String> = outcome
                .hits
                .iter()
                .map(|h| format!("{}:{}", display_path(&h.path, cwd), h.count))
                .collect();
            texts::count_summary(&lines, total, outcome.hits.len())
        }
    };
    if outcome.capped {
        text.push_str("\n\n");
        text.push_str(GREP_CAPPED_NOTE);
    }
    text
}

fn sort_by_path(hits: &mut [FileHit]) {
    hits.sort_by(|a, b| a.path.cmp(&b.path));
}

/// A search `validate` checked: the resolved request, and how many lines or
/// entries to keep.
pub struct GrepPlan {
    req: SearchRequest,
    head_limit: Option<u64>,
}

#[async_trait]
impl TypedTool for GrepTool {
    type Input = GrepInput;
    type Plan = GrepPlan;

    fn facts(&self, input: &GrepInput, ctx: &ToolUseContext) -> CallFacts {
        read_facts(search_root(&input.path, ctx), &input.pattern)
    }

    async fn validate(
        &self,
        input: GrepInput,
        ctx: &ToolUseContext,
    ) -> Result<GrepPlan, ToolError> {
        let req = request_from(&input, ctx);
        if optional_path(&input.path).is_some() && !req.root.exists() {
            return Err(ToolError::RespondToModel(not_found_message(
                "Path", &req.root, &req.cwd,
            )));
        }
        search::build_matcher(&req).map_err(ToolError::RespondToModel)?;
        search::build_walker(&req).map_err(ToolError::RespondToModel)?;
        Ok(GrepPlan {
            req,
            head_limit: input.head_limit,
        })
    }

    async fn call(
        &self,
        GrepPlan { req, head_limit }: GrepPlan,
        _ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let context = req.before > 0 || req.after > 0;
        let (mode, cwd) = (req.mode, req.cwd.clone());
        let job = move |cancel: &CancellationToken| {
            run_search(&req, cancel)
                .map(|outcome| format_output(outcome, mode, head_limit, context, &cwd))
        };
        Ok(cancellable_search("Grep", call, job).await)
    }

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new("Grep", texts::DESCRIPTION)
            .only_reads()
            .with_search_hint("search file contents with regex (ripgrep)")
            .with_result_limit(ResultLimit::PersistOver(GREP_MAX_RESULT_SIZE_CHARS))
    }
}

#[cfg(test)]
mod tests;
