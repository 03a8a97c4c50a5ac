//! Read of a Jupyter notebook (`.ipynb`, issue 35): the JSON comes from
//! `model_file` (through `orbit_untrusted`, capped at
//! [`MAX_NOTEBOOK_BYTES`]) and is shown cell by cell — each cell as
//! `<cell id="ID">` with its type (markdown, raw) and source, a code
//! cell's outputs after it as text (stream, `text/plain`, errors), and
//! image outputs (`image/png`, `image/jpeg`, …) as image blocks after the
//! text (a placeholder line when the model takes no images). A cell
//! without an `id` (nbformat < 4.5) is named `cell-N`, the name
//! NotebookEdit takes too.

use std::path::Path;

use base64::Engine as _;
use orbit_protocol::ToolResultContentBlock;
use orbit_tool::ToolOutput;
use serde_json::Value;

use super::{MAX_READ_TOKENS, image};
use crate::builtin::notebook::{cell_name, joined};

/// Largest notebook Read takes, in bytes (image outputs make them large).
pub(crate) const MAX_NOTEBOOK_BYTES: u64 = 20 * 1024 * 1024;
/// Most characters of one output's text shown.
const MAX_OUTPUT_CHARS: usize = 10_000;
/// Image output types shown as image blocks.
const IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];

/// What Read answers for the notebook `bytes` at `path`.
pub(crate) fn read_notebook(path: &Path, bytes: &[u8], takes_images: bool) -> ToolOutput {
    let nb: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            return ToolOutput::error(format!(
                "Cannot read {}: not a valid notebook ({e})",
                path.display()
            ));
        }
    };
    let Some(cells) = nb.get("cells").and_then(Value::as_array) else {
        return ToolOutput::error(format!(
            "Cannot read {}: not a valid notebook (no cells)",
            path.display()
        ));
    };
    let mut text = String::new();
    let mut images = Vec::new();
    for (index, cell) in cells.iter().enumerate() {
        let id = cell_name(cell, index);
        let kind = cell
            .get("cell_type")
            .and_then(Value::as_str)
            .unwrap_or("code");
        let source = joined(cell.get("source"));
        text.push_str(&format!("<cell id=\"{id}\">"));
        if kind != "code" {
            text.push_str(&format!("<cell_type>{kind}</cell_type>"));
        }
        text.push_str(&source);
        text.push_str(&format!("</cell id=\"{id}\">\n"));
        for output in cell
            .get("outputs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            push_output(&mut text, &mut images, path, &id, output, takes_images);
        }
    }
    let tokens = text.len() / 4;
    if tokens > MAX_READ_TOKENS {
        return ToolOutput::error(format!(
            "Notebook content ({tokens} tokens) exceeds maximum allowed tokens ({MAX_READ_TOKENS}). Use Bash with jq to read specific cells, e.g. `jq '.cells[:20]' {}`.",
            path.display()
        ));
    }
    if images.is_empty() {
        return ToolOutput::text(text);
    }
    let mut blocks = vec![ToolResultContentBlock::Text { text }];
    blocks.extend(images);
    ToolOutput::blocks(blocks)
}

/// One output of cell `id`: its text into `text`, its images into `images`.
fn push_output(
    text: &mut String,
    images: &mut Vec<ToolResultContentBlock>,
    path: &Path,
    id: &str,
    output: &Value,
    takes_images: bool,
) {
    let kind = output
        .get("output_type")
        .and_then(Value::as_str)
        .unwrap_or("");
    let body = match kind {
        "stream" => joined(output.get("text")),
        "error" => {
            let name = output.get("ename").and_then(Value::as_str).unwrap_or("");
            let value = output.get("evalue").and_then(Value::as_str).unwrap_or("");
            format!("{name}: {value}")
        }
        _ => {
            let data = output.get("data");
            for media in IMAGE_TYPES {
                let Some(b64) = data.and_then(|d| d.get(*media)) else {
                    continue;
                };
                let b64: String = joined(Some(b64)).split_whitespace().collect();
                let Ok(raw) = base64::engine::general_purpose::STANDARD.decode(b64) else {
                    continue;
                };
                let shown = image::read_image_bytes(
                    &path.join(format!("{id}.output")),
                    &raw,
                    media,
                    takes_images,
                );
                text.push_str(&format!(
                    "<output cell=\"{id}\">[{media} output]</output>\n"
                ));
                if shown.is_error {
                    continue;
                }
                match shown.content {
                    orbit_protocol::ToolResultContent::Blocks(blocks) => images.extend(blocks),
                    orbit_protocol::ToolResultContent::Text(t) => {
                        text.push_str(&t);
                        text.push('\n');
                    }
                }
            }
            joined(data.and_then(|d| d.get("text/plain")))
        }
    };
    if body.is_empty() {
        return;
    }
    let mut body = body;
    if body.chars().count() > MAX_OUTPUT_CHARS {
        body = body.chars().take(MAX_OUTPUT_CHARS).collect();
        body.push_str("\n… (output truncated)");
    }
    text.push_str(&format!(
        "<output cell=\"{id}\">{}</output>\n",
        body.trim_end()
    ));
}
