//! The LS tool: a tree listing of a directory (DESIGN T4).
//!
//! Flow: `path` (absolute or cwd-relative) + `ignore` globs → a sequential,
//! name-sorted, gitignore-aware walk (hidden files skipped; an `ignore` glob
//! matching an entry's name or its path relative to the listed directory
//! prunes it) → at most [`LS_MAX_ENTRIES`] entries in tree order → Claude
//! Code's indented listing:
//! ```text
//! - /abs/dir/
//!   - src/
//!     - main.rs
//!   - Cargo.toml
//! ```
//! A longer listing is cut and prefixed with [`ls_truncated_note`].

use std::path::Path;

use async_trait::async_trait;
use globset::{Glob, GlobSet, GlobSetBuilder};
use ignore::WalkBuilder;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::builtin::glob::{normalize, not_found_message};
use crate::context::{CallContext, ToolUseContext};
use crate::tool::{Tool, ToolOutput, input_schema_for};

/// At most this many files and directories are listed (Claude Code's limit).
pub const LS_MAX_ENTRIES: usize = 1_000;
/// The listing is small by construction; larger results would be persisted (R1).
pub const LS_MAX_RESULT_SIZE_CHARS: usize = 100_000;

const DESCRIPTION: &str = "Lists files and directories under a path as a tree (at most 1000 entries). \
path may be absolute or relative to the working directory. ignore takes glob patterns to leave out. \
Respects .gitignore and skips hidden files. Prefer Glob and Grep when you know what you are looking for.";

/// Prepended when the listing was cut at [`LS_MAX_ENTRIES`] (Claude Code's text).
pub fn ls_truncated_note() -> String {
    format!(
        "There are more than {LS_MAX_ENTRIES} files in the repository. Use the LS tool (passing a specific path), Bash tool, and other tools to explore nested directories. The first {LS_MAX_ENTRIES} files and directories are included below:\n\n"
    )
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LsInput {
    /// The directory to list (absolute, or relative to the working directory)
    pub path: String,
    /// Glob patterns to ignore
    #[serde(default)]
    pub ignore: Option<Vec<String>>,
}

pub struct LsTool {
    schema: Value,
}

impl LsTool {
    pub fn new() -> Self {
        Self {
            schema: input_schema_for::<LsInput>(),
        }
    }
}

impl Default for LsTool {
    fn default() -> Self {
        Self::new()
    }
}

fn parse(input: &Value) -> Result<LsInput, String> {
    serde_json::from_value(input.clone()).map_err(|e| format!("Invalid LS input: {e}"))
}

fn ignore_set(globs: &[String]) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for g in globs {
        builder.add(Glob::new(g).map_err(|e| format!("Invalid ignore glob `{g}`: {e}"))?);
    }
    builder
        .build()
        .map_err(|e| format!("Invalid ignore globs: {e}"))
}

/// Lists `dir` as Claude Code's LS does. Runs on the calling thread.
pub fn list_directory(dir: &Path, ignore: &GlobSet, cancel: &CancellationToken) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut truncated = false;
    let root = dir.to_path_buf();
    let filter_root = root.clone();
    let filter_set = ignore.clone();
    let walk = WalkBuilder::new(&root)
        .hidden(true)
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            let rel = e.path().strip_prefix(&filter_root).unwrap_or(e.path());
            e.depth() == 0 || !(filter_set.is_match(e.file_name()) || filter_set.is_match(rel))
        })
        .build();
    for entry in walk {
        if cancel.is_cancelled() {
            break;
        }
        let Ok(entry) = entry else { continue };
        if entry.depth() == 0 {
            continue;
        }
        if lines.len() == LS_MAX_ENTRIES {
            truncated = true;
            break;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        let indent = "  ".repeat(entry.depth());
        let name = entry.file_name().to_string_lossy();
        lines.push(format!("{indent}- {name}{}", if is_dir { "/" } else { "" }));
    }
    let mut root_line = format!("- {}", root.display());
    if !root_line.ends_with('/') {
        root_line.push('/');
    }
    let body = std::iter::once(root_line)
        .chain(lines)
        .collect::<Vec<_>>()
        .join("\n");
    if truncated {
        format!("{}{body}", ls_truncated_note())
    } else {
        body
    }
}

#[async_trait]
impl Tool for LsTool {
    fn name(&self) -> &str {
        "LS"
    }

    fn search_hint(&self) -> Option<&str> {
        Some("list directory contents")
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn is_read_only(&self, _input: &Value) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn max_result_size_chars(&self) -> usize {
        LS_MAX_RESULT_SIZE_CHARS
    }

    async fn validate_input(&self, input: &Value, ctx: &ToolUseContext) -> Result<(), String> {
        let input = parse(input)?;
        let dir = normalize(&ctx.resolve_path(&input.path));
        if !dir.exists() {
            return Err(not_found_message("Directory", &dir, &ctx.cwd()));
        }
        if !dir.is_dir() {
            return Err(format!("Path is not a directory: {}", dir.display()));
        }
        ignore_set(input.ignore.as_deref().unwrap_or_default()).map(|_| ())
    }

    async fn call(&self, input: Value, ctx: &ToolUseContext, call: &CallContext) -> ToolOutput {
        let input = match parse(&input) {
            Ok(i) => i,
            Err(e) => return ToolOutput::error(e),
        };
        let set = match ignore_set(input.ignore.as_deref().unwrap_or_default()) {
            Ok(s) => s,
            Err(e) => return ToolOutput::error(e),
        };
        let dir = normalize(&ctx.resolve_path(&input.path));
        let cancel = call.cancel.clone();
        let task = tokio::task::spawn_blocking(move || list_directory(&dir, &set, &cancel));
        tokio::select! {
            joined = task => match joined {
                Ok(text) => ToolOutput::text(text),
                Err(e) => ToolOutput::error(format!("LS failed: {e}")),
            },
            () = call.cancel.cancelled() => ToolOutput::error("LS was cancelled"),
        }
    }
}
