//! The LS tool: a tree listing of a directory (DESIGN T4).
//!
//! Flow: `path` (absolute or cwd-relative) + `ignore` globs → a sequential,
//! name-sorted, gitignore-aware walk (hidden files skipped; an `ignore` glob
//! matching an entry's name or its path relative to the listed directory
//! prunes it) → at most `LS_MAX_ENTRIES` entries in tree order → Claude
//! Code's indented listing:
//! ```text
//! - /abs/dir/
//!   - src/
//!     - main.rs
//!   - Cargo.toml
//! ```
//! A longer listing is cut and prefixed with `ls_truncated_note`.
//!
//! Facts: read-only, concurrency-safe, reads the resolved directory.
//! `validate` refuses a missing path, a non-directory and a bad `ignore`
//! glob (`ToolError::RespondToModel`); its plan is the directory and the
//! compiled globs, which `call` walks.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use globset::{Glob, GlobSet, GlobSetBuilder};
use ignore::WalkBuilder;
use orbit_tool::texts::tools::{self as tools_texts, ls as texts};
use orbit_tool::{CallFacts, ReadFilter, ToolError, ToolInfo, ToolOutput, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use crate::builtin::blocking::on_blocking_pool;
use crate::builtin::paths::{normalize, read_facts, require_dir};
use crate::context::{CallContext, ToolUseContext};

/// At most this many files and directories are listed (Claude Code's limit).
pub(crate) const LS_MAX_ENTRIES: usize = 1_000;

/// Prepended when the listing was cut at [`LS_MAX_ENTRIES`] (Claude Code's text).
pub(crate) fn ls_truncated_note() -> String {
    texts::truncated_note(LS_MAX_ENTRIES)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LsInput {
    /// The directory to list (absolute, or relative to the working directory)
    pub path: String,
    /// Glob patterns to ignore
    pub ignore: Option<Vec<String>>,
}

/// The LS tool (stateless; register it with `orbit_tool::typed`).
#[derive(Debug, Default, Clone, Copy)]
pub struct LsTool;

/// A listing to make: the resolved directory and the compiled `ignore` globs.
#[derive(Debug)]
pub struct LsPlan {
    dir: PathBuf,
    ignore: GlobSet,
}

fn ignore_set(globs: &[String]) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for g in globs {
        builder.add(Glob::new(g).map_err(|e| texts::invalid_ignore_glob(g, e))?);
    }
    builder.build().map_err(texts::invalid_ignore_globs)
}

/// Lists `dir` as Claude Code's LS does. Runs on the calling thread.
/// Paths `hidden` covers (read deny rules) are left out.
pub(crate) fn list_directory(
    dir: &Path,
    ignore: &GlobSet,
    hidden: Option<ReadFilter>,
    cancel: &CancellationToken,
) -> String {
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
            e.depth() == 0
                || !(filter_set.is_match(e.file_name())
                    || filter_set.is_match(rel)
                    || hidden.as_ref().is_some_and(|h| h.is_hidden(e.path())))
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
impl TypedTool for LsTool {
    type Input = LsInput;
    type Plan = LsPlan;

    fn facts(&self, input: &LsInput, ctx: &ToolUseContext) -> CallFacts {
        read_facts(normalize(&ctx.resolve_path(&input.path)), &input.path)
    }

    async fn validate(&self, input: LsInput, ctx: &ToolUseContext) -> Result<LsPlan, ToolError> {
        let dir = normalize(&ctx.resolve_path(&input.path));
        require_dir(&dir, ctx)?;
        let ignore = ignore_set(input.ignore.as_deref().unwrap_or_default())
            .map_err(ToolError::RespondToModel)?;
        Ok(LsPlan { dir, ignore })
    }

    async fn call(
        &self,
        plan: LsPlan,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let cancel = call.cancel.clone();
        let hidden = ctx.read_filter();
        let job = move || list_directory(&plan.dir, &plan.ignore, hidden, &cancel);
        tokio::select! {
            listed = on_blocking_pool("LS", job) => listed.map(ToolOutput::text),
            () = call.cancel.cancelled() => Ok(ToolOutput::error(tools_texts::cancelled("LS"))),
        }
    }

    fn info(&self) -> ToolInfo<'_> {
        // The default result limit: the listing is at most 1,000 entries.
        ToolInfo::new("LS", texts::DESCRIPTION)
            .with_search_hint("list directory contents")
            .only_reads()
    }
}
