//! WebSearch through a search backend the user configures — for the
//! OpenAI-compatible and local providers, which have no server-side
//! search (and for any provider when one is set): SearXNG's JSON API,
//! Brave Search or Tavily.
//!
//! Configuration: the session assembly calls [`SearchBackend::install`]
//! with `ORBIT_WEBSEARCH_BACKEND` (`searxng`, `brave`, `tavily`),
//! `ORBIT_WEBSEARCH_URL` (SearXNG's base URL, required; Brave's and
//! Tavily's default to their public APIs) and `ORBIT_WEBSEARCH_API_KEY`
//! (Brave and Tavily; like every `ORBIT_*_KEY` it is kept out of the
//! tools' processes). A bad setting is kept as its one-line reason and
//! becomes the call's result.
//!
//! Flow: `SearchBackend::search` → one HTTP request (30 s) → the
//! backend's JSON → `Hit`s (title, URL, snippet) → `Part::Links` plus
//! a snippets part; the caller applies the domain filters (Tavily also
//! gets them in its request). The backend is the user's own choice of
//! server, so WebFetch's address guard does not apply to it.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use orbit_tool::ToolUseContext;
use orbit_tool::texts::tools::web_search as texts;
use reqwest::Url;
use serde_json::{Value, json};

use super::results::{DomainFilter, Hit, Part, snippets};

/// Time for one backend request, connect included, in milliseconds.
pub(crate) const BACKEND_TIMEOUT_MS: u64 = 30_000;
/// Results asked of a backend.
pub(crate) const BACKEND_RESULTS: usize = 10;
/// A larger response body is refused.
pub(crate) const BACKEND_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
/// Brave Search's API when `ORBIT_WEBSEARCH_URL` is unset.
pub const BRAVE_DEFAULT_URL: &str = "https://api.search.brave.com";
/// Tavily's API when `ORBIT_WEBSEARCH_URL` is unset.
pub const TAVILY_DEFAULT_URL: &str = "https://api.tavily.com";

const EXTENSION_KEY: &str = "orbit.web_search.backend";

/// A configured search backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchBackend {
    /// A SearXNG instance (`GET {url}/search?q=…&format=json`).
    Searxng {
        /// Its base URL.
        url: Url,
    },
    /// Brave Search (`GET {url}/res/v1/web/search`, `X-Subscription-Token`).
    Brave {
        /// The API's base URL.
        url: Url,
        /// The subscription token.
        key: String,
    },
    /// Tavily (`POST {url}/search`, bearer key).
    Tavily {
        /// The API's base URL.
        url: Url,
        /// The API key.
        key: String,
    },
}

/// The session's backend setting: None = none set; `Err` = why the one
/// set cannot be used.
type Setting = Option<Result<SearchBackend, String>>;

#[derive(Default)]
struct Slot(RwLock<Setting>);

impl SearchBackend {
    /// Parses the three settings (None = unset); `Ok(None)` when no
    /// backend is set.
    pub fn from_settings(
        backend: Option<&str>,
        url: Option<&str>,
        key: Option<&str>,
    ) -> Result<Option<Self>, String> {
        let Some(name) = backend.map(str::trim).filter(|b| !b.is_empty()) else {
            return Ok(None);
        };
        let key = key.map(str::trim).filter(|k| !k.is_empty());
        let url = |default: Option<&str>| -> Result<Url, String> {
            let raw = url.map(str::trim).filter(|u| !u.is_empty()).or(default);
            let raw = raw.ok_or_else(|| texts::backend_needs(name, "ORBIT_WEBSEARCH_URL"))?;
            Url::parse(raw)
                .map_err(|e| texts::search_failed(format!("ORBIT_WEBSEARCH_URL {raw}: {e}")))
        };
        let need_key = || {
            key.map(String::from)
                .ok_or_else(|| texts::backend_needs(name, "ORBIT_WEBSEARCH_API_KEY"))
        };
        Ok(Some(match name.to_ascii_lowercase().as_str() {
            "searxng" => Self::Searxng { url: url(None)? },
            "brave" => Self::Brave {
                url: url(Some(BRAVE_DEFAULT_URL))?,
                key: need_key()?,
            },
            "tavily" => Self::Tavily {
                url: url(Some(TAVILY_DEFAULT_URL))?,
                key: need_key()?,
            },
            _ => return Err(texts::unknown_backend(name)),
        }))
    }

    /// Sets the session's backend from its settings (see the module docs).
    pub fn install(
        ctx: &ToolUseContext,
        backend: Option<&str>,
        url: Option<&str>,
        key: Option<&str>,
    ) {
        let setting = Self::from_settings(backend, url, key).transpose();
        let slot = ctx.extension(EXTENSION_KEY, Slot::default);
        match slot.0.write() {
            Ok(mut g) => *g = setting,
            Err(p) => *p.into_inner() = setting,
        }
    }

