//! The Glob tool: finds files by glob pattern (DESIGN T4).
//!
//! Flow: `pattern` (+ optional `path`) → search root and the pattern relative
//! to it (`split_pattern`) → a parallel, gitignore-aware walk (ripgrep's
//! `ignore` crate; hidden files skipped, as rg does) from the pattern's
//! literal prefix directory → each file's path relative to the root is
//! matched with `globset` (`*` does not cross `/`; `**` does) → matches are
//! sorted most recently modified first (ties by path), capped at
//! `GLOB_MAX_RESULTS`, and shown relative to the cwd (absolute when
//! outside it).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use async_trait::async_trait;
use globset::{GlobBuilder, GlobMatcher};
use ignore::{WalkBuilder, WalkState};
use orbit_tool::texts::tools::glob as texts;
use orbit_tool::{
    CallContext, CallFacts, ReadFilter, ToolError, ToolInfo, ToolOutput, ToolUseContext, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use crate::builtin::blocking::cancellable_search;
use crate::builtin::paths::{
    Found, display_path, modified, normalize, optional_path, read_facts, require_dir, search_root,
    walked_file,
};

/// At most this many paths are returned (Claude Code's limit).
pub(crate) const GLOB_MAX_RESULTS: usize = 100;

/// Appended when more than `GLOB_MAX_RESULTS` files matched; the answer
/// when nothing matched (also Grep's in its file modes).
pub use orbit_tool::texts::tools::glob::{GLOB_TRUNCATED_NOTE, NO_FILES_FOUND};

/// Glob's input, as Claude Code names it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobInput {
    /// The glob pattern to match files against
    pub pattern: String,
    /// The directory to search in. Omit it to use the current working directory
    pub path: Option<String>,
}

/// The Glob tool (stateless; register it with `orbit_tool::typed`).
#[derive(Debug, Default, Clone, Copy)]
pub struct GlobTool;

fn has_glob_meta(s: &str) -> bool {
    s.contains(['*', '?', '[', ']', '{', '}'])
}

/// Splits `pattern` (relative to `root`, or absolute) into the directory
/// the walk starts from and the pattern relative to it: leading literal
/// components (and `.`/`..`) move the start, so `src/**/*.rs` walks only
/// `src` and `../lib/*.rs` works.
fn split_pattern(root: &Path, pattern: &str) -> (PathBuf, String) {
    let mut base = if Path::new(pattern).is_absolute() {
        PathBuf::from("/")
    } else {
        root.to_path_buf()
    };
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    let mut i = 0;
    // The last component names files, so it never moves the start.
    while i + 1 < parts.len() && !has_glob_meta(parts[i]) {
        match parts[i] {
            "." => {}
            ".." => {
                base.pop();
            }
            dir => base.push(dir),
        }
        i += 1;
    }
    (base, parts[i..].join("/"))
}

/// Every file under `root` matching `pattern`, with its mtime, unsorted.
/// Runs on the calling thread (use `spawn_blocking`); stops early when
/// `cancel` fires.
/// Paths `hidden` covers (read deny rules) are left out of the walk.
pub(crate) fn glob_files(
    root: &Path,
    pattern: &str,
    hidden: Option<ReadFilter>,
    cancel: &CancellationToken,
) -> Result<Vec<(PathBuf, SystemTime)>, String> {
    let (root, pattern) = split_pattern(root, pattern);
    let matcher: GlobMatcher = GlobBuilder::new(&pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| texts::invalid_pattern(&pattern, e))?
        .compile_matcher();
    if !root.is_dir() {
        return Ok(Vec::new());
    }
    let found: Found<(PathBuf, SystemTime)> = Found::new();
    WalkBuilder::new(&root)
        .hidden(true)
        .require_git(false)
        .threads(0)
        .filter_entry(move |e| !hidden.as_ref().is_some_and(|h| h.is_hidden(e.path())))
        .build_parallel()
        .run(|| {
            let matcher = &matcher;
            let root = &root;
            let found = &found;
            Box::new(move |entry| {
                if cancel.is_cancelled() {
                    return WalkState::Quit;
                }
                let Some(entry) = walked_file(entry) else {
                    return WalkState::Continue;
                };
                let Ok(rel) = entry.path().strip_prefix(root) else {
                    return WalkState::Continue;
                };
                if matcher.is_match(rel) {
                    let mtime = modified(&entry);
                    found.push((entry.into_path(), mtime));
                }
                WalkState::Continue
            })
        });
    Ok(found.into_vec())
}

