//! Read of a PDF (issue 35): the bytes come from `model_file` (through
//! `orbit_untrusted`, capped at [`MAX_PDF_BYTES`]); nothing is parsed
//! before a Read of a `.pdf` (or a file starting `%PDF-`) reaches here.
//!
//! Flow: `pages` parsed ("3", "1-5") → with a provider that takes
//! `document` blocks (the Anthropic Messages API) the whole file, or only
//! the asked pages cut out with `lopdf`, goes back as Claude Code 2.1.332
//! sends it: a text line `PDF file read: PATH (SIZE)` plus a `document`
//! block; with any other provider `lopdf` extracts the text page by page
//! (`--- Page N ---` headers). A PDF longer than [`PDF_WHOLE_MAX_PAGES`]
//! needs `pages`, and one read shows at most [`PDF_MAX_PAGES_PER_READ`]
//! pages.

use std::path::Path;

use base64::Engine as _;
use orbit_protocol::{ImageSource, ToolResultContentBlock};
use orbit_tool::ToolOutput;

use super::format_size;

/// Largest PDF Read takes, in bytes (the Messages API's request limit is
/// 32 MB; its base64 must fit with the rest of the request).
pub(crate) const MAX_PDF_BYTES: u64 = 20 * 1024 * 1024;
/// Most pages one read shows (the `pages` range is capped here).
pub(crate) const PDF_MAX_PAGES_PER_READ: u32 = 20;
/// Most pages a read without `pages` shows whole.
pub(crate) const PDF_WHOLE_MAX_PAGES: u32 = 10;

/// A `pages` range, 1-based and inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PageRange {
    pub first: u32,
    pub last: u32,
}

/// `"3"` or `"1-5"` as a range; an error text for anything else.
pub(crate) fn parse_pages(spec: &str) -> Result<PageRange, String> {
    let bad = || {
        format!(
            "Invalid pages parameter: \"{spec}\". Use formats like \"1-5\", \"3\", or \"10-20\". Pages are 1-indexed."
        )
    };
    let spec_trim = spec.trim();
    let (first, last) = match spec_trim.split_once('-') {
        Some((a, b)) => (a.trim().parse::<u32>(), b.trim().parse::<u32>()),
        None => (spec_trim.parse::<u32>(), spec_trim.parse::<u32>()),
    };
    match (first, last) {
        (Ok(first), Ok(last)) if first >= 1 && last >= first => {
            if last - first + 1 > PDF_MAX_PAGES_PER_READ {
                return Err(format!(
                    "Page range \"{spec}\" exceeds maximum of {PDF_MAX_PAGES_PER_READ} pages per request. Please use a smaller range."
                ));
            }
            Ok(PageRange { first, last })
        }
        _ => Err(bad()),
    }
}

/// What Read answers for the PDF `bytes` at `path`.
pub(crate) fn read_pdf(
    path: &Path,
    bytes: &[u8],
    pages: Option<PageRange>,
    documents: bool,
) -> ToolOutput {
    let mut doc = match lopdf::Document::load_mem(bytes) {
        Ok(doc) => doc,
        // A PDF lopdf cannot parse still goes whole to an API that reads
        // PDFs itself (as Claude Code sends it, unparsed).
        Err(_) if documents && pages.is_none() => return document_output(path, bytes, bytes),
        Err(e) => {
            return ToolOutput::error(format!(
                "Cannot read {}: not a readable PDF ({e})",
                path.display()
            ));
        }
    };
    let total = doc.get_pages().len() as u32;
    let range = match pages {
        Some(r) if r.first > total => {
            return ToolOutput::error(format!(
                "Page {} is out of range: {} has {total} pages.",
                r.first,
                path.display()
            ));
        }
        Some(r) => PageRange {
            first: r.first,
            last: r.last.min(total),
        },
        None if total > PDF_WHOLE_MAX_PAGES => {
            return ToolOutput::error(format!(
                "This PDF has {total} pages, which is too many to read at once. Use the pages parameter to read specific page ranges (e.g., pages: \"1-5\"). Maximum {PDF_MAX_PAGES_PER_READ} pages per request."
            ));
        }
        None => PageRange {
            first: 1,
            last: total.max(1),
        },
    };
    if documents {
        let data = if pages.is_some() {
            match cut_pages(&mut doc, range, total) {
                Ok(cut) => cut,
                Err(e) => {
                    return ToolOutput::error(format!("Cannot read {}: {e}", path.display()));
                }
            }
        } else {
            bytes.to_vec()
        };
        return document_output(path, bytes, &data);
    }
    let mut text = format!(
        "PDF file read: {} ({}), pages {}-{} of {total} as text:",
        path.display(),
        format_size(bytes.len() as u64),
        range.first,
        range.last
    );
    for page in range.first..=range.last {
        let body = doc
            .extract_text(&[page])
            .unwrap_or_else(|e| format!("(no text extracted: {e})"));
        text.push_str(&format!("\n\n--- Page {page} ---\n{}", body.trim_end()));
    }
    ToolOutput::text(text)
}

/// Claude Code's answer: the `PDF file read: PATH (SIZE)` line (the size
/// of the file) and a `document` block of `data`.
fn document_output(path: &Path, file: &[u8], data: &[u8]) -> ToolOutput {
    let line = format!(
        "PDF file read: {} ({})",
        path.display(),
        format_size(file.len() as u64)
    );
    ToolOutput::blocks(vec![
        ToolResultContentBlock::Text { text: line },
        ToolResultContentBlock::Document {
            source: ImageSource::Base64 {
                media_type: "application/pdf".into(),
                data: base64::engine::general_purpose::STANDARD.encode(data),
            },
        },
    ])
}

/// The document with only the pages of `range` left, saved anew.
fn cut_pages(doc: &mut lopdf::Document, range: PageRange, total: u32) -> Result<Vec<u8>, String> {
    let drop: Vec<u32> = (1..=total)
        .filter(|p| *p < range.first || *p > range.last)
        .collect();
    doc.delete_pages(&drop);
    doc.prune_objects();
    let mut out = Vec::new();
    doc.save_to(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn pages_take_one_page_or_a_range() {
        assert_eq!(parse_pages("3").unwrap(), PageRange { first: 3, last: 3 });
        assert_eq!(
            parse_pages(" 1-5 ").unwrap(),
            PageRange { first: 1, last: 5 }
        );
        assert!(parse_pages("0").is_err());
        assert!(parse_pages("5-2").is_err());
        assert!(parse_pages("a").is_err());
        assert!(parse_pages("1-21").unwrap_err().contains("maximum of 20"));
    }

    #[test]
    fn an_unparsed_pdf_still_goes_whole_to_an_api_that_reads_pdfs() {
        let bytes = b"%PDF-1.7\nnot something lopdf parses";
        let out = read_pdf(Path::new("x.pdf"), bytes, None, true);
        assert!(!out.is_error);
        assert!(out.content.has_document());
        let out = read_pdf(Path::new("x.pdf"), bytes, None, false);
        assert!(out.is_error);
        assert!(out.content.as_text().contains("not a readable PDF"));
    }
}
