//! The NotebookEdit tool (issue 35): replaces, inserts or deletes one cell
//! of a Jupyter notebook, with Claude Code 2.1.332's input schema
//! (`notebook_path`, `cell_id`, `new_source`, `cell_type`, `edit_mode`).
//!
//! Facts: writes the resolved path (so the permission grammar's Edit rules
//! decide about it, as for Edit); not read-only; offered in full (Claude
//! Code 2.1.332 defers it; orbit defers only MCP tools so far).
//! `validate` refuses a path that is not `.ipynb`, an insert without
//! `cell_type`, a replace or delete without `cell_id`, and a notebook not
//! read in this session or changed since (T5, Edit's rule, via `ctx.file_state`).
//!
//! Flow of `call`: check freshness again → read the JSON through
//! `model_file` (`orbit_untrusted`) → find the cell by its `id` or by
//! `cell-N` (the name Read gives a cell without an id) → change the cell
//! list keeping nbformat valid (a code cell has `outputs` and
//! `execution_count`, a markdown cell neither; an edited code cell's
//! outputs are cleared; an inserted cell gets an id when the notebook is
//! nbformat ≥ 4.5) → write atomically (one-space indent, as Jupyter) and
//! record the new state, so a following edit needs no re-read.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use orbit_tool::texts::tools as tools_texts;
use orbit_tool::{CallFacts, ToolError, ToolInfo, ToolOutput, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::builtin::atomic_write::{WriteError, atomic_write, write_target};
use crate::builtin::blocking::write_with_file_state;
use crate::builtin::read::model_file::read_capped;
use crate::context::{CallContext, ToolUseContext};
use crate::file_state::{FileStateCache, state_key};

/// Largest notebook NotebookEdit rewrites, in bytes.
const MAX_NOTEBOOK_EDIT_BYTES: u64 = 20 * 1024 * 1024;

const DESCRIPTION: &str = "Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb). \
notebook_path must be absolute; cell_id is the cell's id as Read shows it (cell-N for cells \
without one). edit_mode: replace (default), insert (a new cell after cell_id, or first without \
it; cell_type required) or delete. Read the notebook first.";

// Input of NotebookEdit (no doc comment: it would become a schema description).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotebookEditInput {
    /// The absolute path to the Jupyter notebook file to edit
    pub notebook_path: String,
    /// The ID of the cell to edit. When inserting, the new cell goes after it (first when omitted)
    pub cell_id: Option<String>,
    /// The new source for the cell
    pub new_source: String,
    /// The type of the cell (code or markdown); required for insert
    pub cell_type: Option<CellType>,
    /// replace (default), insert or delete
    pub edit_mode: Option<EditMode>,
}

// A cell's type as NotebookEdit takes it. (Plain comments on schema
// types: doc comments would be sent to the model as descriptions.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum CellType {
    Code,
    Markdown,
}

impl CellType {
    fn as_str(self) -> &'static str {
        match self {
            Self::Code => "code",
            Self::Markdown => "markdown",
        }
    }
}

// What NotebookEdit does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
pub enum EditMode {
    Replace,
    Insert,
    Delete,
}

/// The NotebookEdit tool (stateless; register it with `orbit_tool::typed`).
#[derive(Debug, Default, Clone, Copy)]
pub struct NotebookEditTool;

/// An edit with its path resolved.
#[derive(Debug)]
pub struct NotebookEditPlan {
    path: PathBuf,
    cell_id: Option<String>,
    source: String,
    cell_type: Option<CellType>,
    mode: EditMode,
}

#[async_trait]
impl TypedTool for NotebookEditTool {
    type Input = NotebookEditInput;
    type Plan = NotebookEditPlan;

    fn facts(&self, input: &NotebookEditInput, ctx: &ToolUseContext) -> CallFacts {
        let path = ctx.resolve_path(&input.notebook_path);
        CallFacts {
            destructive: input.edit_mode == Some(EditMode::Delete),
            ..CallFacts::about(&input.notebook_path).writing(path)
        }
    }

