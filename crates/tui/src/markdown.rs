//! Streaming markdown: text deltas come in, complete lines go out as
//! styled [`Line`]s (headings, lists, quotes, rules, fenced code with
//! [`crate::highlight`], inline code, bold, links). Only a complete line is
//! rendered for good — it then goes to the scrollback and never changes;
//! the unfinished tail is rendered on every frame as a preview. State kept
//! across lines: whether a code fence is open, and its language.

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::highlight::highlight;
use crate::theme::Theme;

/// Markdown arriving in pieces.
#[derive(Debug)]
pub(crate) struct MarkdownStream {
    theme: Theme,
    pending: String,
    /// The open fence's language (`Some("")` for a bare fence).
    fence: Option<String>,
}

impl MarkdownStream {
    pub(crate) fn new(theme: Theme) -> Self {
        Self {
            theme,
            pending: String::new(),
            fence: None,
        }
    }

    /// Adds `delta`; returns the lines it completed.
    pub(crate) fn push(&mut self, delta: &str) -> Vec<Line<'static>> {
        self.pending.push_str(delta);
        let mut out = Vec::new();
        while let Some(at) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=at).collect();
            out.extend(self.render(line.trim_end_matches(['\n', '\r'])));
        }
        out
    }

    /// The unfinished last line, rendered as it would be if it ended now.
    pub(crate) fn preview(&self) -> Option<Line<'static>> {
        if self.pending.is_empty() {
            return None;
        }
        let mut copy = MarkdownStream {
            theme: self.theme,
            pending: String::new(),
            fence: self.fence.clone(),
        };
        copy.render(&self.pending)
    }

    /// Ends the block: the unfinished tail is rendered, fences close.
    pub(crate) fn finish(&mut self) -> Vec<Line<'static>> {
        let rest = std::mem::take(&mut self.pending);
        let out = if rest.is_empty() {
            Vec::new()
        } else {
            self.render(&rest).into_iter().collect()
        };
        self.fence = None;
        out
    }

    fn render(&mut self, raw: &str) -> Option<Line<'static>> {
        let t = self.theme;
        let trimmed = raw.trim_start();
        if let Some(tag) = trimmed.strip_prefix("```") {
            self.fence = match self.fence {
                Some(_) => None,
                None => Some(tag.trim().to_string()),
            };
            return None;
        }
        if let Some(lang) = &self.fence {
            let mut line = highlight(raw, lang, t);
            line.spans.insert(0, Span::styled("  ", t.plain()));
            return Some(line);
        }
        let hashes = trimmed.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && trimmed[hashes..].starts_with(' ') {
            let text = trimmed[hashes..].trim();
            return Some(Line::from(Span::styled(text.to_string(), t.heading())));
        }
        let indent = &raw[..raw.len() - trimmed.len()];
        for bullet in ["- ", "* ", "+ "] {
            if let Some(rest) = trimmed.strip_prefix(bullet) {
                let mut spans = vec![Span::raw(format!("{indent}• "))];
                spans.extend(inline(rest, t));
                return Some(Line::from(spans));
            }
        }
        if let Some(rest) = trimmed.strip_prefix("> ") {
            let mut spans = vec![Span::styled("│ ", t.dim())];
            spans.extend(inline(rest, t).into_iter().map(|s| s.patch_style(t.dim())));
            return Some(Line::from(spans));
        }
        if trimmed.len() >= 3 && trimmed.chars().all(|c| c == '-' || c == '*' || c == '_') {
            return Some(Line::from(Span::styled("─".repeat(40), t.dim())));
        }
        Some(Line::from(inline(raw, t)))
    }
}

/// Inline markup of one line: `code`, **bold**, [text](url).
fn inline(text: &str, t: Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut plain = String::new();
    let mut bold = false;
    let mut rest = text;
    let style = |bold: bool| {
        if bold { t.bold() } else { t.plain() }
    };
    while let Some(c) = rest.chars().next() {
        if c == '`'
            && let Some(end) = rest[1..].find('`')
        {
            push_plain(&mut spans, &mut plain, style(bold));
            spans.push(Span::styled(rest[1..=end].to_string(), t.code()));
            rest = &rest[end + 2..];
            continue;
        }
        if rest.starts_with("**") {
            push_plain(&mut spans, &mut plain, style(bold));
            bold = !bold;
            rest = &rest[2..];
            continue;
        }
        if c == '['
            && let Some((label, url, len)) = link(rest)
        {
            push_plain(&mut spans, &mut plain, style(bold));
            spans.push(Span::styled(label.to_string(), t.link()));
            if label != url {
                spans.push(Span::styled(format!(" ({url})"), t.dim()));
            }
            rest = &rest[len..];
            continue;
        }
        plain.push(c);
        rest = &rest[c.len_utf8()..];
    }
    push_plain(&mut spans, &mut plain, style(bold));
    if spans.is_empty() {
        spans.push(Span::raw(""));
    }
    spans
}

fn push_plain(spans: &mut Vec<Span<'static>>, plain: &mut String, style: ratatui::style::Style) {
    if !plain.is_empty() {
        let mut style = style;
        if style.add_modifier.contains(Modifier::BOLD) {
            style = style.add_modifier(Modifier::BOLD);
        }
        spans.push(Span::styled(std::mem::take(plain), style));
    }
}

/// `[label](url)` at the start of `text`: label, url, bytes used.
fn link(text: &str) -> Option<(&str, &str, usize)> {
    let close = text.find("](")?;
    let label = &text[1..close];
    if label.contains('[') {
        return None;
    }
    let end = text[close + 2..].find(')')? + close + 2;
    Some((label, &text[close + 2..end], end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_lines_only_and_fences_tracked_across_deltas() {
        let mut md = MarkdownStream::new(Theme::new(false));
        let mut out = Vec::new();
        for delta in ["# Ti", "tle\n- a `x`\n```rs", "\nlet a = 1;\n``", "`\ndone"] {
            out.extend(md.push(delta));
        }
        assert_eq!(md.preview().map(|l| l.to_string()).as_deref(), Some("done"));
        out.extend(md.finish());
        let texts: Vec<String> = out.iter().map(|l| l.to_string()).collect();
        assert_eq!(texts, ["Title", "• a x", "  let a = 1;", "done"]);
    }

    #[test]
    fn links_show_their_url() {
        let spans = inline("see [docs](https://x.dev) now", Theme::new(false));
        let text: String = spans.iter().map(|s| s.content.to_string()).collect();
        assert_eq!(text, "see docs (https://x.dev) now");
    }
}
