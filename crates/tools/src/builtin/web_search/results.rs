//! What a search found, whatever ran it, and the one text the model gets
//! for it (Claude Code 2.1.332's framing): `Web search results for query:
//! "Q"`, then each part — the search's own text, `Links: [{"title",
//! "url"}, …]`, `Web search error: CODE` — then the sources reminder.
//! Domain filters are applied here too (a backend may ignore them) and the
//! text is bounded: at most [`MAX_LINKS_PER_PART`] links per part,
//! [`MAX_PART_CHARS`] characters per text part, [`MAX_RESULT_CHARS`] in all.

use orbit_tool::texts::tools::web_search as texts;
use serde::Serialize;

/// Links kept of one result list.
pub(crate) const MAX_LINKS_PER_PART: usize = 20;
/// A longer text part (a summary, a snippet list) is cut here.
pub(crate) const MAX_PART_CHARS: usize = 8_000;
/// The whole result is cut here.
pub(crate) const MAX_RESULT_CHARS: usize = 40_000;

/// One page a search found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Hit {
    pub title: String,
    pub url: String,
    /// The backend's snippet (not part of the links list).
    #[serde(skip)]
    pub snippet: Option<String>,
}

/// One part of a search's answer, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    /// Text of the search model or a backend's snippets.
    Text(String),
    /// A list of results.
    Links(Vec<Hit>),
    /// The search could not run (the API's error code).
    Error(String),
}

/// The domain filters of a call (lower-case names, no scheme).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct DomainFilter {
    pub allowed: Vec<String>,
    pub blocked: Vec<String>,
}

impl DomainFilter {
    /// The filter of a call's `allowed_domains` and `blocked_domains`.
    pub(crate) fn new(allowed: &[String], blocked: &[String]) -> Self {
        let clean = |list: &[String]| {
            list.iter()
                .map(|d| normal_domain(d))
                .filter(|d| !d.is_empty())
                .collect()
        };
        Self {
            allowed: clean(allowed),
            blocked: clean(blocked),
        }
    }

    /// Whether a result at `url` passes the filter.
    pub(crate) fn keeps(&self, url: &str) -> bool {
        let Some(host) = host_of(url) else {
            return false;
        };
        let under = |domain: &String| host == *domain || host.ends_with(&format!(".{domain}"));
        (self.allowed.is_empty() || self.allowed.iter().any(under))
            && !self.blocked.iter().any(under)
    }

    /// `parts` with the hits the filter drops left out.
    pub(crate) fn apply(&self, parts: Vec<Part>) -> Vec<Part> {
        parts
            .into_iter()
            .map(|part| match part {
                Part::Links(hits) => {
                    Part::Links(hits.into_iter().filter(|h| self.keeps(&h.url)).collect())
                }
                other => other,
            })
            .collect()
    }
}

/// `https://Docs.rs/x` or `docs.rs` → `docs.rs`.
fn normal_domain(raw: &str) -> String {
    let raw = raw.trim();
    let rest = raw.split("://").nth(1).unwrap_or(raw);
    rest.split(['/', ':', '?', '#'])
        .next()
        .unwrap_or_default()
        .trim_start_matches("*.")
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

/// The lower-case host of `url`, if it parses.
fn host_of(url: &str) -> Option<String> {
    reqwest::Url::parse(url)
        .ok()?
        .host_str()
        .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
}

/// `text` cut at `max_chars` characters (`…` when cut).
fn cut(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The text the model gets for `parts` of a search for `query`.
pub(crate) fn render(query: &str, parts: &[Part]) -> String {
    let mut rendered: Vec<String> = Vec::new();
    for part in parts {
        match part {
            Part::Text(text) if !text.trim().is_empty() => {
                rendered.push(cut(text.trim(), MAX_PART_CHARS));
            }
            Part::Text(_) => {}
            Part::Links(hits) => {
                let kept: Vec<&Hit> = hits.iter().take(MAX_LINKS_PER_PART).collect();
                if kept.is_empty() {
                    rendered.push(texts::NO_RESULTS.to_string());
                } else {
                    let json = serde_json::to_string(&kept).unwrap_or_default();
                    rendered.push(texts::links_part(&json));
                }
            }
            Part::Error(code) => rendered.push(texts::search_error_part(code)),
        }
    }
    if rendered.is_empty() {
        rendered.push(texts::NO_RESULTS.to_string());
    }
    let body = cut(&rendered.join("\n\n"), MAX_RESULT_CHARS);
    format!(
        "{}\n\n{body}\n\n\n{}",
        texts::results_header(query),
        texts::SOURCES_REMINDER
    )
}

/// A text part listing each hit's snippet (a backend's search), or None
/// when no hit has one.
pub(crate) fn snippets(hits: &[Hit]) -> Option<Part> {
    let lines: Vec<String> = hits
        .iter()
        .take(MAX_LINKS_PER_PART)
        .filter_map(|h| {
            let snippet = h.snippet.as_deref()?.trim();
            (!snippet.is_empty()).then(|| format!("- {}: {}", h.title, cut(snippet, 300)))
        })
        .collect();
    (!lines.is_empty()).then(|| Part::Text(lines.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(title: &str, url: &str) -> Hit {
        Hit {
            title: title.into(),
            url: url.into(),
            snippet: None,
        }
    }

    #[test]
    fn claude_code_s_framing() {
        let parts = [
            Part::Text("I'll search.".into()),
            Part::Links(vec![
                hit("Example A", "https://example.com/a"),
                hit("Docs B", "https://docs.example.org/b"),
            ]),
            Part::Text("Example A says hello.".into()),
        ];
        assert_eq!(
            render("orbit agent", &parts),
            "Web search results for query: \"orbit agent\"\n\nI'll search.\n\nLinks: [{\"title\":\"Example A\",\"url\":\"https://example.com/a\"},{\"title\":\"Docs B\",\"url\":\"https://docs.example.org/b\"}]\n\nExample A says hello.\n\n\nREMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks."
        );
    }

    #[test]
    fn domain_filters_match_subdomains_only() {
        let f = DomainFilter::new(&["https://Example.com/".into()], &[]);
        assert!(f.keeps("https://example.com/a"));
        assert!(f.keeps("https://docs.example.com/a"));
        assert!(!f.keeps("https://notexample.com/a"));
        assert!(!f.keeps("https://example.com.evil.net/a"));
        assert!(!f.keeps("not a url"));
        let b = DomainFilter::new(&[], &["evil.net".into()]);
        assert!(b.keeps("https://example.com/"));
        assert!(!b.keeps("https://www.evil.net/"));
    }

    #[test]
    fn results_are_bounded() {
        let many: Vec<Hit> = (0..100)
            .map(|i| hit(&"t".repeat(500), &format!("https://e.com/{i}")))
            .collect();
        let text = render("q", &[Part::Links(many), Part::Text("x".repeat(50_000))]);
        assert!(
            text.chars().count() < MAX_RESULT_CHARS + 300,
            "{}",
            text.len()
        );
        assert!(text.ends_with(texts::SOURCES_REMINDER));
    }
}
