//! WebFetch's texts: its description, the page header and notes, the
//! cross-host redirect text (Claude Code's), and its refusals and errors.

use std::fmt::Display;

/// WebFetch's description.
pub const DESCRIPTION: &str = "Fetches a URL and returns its content as markdown (HTML converted; text and JSON as-is; binary refused). \
The prompt is echoed with the page: read the content yourself to answer it. \
http and https only; content over 100,000 chars is cut. \
A redirect to another host is reported instead of followed: call WebFetch again with the new URL.";

/// A URL over the length limit.
pub fn url_too_long(max_chars: usize) -> String {
    format!("URL is too long (over {max_chars} characters).")
}

/// A URL that does not parse.
pub fn invalid_url(raw: &str) -> String {
    format!("Invalid URL \"{raw}\". The URL provided could not be parsed.")
}

/// A scheme other than http and https.
pub fn unsupported_scheme(scheme: &str) -> String {
    format!(
        "Unsupported URL scheme \"{scheme}:\". WebFetch fetches http:// and https:// URLs only."
    )
}

/// Claude Code's text for a redirect to another host: the model calls
/// WebFetch again with the target.
pub fn redirect_detected(
    original: &str,
    target: impl Display,
    status: impl Display,
    prompt: &str,
) -> String {
    format!(
        "REDIRECT DETECTED: The URL redirects to a different host.\n\n\
         Original URL: {original}\n\
         Redirect URL: {target}\n\
         Status: {status}\n\n\
         To complete your request, I need to fetch content from the redirected URL. \
         Please use WebFetch again with these parameters:\n\
         - url: \"{target}\"\n\
         - prompt: \"{prompt}\""
    )
}

/// A non-success status (axios' wording, which Claude Code passes through).
pub fn request_failed(status_code: u16) -> String {
    format!("Request failed with status code {status_code}")
}

/// A body that is neither HTML, text nor JSON.
pub fn binary_content(content_type: &str, url: impl Display) -> String {
    format!(
        "WebFetch cannot read binary content (Content-Type: {content_type}) from {url}. It reads HTML, text and JSON."
    )
}

/// What precedes the page content: the prompt echoed and the final URL.
pub fn page_header(prompt: &str, url: impl Display) -> String {
    format!("Prompt: {prompt}\nURL: {url}\n\n")
}

/// Appended when the content was cut at `max_chars`.
pub fn content_truncated(max_chars: usize) -> String {
    format!("\n\n[Content truncated at {max_chars} characters.]")
}

/// Appended when the download stopped at the byte cap.
pub const DOWNLOAD_STOPPED_NOTE: &str =
    "\n\n[Download stopped at the size limit; the rest of the response was not read.]";

/// The HTML could not be converted.
pub fn html_conversion_failed(error: impl Display) -> String {
    format!("Failed to convert HTML to markdown: {error}")
}

/// The whole fetch took longer than its timeout.
pub fn timed_out(url: impl Display, secs: f64) -> String {
    format!("Request to {url} timed out after {secs}s")
}

/// More same-host redirects than followed.
pub fn too_many_redirects(max_redirects: usize, url: impl Display) -> String {
    format!("Too many redirects (more than {max_redirects}) starting at {url}")
}

/// A redirect without a usable `Location`.
pub fn bad_redirect(url: impl Display) -> String {
    format!("Redirect from {url} has no valid Location header")
}

/// The request failed (refused, DNS, TLS…); `message` is the error chain.
pub fn fetch_failed(url: impl Display, message: &str) -> String {
    format!("Failed to fetch {url}: {message}")
}

/// The HTTP client could not be built (sent on every call).
pub fn client_failed(error: impl Display) -> String {
    format!("Could not create the HTTP client: {error}")
}

/// A host that is, or resolves to, an address WebFetch may not reach.
pub fn address_refused(host: &str, ip: &str, class: &str) -> String {
    format!(
        "Refusing to fetch {host}: it resolves to {ip}, a {class} address. WebFetch only reaches public addresses (ORBIT_WEBFETCH_ALLOW_HOSTS can allow a host for local development)."
    )
}
