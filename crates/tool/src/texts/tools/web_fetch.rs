//! WebFetch's texts: its description, the page header and notes, the
//! cross-host redirect text (Claude Code's), and its refusals and errors.

use std::fmt::Display;

/// WebFetch's description.
pub const DESCRIPTION: &str = "Fetches a URL, converts the page to markdown (HTML converted; text and JSON as-is; binary refused) and answers `prompt` from it with a small fast model; the answer is the result. \
http and https only. A long page is read 100,000 characters at a time: the result then says which `offset` reads on. \
A redirect to another host is reported instead of followed: call WebFetch again with the new URL.";

/// The system prompt of the side request that answers the prompt.
pub const SIDE_SYSTEM: &str = "You answer a question about one web page for another model, which is waiting on your answer. Use only the page content you are given.";

/// Marks page content cut before the side model (Claude Code's marker).
pub const SIDE_CONTENT_TRUNCATED: &str = "\n\n[Content truncated due to length...]";

/// The side request's user message: the page window, then the prompt and
/// how to answer (Claude Code's framing).
pub fn side_request(content: &str, truncated: bool, prompt: &str) -> String {
    let marker = if truncated {
        SIDE_CONTENT_TRUNCATED
    } else {
        ""
    };
    format!(
        "\nWeb page content:\n---\n{content}{marker}\n---\n\n{prompt}\n\n\
         Provide a concise response based only on the content above. In your response:\n \
         - Quote at most 125 characters from the page at a time, in quotation marks.\n \
         - Say so when the content above does not answer the question.\n"
    )
}

/// Appended to a result that covers only part of the page (Claude Code's
/// note): `total` chars, `start..end` read.
pub fn partial_page_note(total: usize, start: usize, end: usize) -> String {
    format!(
        "\n\n[WebFetch note: this page's text is {total} characters long and the answer above covers only characters {start} to {end}; the final {} were not read \u{2014} to read on, call WebFetch again with the same url and offset: {end}.]",
        total.saturating_sub(end)
    )
}

/// An `offset` at or past the end of the page.
pub fn offset_past_end(offset: usize, total: usize) -> String {
    format!("offset {offset} is past the end of the page: its text is {total} characters long.")
}

/// The side model gave no answer: the page itself follows.
pub fn side_failed(error: impl Display) -> String {
    format!(
        "[The small fast model could not answer the prompt ({error}); the page content follows: answer it yourself.]\n\n"
    )
}

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