    async fn validate(
        &self,
        input: NotebookEditInput,
        ctx: &ToolUseContext,
    ) -> Result<NotebookEditPlan, ToolError> {
        let refuse = |t: String| Err(ToolError::RespondToModel(t));
        let path = ctx.resolve_path(&input.notebook_path);
        if path.extension().and_then(|e| e.to_str()) != Some("ipynb") {
            return refuse(
                "File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool."
                    .into(),
            );
        }
        let mode = input.edit_mode.unwrap_or(EditMode::Replace);
        if mode == EditMode::Insert && input.cell_type.is_none() {
            return refuse("Cell type is required when using edit_mode=insert.".into());
        }
        if mode != EditMode::Insert && input.cell_id.is_none() {
            return refuse("Cell ID must be specified when not inserting a new cell.".into());
        }
        if !path.exists() {
            return refuse(tools_texts::file_not_found(&ctx.cwd()));
        }
        ctx.file_state
            .check_fresh(&path)
            .map_err(|e| ToolError::RespondToModel(e.to_string()))?;
        Ok(NotebookEditPlan {
            path,
            cell_id: input.cell_id,
            source: input.new_source,
            cell_type: input.cell_type,
            mode,
        })
    }

    async fn call(
        &self,
        plan: NotebookEditPlan,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        write_with_file_state("NotebookEdit", ctx, call, move |cache, cancel| {
            edit_notebook(&plan, cache, cancel)
        })
        .await
    }

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new("NotebookEdit", DESCRIPTION)
            .with_search_hint("jupyter notebook ipynb cell edit insert delete")
    }
}

/// The edit, blocking: checks again, changes the cell list, writes.
fn edit_notebook(
    plan: &NotebookEditPlan,
    cache: &FileStateCache,
    cancel: &CancellationToken,
) -> Result<ToolOutput, ToolError> {
    let path = &plan.path;
    cache
        .check_fresh(path)
        .map_err(|e| ToolError::RespondToModel(e.to_string()))?;
    let (bytes, _) = read_capped(path, MAX_NOTEBOOK_EDIT_BYTES)
        .map_err(|e| ToolError::RespondToModel(format!("Cannot read {}: {e:?}", path.display())))?;
    let mut nb: Value = serde_json::from_slice(&bytes)
        .map_err(|_| ToolError::RespondToModel("Notebook is not valid JSON.".to_string()))?;
    let text = apply(&mut nb, plan).map_err(ToolError::RespondToModel)?;
    let pretty =
        serde_json::to_string_pretty(&nb).map_err(|e| ToolError::RespondToModel(e.to_string()))?;
    let mut out = reindent(&pretty);
    out.push('\n');
    let target = write_target(path);
    Ok(match atomic_write(&target, out.as_bytes(), cancel) {
        Ok(state) => {
            cache.record(&state_key(&target), state);
            ToolOutput::text(text)
        }
        Err(WriteError::Cancelled) => ToolOutput::interrupted(),
        Err(WriteError::Io(e)) => ToolOutput::error(tools_texts::cannot_write(path, e)),
    })
}

