//! The WebFetch tool: fetch a URL and hand the page to the model as markdown
//! (DESIGN T4).
//!
//! Facts: read-only, concurrency-safe, reaches the network at the URL (the
//! permission gate asks for a rule: a URL can carry data out).
//!
//! Flow: `url` + `prompt` → `validate` (parsable, http/https only,
//! ≤ `MAX_URL_CHARS`; a refusal is `ToolError::RespondToModel`; the plan
//! holds the parsed URL) → `fetch::Fetcher` (manual redirects: same host
//! followed, another host reported with Claude Code's `REDIRECT DETECTED`
//! text; overall timeout; download cap; no loopback, private or
//! link-local address on any hop unless allowed: [`guard`]) → `convert` (HTML → markdown
//! without script/style/head…, text/JSON as-is, binary refused) → `answer`:
//! the window of the text `offset` picks (100,000 characters; less for
//! the local model) answered by the session's small fast model through its
//! side query (`orbit_tool::side_query`), as Claude Code does — the answer
//! is the result, plus Claude Code's note naming the next `offset` when
//! text is left. Without a side query (a bare tool runner) or when it
//! fails, the result is the window itself under the prompt and final URL.
//! A converted page is kept 15 minutes per URL (`cache`, Claude Code's), so
//! reading on with `offset` downloads nothing and sees the same text.
//! URLs are not upgraded from http to https.

mod answer;
mod cache;
mod convert;
mod fetch;
pub mod guard;
mod tunnel;

use std::time::Duration;

use async_trait::async_trait;
use orbit_tool::side_query::side_query;
use orbit_tool::texts::tools::{self as tools_texts, web_fetch as texts};
use orbit_tool::{CallFacts, ResultLimit, ToolError, ToolInfo, ToolOutput, TypedTool};
use reqwest::Url;
use schemars::JsonSchema;
use serde::Deserialize;

use self::answer::Window;
use self::cache::{CachedPage, PageCache};
use self::convert::{BodyKind, classify, html_to_markdown};
use self::fetch::{FetchOutcome, Fetcher, Page, WEB_FETCH_MAX_BODY_BYTES, WEB_FETCH_TIMEOUT_MS};
use crate::builtin::blocking::on_blocking_pool;
use crate::context::{CallContext, ToolUseContext};

/// Page content beyond this many chars is cut (Claude Code's markdown cap).
pub(crate) const WEB_FETCH_MAX_CONTENT_CHARS: usize = 100_000;
/// Above the content cap plus the header, so a capped page is sent whole
/// rather than persisted (R1).
pub(crate) const WEB_FETCH_MAX_RESULT_SIZE_CHARS: usize = 110_000;
/// Longer URLs are refused (Claude Code's limit).
pub(crate) const MAX_URL_CHARS: usize = 2_000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebFetchInput {
    /// The URL to fetch
    pub url: String,
    /// What you want to learn from the page
    pub prompt: String,
    #[schemars(
        description = "Character position in the page text to start reading from. Use it to read on through a page too long for one call, with the value the previous result gave."
    )]
    #[serde(default)]
    pub offset: Option<u64>,
}

/// The WebFetch tool: its HTTP client (register it with `orbit_tool::typed`).
pub struct WebFetchTool {
    fetcher: Result<Fetcher, String>,
}

/// A fetch to make: the checked URL, plus the input as sent (the redirect
/// text quotes both).
#[derive(Debug)]
pub struct WebFetchPlan {
    url: Url,
    input: WebFetchInput,
}

impl WebFetchTool {
    /// The tool with its default limits (30 s, 10 MB download).
    pub fn new() -> Self {
        Self::with_limits(
            Duration::from_millis(WEB_FETCH_TIMEOUT_MS),
            WEB_FETCH_MAX_BODY_BYTES,
        )
    }

    /// The tool with a custom overall timeout and download cap (tests).
    pub fn with_limits(timeout: Duration, max_body_bytes: usize) -> Self {
        Self {
            fetcher: Fetcher::new(timeout, max_body_bytes).map_err(|e| e.to_string()),
        }
    }
}

impl Default for WebFetchTool {
    fn default() -> Self {
        Self::new()
    }
}

/// Parses and checks a URL; `Err` is the text the model sees.
pub(crate) fn check_url(raw: &str) -> Result<Url, String> {
    if raw.chars().count() > MAX_URL_CHARS {
        return Err(texts::url_too_long(MAX_URL_CHARS));
    }
    let url = Url::parse(raw.trim()).map_err(|_| texts::invalid_url(raw))?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(texts::unsupported_scheme(other)),
    }
}