/// Newest first; equal mtimes by path, so the order is deterministic.
pub(crate) fn sort_newest_first(files: &mut [(PathBuf, SystemTime)]) {
    files.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
}

/// Formats Glob's answer from unsorted matches.
pub(crate) fn format_glob_result(mut files: Vec<(PathBuf, SystemTime)>, cwd: &Path) -> String {
    if files.is_empty() {
        return NO_FILES_FOUND.to_string();
    }
    sort_newest_first(&mut files);
    let truncated = files.len() > GLOB_MAX_RESULTS;
    let mut lines: Vec<String> = files
        .iter()
        .take(GLOB_MAX_RESULTS)
        .map(|(p, _)| display_path(&normalize(p), cwd))
        .collect();
    if truncated {
        lines.push(GLOB_TRUNCATED_NOTE.to_string());
    }
    lines.join("\n")
}

#[async_trait]
impl TypedTool for GlobTool {
    type Input = GlobInput;
    type Plan = GlobInput;

    fn facts(&self, input: &GlobInput, ctx: &ToolUseContext) -> CallFacts {
        read_facts(search_root(&input.path, ctx), &input.pattern)
    }

    async fn validate(
        &self,
        input: GlobInput,
        ctx: &ToolUseContext,
    ) -> Result<GlobInput, ToolError> {
        if let Some(path) = optional_path(&input.path) {
            require_dir(&ctx.resolve_path(path), ctx)?;
        }
        if let Err(e) = GlobBuilder::new(&input.pattern)
            .literal_separator(true)
            .build()
        {
            return Err(ToolError::RespondToModel(texts::invalid_pattern(
                &input.pattern,
                e,
            )));
        }
        Ok(input)
    }

    async fn call(
        &self,
        input: GlobInput,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let cwd = ctx.cwd();
        let root = search_root(&input.path, ctx);
        let pattern = input.pattern;
        let hidden = ctx.read_filter();
        let job = move |cancel: &CancellationToken| {
            glob_files(&root, &pattern, hidden, cancel).map(|files| format_glob_result(files, &cwd))
        };
        Ok(cancellable_search("Glob", call, job).await)
    }

    fn info(&self) -> ToolInfo<'_> {
        // The default result limit: at most 100 paths.
        ToolInfo::new("Glob", texts::DESCRIPTION)
            .with_search_hint("find files by name pattern")
            .only_reads()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_moves_the_start_past_literal_directories() {
        let split = |r: &str, p: &str| {
            let (root, pat) = split_pattern(Path::new(r), p);
            (root.to_string_lossy().into_owned(), pat)
        };
        assert_eq!(
            split("/r", "src/**/*.rs"),
            ("/r/src".into(), "**/*.rs".into())
        );
        assert_eq!(split("/r", "./a/b/*.rs"), ("/r/a/b".into(), "*.rs".into()));
        assert_eq!(split("/r/p", "../q/*.rs"), ("/r/q".into(), "*.rs".into()));
        assert_eq!(
            split("/r", "/a/b/**/*.rs"),
            ("/a/b".into(), "**/*.rs".into())
        );
        assert_eq!(split("/r", "**/x/*.rs"), ("/r".into(), "**/x/*.rs".into()));
        assert_eq!(split("/r", "main.rs"), ("/r".into(), "main.rs".into()));
    }

    #[test]
    fn display_is_relative_inside_cwd_and_absolute_outside() {
        let cwd = Path::new("/w/p");
        assert_eq!(display_path(Path::new("/w/p/a/b.rs"), cwd), "a/b.rs");
        assert_eq!(display_path(Path::new("/w/q/c.rs"), cwd), "/w/q/c.rs");
    }

    #[test]
    fn normalize_folds_dots() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
    }

    #[test]
    fn optional_path_treats_placeholders_as_omitted() {
        assert_eq!(optional_path(&Some("undefined".into())), None);
        assert_eq!(optional_path(&Some("null".into())), None);
        assert_eq!(optional_path(&Some("src".into())), Some("src"));
        assert_eq!(optional_path(&None), None);
    }
}