/// `s` (serde_json's two-space pretty print) with one space per level, as
/// Jupyter writes notebooks.
fn reindent(s: &str) -> String {
    s.lines()
        .map(|line| {
            let trimmed = line.trim_start_matches(' ');
            let depth = (line.len() - trimmed.len()) / 2;
            format!("{}{trimmed}", " ".repeat(depth))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The cell list of `nb` changed as `plan` says; the result text.
fn apply(nb: &mut Value, plan: &NotebookEditPlan) -> Result<String, String> {
    let minor = nb
        .get("nbformat_minor")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let major = nb.get("nbformat").and_then(Value::as_u64).unwrap_or(4);
    let cells = nb
        .get_mut("cells")
        .and_then(Value::as_array_mut)
        .ok_or("Notebook has no cells array.")?;
    let index = match &plan.cell_id {
        Some(id) => Some(
            find_cell(cells, id)
                .ok_or_else(|| format!("Cell with ID \"{id}\" not found in notebook."))?,
        ),
        None => None,
    };
    match plan.mode {
        EditMode::Delete => {
            let i = index.ok_or("Cell ID must be specified when not inserting a new cell.")?;
            cells.remove(i);
            Ok(format!(
                "Deleted cell {}",
                plan.cell_id.as_deref().unwrap_or("")
            ))
        }
        EditMode::Insert => {
            let kind = plan.cell_type.unwrap_or(CellType::Code);
            let at = index.map_or(0, |i| i + 1);
            let mut cell = Map::new();
            cell.insert("cell_type".into(), json!(kind.as_str()));
            let id = (major > 4 || minor >= 5).then(|| new_cell_id(cells));
            if let Some(id) = &id {
                cell.insert("id".into(), json!(id));
            }
            cell.insert("metadata".into(), json!({}));
            cell.insert("source".into(), json!(plan.source));
            let mut cell = Value::Object(cell);
            shape_cell(&mut cell, kind);
            cells.insert(at, cell);
            let name = id.unwrap_or_else(|| format!("cell-{at}"));
            Ok(format!("Inserted cell {name} with {}", plan.source))
        }
        EditMode::Replace => {
            let i = index.ok_or("Cell ID must be specified when not inserting a new cell.")?;
            let cell = &mut cells[i];
            let kind = match plan.cell_type {
                Some(k) => k,
                None if cell.get("cell_type").and_then(Value::as_str) == Some("markdown") => {
                    CellType::Markdown
                }
                None if cell.get("cell_type").and_then(Value::as_str) == Some("raw") => {
                    cell["source"] = json!(plan.source);
                    return Ok(format!(
                        "Updated cell {} with {}",
                        cell_name(cell, i),
                        plan.source
                    ));
                }
                None => CellType::Code,
            };
            cell["cell_type"] = json!(kind.as_str());
            cell["source"] = json!(plan.source);
            if let Some(obj) = cell.as_object_mut() {
                obj.remove("outputs");
                obj.remove("execution_count");
            }
            shape_cell(cell, kind);
            Ok(format!(
                "Updated cell {} with {}",
                cell_name(cell, i),
                plan.source
            ))
        }
    }
}

/// Gives `cell` the fields nbformat requires of a `kind` cell and removes
/// the ones it forbids.
fn shape_cell(cell: &mut Value, kind: CellType) {
    let Some(obj) = cell.as_object_mut() else {
        return;
    };
    obj.entry("metadata").or_insert_with(|| json!({}));
    match kind {
        CellType::Code => {
            obj.entry("outputs").or_insert_with(|| json!([]));
            obj.entry("execution_count").or_insert(Value::Null);
        }
        CellType::Markdown => {
            obj.remove("outputs");
            obj.remove("execution_count");
        }
    }
}

/// The index of the cell named `id`: its `id`, else `cell-N`.
fn find_cell(cells: &[Value], id: &str) -> Option<usize> {
    cells
        .iter()
        .position(|c| c.get("id").and_then(Value::as_str) == Some(id))
        .or_else(|| {
            let n: usize = id.strip_prefix("cell-")?.parse().ok()?;
            (n < cells.len()).then_some(n)
        })
}

/// A cell id not used in `cells` (nbformat: 1–64 of `[a-zA-Z0-9-_]`).
fn new_cell_id(cells: &[Value]) -> String {
    let mut seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    loop {
        let id = format!("{:08x}", seed & 0xffff_ffff);
        if find_cell(cells, &id).is_none() {
            return id;
        }
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    }
}

/// The name Read and NotebookEdit give cell `index`: its `id`, else `cell-N`.
pub(crate) fn cell_name(cell: &Value, index: usize) -> String {
    cell.get("id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("cell-{index}"), str::to_string)
}

/// A notebook text field (a string or a list of strings) as one string.
pub(crate) fn joined(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}