/// A test's URL literal, parsed; one that does not parse fails the test,
/// naming it.
#[cfg(test)]
fn test_url(s: &str) -> Url {
    Url::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// Claude Code's text for a redirect to another host.
pub(crate) fn redirect_message(
    original: &str,
    target: &Url,
    status: reqwest::StatusCode,
    prompt: &str,
) -> String {
    texts::redirect_detected(original, target, status, prompt)
}

/// A final response's text as markdown; `Err` is the text of the tool's error result.
pub(crate) fn page_text(page: &Page) -> Result<String, String> {
    if !page.status.is_success() {
        // axios' wording, which Claude Code passes through.
        return Err(texts::request_failed(page.status.as_u16()));
    }
    let content_type = page.content_type.as_deref();
    let mut content = match classify(content_type, &page.body) {
        BodyKind::Binary => {
            return Err(texts::binary_content(
                content_type.unwrap_or("unknown"),
                &page.url,
            ));
        }
        BodyKind::Text => String::from_utf8_lossy(&page.body).into_owned(),
        BodyKind::Html => html_to_markdown(&String::from_utf8_lossy(&page.body))?,
    };
    if page.truncated {
        content.push_str(texts::DOWNLOAD_STOPPED_NOTE);
    }
    Ok(content)
}

impl WebFetchTool {
    /// Fetches `url` and converts it: the page, or (`Err`) the call's
    /// result (a refusal, an error, a cross-host redirect report).
    async fn fetch_page(
        &self,
        url: Url,
        input: &WebFetchInput,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<Result<CachedPage, ToolOutput>, ToolError> {
        let allowed = guard::AllowedHosts::of(ctx).hosts();
        let fetcher = match &self.fetcher {
            Ok(f) => f,
            Err(e) => return Ok(Err(ToolOutput::error(e.clone()))),
        };
        let outcome = tokio::select! {
            r = fetcher.fetch(url, allowed) => r,
            () = call.cancel.cancelled() => {
                return Ok(Err(ToolOutput::error(tools_texts::cancelled("WebFetch"))));
            }
        };
        match outcome {
            Ok(FetchOutcome::Page(page)) => {
                // HTML conversion of a large page is CPU work: keep it off the runtime.
                let (url, text) = on_blocking_pool("WebFetch", move || {
                    let text = page_text(&page);
                    (page.url, text)
                })
                .await?;
                Ok(text
                    .map(|text| CachedPage {
                        url,
                        text: text.into(),
                    })
                    .map_err(ToolOutput::error))
            }
            Ok(FetchOutcome::CrossHostRedirect { target, status }) => Ok(Err(ToolOutput::text(
                redirect_message(&input.url, &target, status, &input.prompt),
            ))),
            Err(e) => Ok(Err(ToolOutput::error(e.to_string()))),
        }
    }
}

#[async_trait]
impl TypedTool for WebFetchTool {
    type Input = WebFetchInput;
    type Plan = WebFetchPlan;

    /// The network fact is the URL as it will be fetched (parsed), or as
    /// sent when it does not parse (`validate` refuses it then).
    fn facts(&self, input: &WebFetchInput, _ctx: &ToolUseContext) -> CallFacts {
        let url = check_url(&input.url).map_or_else(|_| input.url.clone(), String::from);
        CallFacts::about(&input.url).only_reads().fetching(url)
    }

    async fn validate(
        &self,
        input: WebFetchInput,
        _ctx: &ToolUseContext,
    ) -> Result<WebFetchPlan, ToolError> {
        let url = check_url(&input.url).map_err(ToolError::RespondToModel)?;
        Ok(WebFetchPlan { url, input })
    }

    async fn call(
        &self,
        plan: WebFetchPlan,
        ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        let WebFetchPlan { url, input } = plan;
        let cache = PageCache::of(ctx);
        let key = url.to_string();
        let page = match cache.get(&key) {
            Some(page) => page,
            None => match self.fetch_page(url, &input, ctx, call).await? {
                Ok(page) => {
                    cache.put(key, page.clone());
                    page
                }
                Err(output) => return Ok(output),
            },
        };
        let side = side_query(ctx);
        let offset = usize::try_from(input.offset.unwrap_or(0)).unwrap_or(usize::MAX);
        let window = match Window::of(&page.text, offset, answer::window_chars(side.as_ref())) {
            Ok(window) => window,
            Err(refusal) => return Ok(ToolOutput::error(refusal)),
        };
        Ok(answer::answer(window, &page.url, &input.prompt, side, call).await)
    }

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new("WebFetch", texts::DESCRIPTION)
            .only_reads()
            .with_search_hint("fetch a web page as markdown")
            .with_result_limit(ResultLimit::PersistOver(WEB_FETCH_MAX_RESULT_SIZE_CHARS))
    }
}
