//! Issue 35's file formats through the binary against the fake Messages
//! API: Read of a multi-page PDF (a `document` block after Claude Code's
//! `PDF file read:` line; `pages` cut out), a PNG (an image block), a
//! notebook with an image output (cells as text plus the image), and
//! NotebookEdit's insert, replace and delete on a real notebook that
//! Python's `nbformat` validator then accepts.

use std::path::Path;

use base64::Engine as _;
use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::{Value, json};

use super::common::{Scratch, run_orbit, s};
use super::mcp::python;

/// A valid PDF of `pages` pages, page N saying `Page N says hello`.
fn pdf(pages: usize) -> Vec<u8> {
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", 3 + 2 * i)).collect();
    let font = 3 + 2 * pages;
    let mut objs = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {pages} >>",
            kids.join(" ")
        ),
    ];
    for i in 0..pages {
        objs.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 {font} 0 R >> >> /Contents {} 0 R >>",
            4 + 2 * i
        ));
        let stream = format!("BT /F1 24 Tf 72 700 Td (Page {} says hello) Tj ET", i + 1);
        objs.push(format!(
            "<< /Length {} >>\nstream\n{stream}\nendstream",
            stream.len()
        ));
    }
    objs.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".into());
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (n, obj) in objs.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{obj}\nendobj\n", n + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objs.len() + 1).as_bytes());
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objs.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// A 1x1 PNG (red), as Python's zlib would write it.
const PNG_1X1_B64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

fn png_bytes() -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(PNG_1X1_B64)
        .unwrap()
}

/// The content blocks of every tool_result in the request `body`.
fn result_blocks(body: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for m in body["messages"].as_array().unwrap() {
        for b in m["content"].as_array().into_iter().flatten() {
            if b["type"] == "tool_result" {
                match &b["content"] {
                    Value::Array(parts) => out.extend(parts.iter().cloned()),
                    Value::String(t) => out.push(json!({"type": "text", "text": t})),
                    _ => {}
                }
            }
        }
    }
    out
}

/// Runs orbit once with the scripted tool calls, then "done"; the last
/// request's body.
fn run_calls(scratch: &Scratch, calls: Vec<(&str, Value)>) -> Value {
    let mut replies: Vec<Reply> = calls
        .into_iter()
        .enumerate()
        .map(|(i, (name, input))| Reply::tool_use(format!("toolu_{i}"), name, input))
        .collect();
    replies.push(Reply::text("done"));
    let server = FakeAnthropic::start(replies);
    let out = run_orbit(
        scratch,
        &server,
        &["-p", "go", "--permission-mode", "acceptEdits"],
    );
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    server.requests().last().unwrap().body.clone()
}

#[test]
fn read_of_a_pdf_sends_a_document_block_and_pages_cut_it() {
    let scratch = Scratch::new();
    let path = scratch.path().join("three.pdf");
    let bytes = pdf(3);
    std::fs::write(&path, &bytes).unwrap();
    let body = run_calls(
        &scratch,
        vec![
            ("Read", json!({"file_path": s(&path)})),
            ("Read", json!({"file_path": s(&path), "pages": "2-3"})),
            ("Read", json!({"file_path": s(&path), "pages": "9"})),
        ],
    );
    let blocks = result_blocks(&body);
    assert_eq!(
        blocks[0],
        json!({"type": "text", "text": format!("PDF file read: {} (1.1KB)", s(&path))})
    );
    assert_eq!(blocks[1]["type"], "document");
    assert_eq!(blocks[1]["source"]["media_type"], "application/pdf");
    let whole = base64::engine::general_purpose::STANDARD
        .decode(blocks[1]["source"]["data"].as_str().unwrap())
        .unwrap();
    assert_eq!(whole, bytes);
    // pages 2-3: a PDF of two pages, page 1's text gone.
    assert_eq!(blocks[3]["type"], "document");
    let cut = base64::engine::general_purpose::STANDARD
        .decode(blocks[3]["source"]["data"].as_str().unwrap())
        .unwrap();
    let cut_text = String::from_utf8_lossy(&cut);
    assert!(cut_text.starts_with("%PDF-"), "{cut_text}");
    assert!(cut_text.contains("/Count 2"), "{cut_text}");
    assert!(!cut_text.contains("Page 1 says"), "{cut_text}");
    assert!(cut_text.contains("Page 3 says"), "{cut_text}");
    assert!(
        blocks[4]["text"].as_str().unwrap().contains("out of range"),
        "{:?}",
        blocks[4]
    );
}

#[test]
fn read_of_a_png_sends_an_image_block() {
    let scratch = Scratch::new();
    let path = scratch.path().join("dot.png");
    std::fs::write(&path, png_bytes()).unwrap();
    let body = run_calls(&scratch, vec![("Read", json!({"file_path": s(&path)}))]);
    let blocks = result_blocks(&body);
    assert_eq!(
        blocks,
        vec![
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_1X1_B64}})
        ]
    );
}

