//! What WebFetch hands back for a page: the window of its text that
//! `offset` picks, answered by the session's small fast model (Claude
//! Code's behaviour) — or, without a side query, the window itself.
//!
//! Flow: the page's markdown (`super::render_text`) → [`Window::of`] (at
//! most `window_chars` characters from `offset`) → with a side query
//! ([`orbit_tool::side_query`]) one request: the window framed as Claude
//! Code frames it (`texts::side_request`) → the answer, capped; without
//! one (or when it fails) the window under the page header → plus Claude
//! Code's note naming the next `offset` when text is left.

use orbit_tool::side_query::{SharedSideQuery, SideQueryError};
use orbit_tool::texts::tools::web_fetch as texts;
use orbit_tool::{CallContext, ToolOutput};
use reqwest::Url;

use super::WEB_FETCH_MAX_CONTENT_CHARS;

/// Characters of page text one call reads (and sends to the side model).
pub(crate) const WEB_FETCH_WINDOW_CHARS: usize = WEB_FETCH_MAX_CONTENT_CHARS;
/// The window for the local model: its context is small and its prompt
/// processing slow on a laptop CPU.
pub(crate) const LOCAL_WINDOW_CHARS: usize = 12_000;
/// Most tokens of the side model's answer.
pub(crate) const SIDE_ANSWER_MAX_TOKENS: u32 = 4_096;
/// Most tokens of the local model's answer.
pub(crate) const LOCAL_ANSWER_MAX_TOKENS: u32 = 512;
/// A longer answer is cut here.
pub(crate) const WEB_FETCH_MAX_ANSWER_CHARS: usize = 20_000;

/// The part of a page's text one call covers.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Window<'a> {
    /// The text from `start` to `end` (characters).
    pub text: &'a str,
    /// Its first character's position in the page text.
    pub start: usize,
    /// The position after its last character.
    pub end: usize,
    /// The page text's length in characters.
    pub total: usize,
}

impl<'a> Window<'a> {
    /// At most `max_chars` characters of `content` from `offset`; `Err`
    /// is the text for an offset past the end.
    pub(crate) fn of(content: &'a str, offset: usize, max_chars: usize) -> Result<Self, String> {
        let total = content.chars().count();
        if offset > 0 && offset >= total {
            return Err(texts::offset_past_end(offset, total));
        }
        let byte_at = |chars: usize| {
            content
                .char_indices()
                .nth(chars)
                .map_or(content.len(), |(i, _)| i)
        };
        let end = total.min(offset.saturating_add(max_chars));
        let text = &content[byte_at(offset)..byte_at(end)];
        Ok(Self {
            text,
            start: offset,
            end,
            total,
        })
    }

    /// Text of the page is left after this window.
    pub(crate) fn is_partial(&self) -> bool {
        self.end < self.total
    }

    /// Claude Code's note when text is left, else nothing.
    fn note(&self) -> String {
        if self.is_partial() {
            texts::partial_page_note(self.total, self.start, self.end)
        } else {
            String::new()
        }
    }
}

/// The window's size for a side query on `provider`.
pub(crate) fn window_chars(side: Option<&SharedSideQuery>) -> usize {
    match side.map(|s| s.provider()) {
        Some("local") => LOCAL_WINDOW_CHARS,
        _ => WEB_FETCH_WINDOW_CHARS,
    }
}

/// The result for `window` of the page at `url`: the side model's answer
/// to `prompt` when there is a side query, else (or when it fails) the
/// window itself; Claude Code's note when text is left.
pub(crate) async fn answer(
    window: Window<'_>,
    url: &Url,
    prompt: &str,
    side: Option<SharedSideQuery>,
    call: &CallContext,
) -> ToolOutput {
    let mut failure = None;
    if let Some(side) = side {
        let max_tokens = match side.provider() {
            "local" => LOCAL_ANSWER_MAX_TOKENS,
            _ => SIDE_ANSWER_MAX_TOKENS,
        };
        let request = texts::side_request(window.text, window.is_partial(), prompt);
        match side
            .ask(texts::SIDE_SYSTEM, &request, max_tokens, &call.cancel)
            .await
        {
            Ok(answer) if !answer.trim().is_empty() => {
                let mut out = cap(answer.trim(), WEB_FETCH_MAX_ANSWER_CHARS);
                out.push_str(&window.note());
                return ToolOutput::text(out);
            }
            Ok(_) => failure = Some("it gave an empty answer".to_string()),
            Err(SideQueryError::Cancelled) => {
                return ToolOutput::error(orbit_tool::texts::tools::cancelled("WebFetch"));
            }
            Err(e) => failure = Some(e.to_string()),
        }
    }
    let mut out = failure.map(texts::side_failed).unwrap_or_default();
    out.push_str(&texts::page_header(prompt, url));
    out.push_str(window.text);
    out.push_str(&window.note());
    ToolOutput::text(out)
}

/// `text` cut at `max_chars` characters (with a marker when cut).
fn cap(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => {
            let mut s = text[..cut].to_string();
            s.push_str(&texts::content_truncated(max_chars));
            s
        }
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cover_the_page_in_order_and_count_characters() {
        let page = "é".repeat(10);
        let first = Window::of(&page, 0, 4).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (first.text, first.start, first.end, first.total),
            ("éééé", 0, 4, 10)
        );
        assert!(first.is_partial());
        assert!(first.note().contains("offset: 4."), "{}", first.note());
        let last = Window::of(&page, 8, 4).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((last.text, last.end), ("éé", 10));
        assert!(!last.is_partial() && last.note().is_empty());
        assert!(Window::of(&page, 10, 4).is_err());
        let empty = Window::of("", 0, 4).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(empty.text, "");
    }

    #[test]
    fn the_note_is_claude_code_s() {
        let page = "x".repeat(265_956);
        let w = Window::of(&page, 0, 100_000).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            w.note(),
            "\n\n[WebFetch note: this page's text is 265956 characters long and the answer above covers only characters 0 to 100000; the final 165956 were not read \u{2014} to read on, call WebFetch again with the same url and offset: 100000.]"
        );
    }
}
