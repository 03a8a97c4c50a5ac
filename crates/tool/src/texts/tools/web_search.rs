//! WebSearch's texts: its description, the result framing (Claude Code
//! 2.1.332's: `Web search results for query: "…"`, the search's text and
//! `Links: [...]` parts, the sources reminder), the side request's
//! prompts, and its refusals and errors.

use std::fmt::Display;

/// WebSearch's description.
pub const DESCRIPTION: &str = "Searches the web and returns the results: titles and URLs (with snippets or a short summary). \
Use it for information past your training data or that changes over time. \
`allowed_domains` keeps only results from those domains, `blocked_domains` drops results from them (one of the two per call). \
After answering from the results, end with a \"Sources:\" list of the URLs you used as markdown links.";

/// The side request's system prompt (the server-side search).
pub const SIDE_SYSTEM: &str = "You run a web search for another model, which is waiting on the result and can search again. Search once, then reply with a brief summary of the results.";

/// The side request's user message (Claude Code's).
pub fn side_request(query: &str) -> String {
    format!("Perform a web search for the query: {query}")
}

/// The first line of every result (Claude Code's).
pub fn results_header(query: &str) -> String {
    format!("Web search results for query: \"{query}\"")
}

/// A part listing result links; `links_json` is `[{"title","url"},…]`.
pub fn links_part(links_json: &str) -> String {
    format!("Links: {links_json}")
}

/// A part for a search the server could not run.
pub fn search_error_part(code: &str) -> String {
    format!("Web search error: {code}")
}

/// The end of every result (Claude Code's).
pub const SOURCES_REMINDER: &str = "REMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.";

/// No search found anything (after the domain filters).
pub const NO_RESULTS: &str = "No results found.";

/// A query shorter than two characters.
pub const QUERY_TOO_SHORT: &str = "The query must be at least 2 characters long.";

/// Both domain filters in one call (Claude Code's rule).
pub const BOTH_DOMAIN_FILTERS: &str =
    "Cannot specify both allowed_domains and blocked_domains in the same request";

/// No search backend for this provider.
pub fn no_backend(provider: &str) -> String {
    format!(
        "WebSearch is not available: the {provider} provider has no web search; set ORBIT_WEBSEARCH_BACKEND (searxng, brave or tavily) and ORBIT_WEBSEARCH_URL / ORBIT_WEBSEARCH_API_KEY to search through a backend."
    )
}

/// A backend name orbit does not know.
pub fn unknown_backend(name: &str) -> String {
    format!(
        "WebSearch is not available: ORBIT_WEBSEARCH_BACKEND={name} is not searxng, brave or tavily."
    )
}

/// A backend that needs a setting it does not have.
pub fn backend_needs(backend: &str, variable: &str) -> String {
    format!("WebSearch is not available: the {backend} backend needs {variable}.")
}

/// The search failed (the backend's or the API's error, one line).
pub fn search_failed(error: impl Display) -> String {
    format!("Web search failed: {error}")
}