fn notebook() -> Value {
    json!({
        "cells": [
            {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title\n", "Some text"]},
            {"cell_type": "code", "id": "plot", "metadata": {}, "execution_count": 1,
             "source": "print('hi')\nshow()",
             "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["hi\n"]},
                {"output_type": "display_data", "metadata": {},
                 "data": {"image/png": PNG_1X1_B64, "text/plain": ["<Figure>"]}}
             ]},
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5
    })
}

#[test]
fn read_of_a_notebook_shows_cells_outputs_and_image_outputs() {
    let scratch = Scratch::new();
    let path = scratch.path().join("nb.ipynb");
    std::fs::write(&path, notebook().to_string()).unwrap();
    let body = run_calls(&scratch, vec![("Read", json!({"file_path": s(&path)}))]);
    let blocks = result_blocks(&body);
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    let text = blocks[0]["text"].as_str().unwrap();
    assert!(
        text.contains("<cell id=\"intro\"><cell_type>markdown</cell_type># Title\nSome text</cell id=\"intro\">"),
        "{text}"
    );
    assert!(
        text.contains("<cell id=\"plot\">print('hi')\nshow()</cell id=\"plot\">"),
        "{text}"
    );
    assert!(text.contains("<output cell=\"plot\">hi</output>"), "{text}");
    assert!(
        text.contains("<output cell=\"plot\"><Figure></output>"),
        "{text}"
    );
    assert_eq!(blocks[1]["type"], "image");
    assert_eq!(blocks[1]["source"]["data"], PNG_1X1_B64);
}

/// Python's nbformat validator on `path`: "valid" or its error.
fn nbformat_check(path: &Path) -> String {
    let out = std::process::Command::new(python())
        .args([
            "-I",
            "-c",
            "import sys, nbformat\nnb = nbformat.read(sys.argv[1], as_version=4)\nnbformat.validate(nb)\nprint('valid', len(nb.cells))",
        ])
        .arg(path)
        .output()
        .unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout).trim(),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn notebook_edit_inserts_replaces_and_deletes_cells_and_nbformat_validates() {
    let scratch = Scratch::new();
    let path = scratch.path().join("nb.ipynb");
    std::fs::write(&path, serde_json::to_string_pretty(&notebook()).unwrap()).unwrap();
    assert_eq!(nbformat_check(&path), "valid 2");
    let p = s(&path);
    let body = run_calls(
        &scratch,
        vec![
            // Not read yet: refused as Edit refuses.
            (
                "NotebookEdit",
                json!({"notebook_path": p, "cell_id": "plot", "new_source": "x = 1"}),
            ),
            ("Read", json!({"file_path": p})),
            (
                "NotebookEdit",
                json!({"notebook_path": p, "cell_id": "plot", "new_source": "x = 1"}),
            ),
            (
                "NotebookEdit",
                json!({"notebook_path": p, "cell_id": "intro", "new_source": "y = 2", "cell_type": "code", "edit_mode": "insert"}),
            ),
            (
                "NotebookEdit",
                json!({"notebook_path": p, "cell_id": "intro", "new_source": "", "edit_mode": "delete"}),
            ),
            (
                "NotebookEdit",
                json!({"notebook_path": p, "cell_id": "nope", "new_source": "z"}),
            ),
        ],
    );
    let texts: Vec<String> = result_blocks(&body)
        .iter()
        .filter_map(|b| b["text"].as_str().map(str::to_string))
        .collect();
    assert!(texts[0].contains("has not been read yet"), "{texts:?}");
    assert_eq!(texts[2], "Updated cell plot with x = 1", "{texts:?}");
    assert!(texts[3].starts_with("Inserted cell "), "{texts:?}");
    assert_eq!(texts[4], "Deleted cell intro", "{texts:?}");
    assert!(texts[5].contains("not found"), "{texts:?}");
    assert_eq!(nbformat_check(&path), "valid 2");
    let nb: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let cells = nb["cells"].as_array().unwrap();
    assert_eq!(cells[0]["source"], "y = 2");
    assert_eq!(cells[0]["cell_type"], "code");
    assert!(cells[0]["id"].as_str().is_some_and(|id| !id.is_empty()));
    assert_eq!(cells[1]["id"], "plot");
    assert_eq!(cells[1]["source"], "x = 1");
    assert_eq!(
        cells[1]["outputs"],
        json!([]),
        "outputs of the edited cell cleared"
    );
    assert_eq!(cells[1]["execution_count"], Value::Null);
}

/// Runs orbit with the OpenAI provider and `model` on the scripted calls;
/// the tool texts of the last request.
fn run_openai_calls(scratch: &Scratch, model: &str, calls: Vec<(&str, Value)>) -> Vec<String> {
    use super::small_model::{call, run_openai, text, tool_texts};
    let mut replies: Vec<_> = calls
        .into_iter()
        .enumerate()
        .map(|(i, (name, input))| call(&format!("c{i}"), name, input))
        .collect();
    replies.push(text("done"));
    let server = orbit_test_support::FakeOpenAi::start(replies);
    let out = run_openai(scratch, &server, None, &["--model", model]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    tool_texts(server.bodies().last().unwrap())
}

/// With a provider that takes no document blocks the PDF's text comes
/// page by page; a model without images gets a placeholder line.
#[test]
fn other_providers_get_pdf_text_per_page_and_an_image_placeholder() {
    let scratch = Scratch::new();
    let path = scratch.path().join("three.pdf");
    std::fs::write(&path, pdf(3)).unwrap();
    let texts = run_openai_calls(
        &scratch,
        "gpt-4.1",
        vec![("Read", json!({"file_path": s(&path), "pages": "2-3"}))],
    );
    let t = &texts[0];
    assert!(
        t.starts_with(&format!(
            "PDF file read: {} (1.1KB), pages 2-3 of 3 as text:",
            s(&path)
        )),
        "{t}"
    );
    assert!(t.contains("--- Page 2 ---\nPage 2 says hello"), "{t}");
    assert!(t.contains("--- Page 3 ---\nPage 3 says hello"), "{t}");
    assert!(!t.contains("Page 1 says"), "{t}");

    let png = scratch.path().join("dot.png");
    std::fs::write(&png, png_bytes()).unwrap();
    let texts = run_openai_calls(
        &scratch,
        "my-model",
        vec![("Read", json!({"file_path": s(&png)}))],
    );
    assert!(
        texts[0].starts_with(&format!("[Image: {} (image/png, 1x1, ", s(&png))),
        "{texts:?}"
    );
    assert!(texts[0].contains("does not take images"), "{texts:?}");
}