    /// The session's backend setting.
    pub(crate) fn of(ctx: &ToolUseContext) -> Setting {
        let slot: Arc<Slot> = ctx.extension(EXTENSION_KEY, Slot::default);
        match slot.0.read() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    /// Runs `query`; `Err` is one line.
    pub(crate) async fn search(
        &self,
        query: &str,
        filter: &DomainFilter,
    ) -> Result<Vec<Part>, String> {
        let client = client(self.url())?;
        let request = match self {
            Self::Searxng { url } => client.get(with_query(
                join(url, "search")?,
                &[("q", query), ("format", "json")],
            )),
            Self::Brave { url, key } => client
                .get(with_query(
                    join(url, "res/v1/web/search")?,
                    &[("q", query), ("count", &BACKEND_RESULTS.to_string())],
                ))
                .header("X-Subscription-Token", key)
                .header(reqwest::header::ACCEPT, "application/json"),
            Self::Tavily { url, key } => {
                let mut body = json!({"query": query, "max_results": BACKEND_RESULTS});
                if !filter.allowed.is_empty() {
                    body["include_domains"] = json!(filter.allowed);
                }
                if !filter.blocked.is_empty() {
                    body["exclude_domains"] = json!(filter.blocked);
                }
                client
                    .post(join(url, "search")?)
                    .bearer_auth(key)
                    .json(&body)
            }
        };
        let response = request
            .send()
            .await
            .map_err(|e| texts::search_failed(chain(&e)))?;
        let status = response.status();
        let body = read_capped(response).await?;
        if !status.is_success() {
            let head: String = String::from_utf8_lossy(&body).chars().take(200).collect();
            return Err(texts::search_failed(format!("HTTP {status}: {head}")));
        }
        let json: Value = serde_json::from_slice(&body)
            .map_err(|e| texts::search_failed(format!("the backend's answer is not JSON: {e}")))?;
        let hits = match self {
            Self::Searxng { .. } => hits(&json["results"], "content"),
            Self::Brave { .. } => hits(&json["web"]["results"], "description"),
            Self::Tavily { .. } => hits(&json["results"], "content"),
        };
        let hits: Vec<Hit> = hits.into_iter().filter(|h| filter.keeps(&h.url)).collect();
        let mut parts = vec![Part::Links(hits.clone())];
        parts.extend(snippets(&hits));
        Ok(parts)
    }

    fn url(&self) -> &Url {
        match self {
            Self::Searxng { url } | Self::Brave { url, .. } | Self::Tavily { url, .. } => url,
        }
    }
}

/// `base` + `path` (a base without a trailing `/` keeps its last segment).
fn join(base: &Url, path: &str) -> Result<Url, String> {
    let mut base = base.clone();
    if !base.path().ends_with('/') {
        base.set_path(&format!("{}/", base.path()));
    }
    base.join(path).map_err(texts::search_failed)
}

/// `url` with `pairs` appended to its query.
fn with_query(mut url: Url, pairs: &[(&str, &str)]) -> Url {
    url.query_pairs_mut().extend_pairs(pairs);
    url
}

/// An HTTP client for `url`: no trust store for plain `http://`.
fn client(url: &Url) -> Result<reqwest::Client, String> {
    orbit_model::tls::ensure_crypto_provider();
    let timeout = Duration::from_millis(BACKEND_TIMEOUT_MS);
    let builder = reqwest::Client::builder()
        .connect_timeout(timeout)
        .timeout(timeout)
        .user_agent(concat!("orbit/", env!("CARGO_PKG_VERSION"), " (WebSearch)"));
    let builder = if url.scheme() == "https" {
        orbit_model::tls::with_tls_settings(builder)
    } else {
        builder.tls_certs_only(std::iter::empty::<reqwest::Certificate>())
    };
    builder.build().map_err(texts::search_failed)
}

async fn read_capped(mut response: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| texts::search_failed(chain(&e)))?
    {
        if body.len() + chunk.len() > BACKEND_MAX_BODY_BYTES {
            return Err(texts::search_failed("the backend's answer is too large"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// `e` and its sources on one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    text
}

/// The results of a backend's list (`title`, `url`, snippet under `snippet_key`).
fn hits(list: &Value, snippet_key: &str) -> Vec<Hit> {
    list.as_array()
        .map(|results| {
            results
                .iter()
                .filter_map(|r| {
                    Some(Hit {
                        title: r["title"].as_str().unwrap_or_default().to_string(),
                        url: r["url"].as_str()?.to_string(),
                        snippet: r[snippet_key].as_str().map(String::from),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_with_one_line_reasons() {
        assert_eq!(
            SearchBackend::from_settings(None, Some("http://x"), None),
            Ok(None)
        );
        let searx =
            SearchBackend::from_settings(Some("SearXNG"), Some("http://127.0.0.1:8888"), None);
        assert!(matches!(searx, Ok(Some(SearchBackend::Searxng { .. }))));
        let no_url = SearchBackend::from_settings(Some("searxng"), None, None);
        assert_eq!(
            no_url,
            Err(texts::backend_needs("searxng", "ORBIT_WEBSEARCH_URL"))
        );
        let no_key = SearchBackend::from_settings(Some("brave"), None, None);
        assert_eq!(
            no_key,
            Err(texts::backend_needs("brave", "ORBIT_WEBSEARCH_API_KEY"))
        );
        let tavily = SearchBackend::from_settings(Some("tavily"), None, Some("k"));
        assert!(
            matches!(tavily, Ok(Some(SearchBackend::Tavily { url, .. })) if url.as_str() == "https://api.tavily.com/")
        );
        assert_eq!(
            SearchBackend::from_settings(Some("bing"), None, None),
            Err(texts::unknown_backend("bing"))
        );
    }

    #[test]
    fn paths_join_under_the_base() {
        let base = Url::parse("http://h:1/searx").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            join(&base, "search").map(String::from),
            Ok("http://h:1/searx/search".into())
        );
    }
}
