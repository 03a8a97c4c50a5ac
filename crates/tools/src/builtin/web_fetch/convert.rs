//! WebFetch's content side: decide what a body is and turn it into text.
//!
//! Flow: `Content-Type` (or, when absent, a sniff of the bytes) →
//! [`classify`] → HTML is converted to markdown with `htmd`, skipping
//! script/style/head/nav/noscript/svg and friends ([`html_to_markdown`]);
//! text and JSON/XML pass through; anything else is binary and refused.

use orbit_tool::texts::tools::web_fetch as texts;

/// What kind of body a response carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyKind {
    Html,
    Text,
    Binary,
}

/// Elements that carry no readable page content.
const SKIPPED_TAGS: [&str; 11] = [
    "script", "style", "head", "nav", "noscript", "svg", "iframe", "template", "canvas", "object",
    "embed",
];

/// Classifies a body by its media type, sniffing when there is none.
pub(crate) fn classify(content_type: Option<&str>, body: &[u8]) -> BodyKind {
    let media = content_type
        .and_then(|ct| ct.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .filter(|m| !m.is_empty());
    match media.as_deref() {
        Some("text/html" | "application/xhtml+xml") => BodyKind::Html,
        Some(m)
            if m.starts_with("text/")
                || m.ends_with("+json")
                || m.ends_with("+xml")
                || matches!(
                    m,
                    "application/json"
                        | "application/xml"
                        | "application/javascript"
                        | "application/x-javascript"
                        | "application/ecmascript"
                        | "application/x-sh"
                        | "application/toml"
                        | "application/yaml"
                        | "application/x-yaml"
                ) =>
        {
            BodyKind::Text
        }
        Some(_) => BodyKind::Binary,
        None => sniff(body),
    }
}

fn sniff(body: &[u8]) -> BodyKind {
    let head = &body[..body.len().min(1024)];
    // `error_len() == None` is a character cut by the 1 KB window, not junk.
    let invalid_utf8 = std::str::from_utf8(head).is_err_and(|e| e.error_len().is_some());
    if head.contains(&0) || invalid_utf8 {
        return BodyKind::Binary;
    }
    let lower = String::from_utf8_lossy(head).to_ascii_lowercase();
    let trimmed = lower.trim_start();
    if trimmed.starts_with("<!doctype html")
        || trimmed.starts_with("<html")
        || lower.contains("<body")
    {
        BodyKind::Html
    } else {
        BodyKind::Text
    }
}

/// HTML to markdown without the non-content elements.
pub(crate) fn html_to_markdown(html: &str) -> Result<String, String> {
    // The converter holds `Rc`s, so it is built per call on the calling thread.
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(SKIPPED_TAGS.to_vec())
        .build();
    converter
        .convert(html)
        .map(|md| md.trim().to_string())
        .map_err(texts::html_conversion_failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_by_media_type() {
        assert_eq!(
            classify(Some("text/html; charset=utf-8"), b""),
            BodyKind::Html
        );
        assert_eq!(classify(Some("application/json"), b"{}"), BodyKind::Text);
        assert_eq!(classify(Some("application/ld+json"), b"{}"), BodyKind::Text);
        assert_eq!(classify(Some("text/plain"), b"x"), BodyKind::Text);
        assert_eq!(classify(Some("image/png"), b"x"), BodyKind::Binary);
        assert_eq!(classify(Some("application/pdf"), b"x"), BodyKind::Binary);
    }

    #[test]
    fn sniffs_without_content_type() {
        assert_eq!(classify(None, b"<!DOCTYPE html><p>x</p>"), BodyKind::Html);
        assert_eq!(classify(None, b"plain words"), BodyKind::Text);
        assert_eq!(classify(None, b"\x89PNG\r\n\x1a\n\0\0"), BodyKind::Binary);
    }

    #[test]
    fn markdown_skips_script_style_and_head() {
        let md = html_to_markdown(
            "<html><head><title>T</title><style>p{}</style></head><body><nav>menu</nav>\
             <h1>Title</h1><script>alert(1)</script><p>Hello <b>world</b></p></body></html>",
        );
        assert_eq!(md, Ok("# Title\n\nHello **world**".to_string()));
    }
}
