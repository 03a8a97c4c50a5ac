//! WebFetch against a tiny local HTTP/1.1 server (127.0.0.1, random port):
//! HTML → markdown, redirects, caps, timeouts, refusals.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use orbit_tool::{CallFacts, typed};
use orbit_tools::ToolOutput;
use orbit_tools::builtin::web_fetch::WebFetchTool;
use orbit_tools::builtin::web_fetch::guard::AllowedHosts;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::glob::Tree;
use super::harness::{Refusal, builtin, facts, output, run, text};

/// A canned response; `None` for a route that never answers.
#[derive(Clone)]
struct Reply {
    status: &'static str,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn reply(status: &'static str, content_type: &str, body: impl Into<Vec<u8>>) -> Option<Reply> {
    Some(Reply {
        status,
        headers: vec![("Content-Type".into(), content_type.into())],
        body: body.into(),
    })
}

fn redirect(status: &'static str, location: &str) -> Option<Reply> {
    Some(Reply {
        status,
        headers: vec![("Location".into(), location.into())],
        body: Vec::new(),
    })
}

/// Serves `routes` for at most `max_conns` connections; returns the port.
async fn serve(routes: HashMap<String, Option<Reply>>, max_conns: usize) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let routes = Arc::new(routes);
    tokio::spawn(async move {
        for _ in 0..max_conns {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let routes = routes.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf);
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                match routes.get(&path).cloned().flatten() {
                    Some(r) => {
                        let mut out = format!(
                            "HTTP/1.1 {}\r\nConnection: close\r\nContent-Length: {}\r\n",
                            r.status,
                            r.body.len()
                        );
                        for (k, v) in &r.headers {
                            out.push_str(&format!("{k}: {v}\r\n"));
                        }
                        out.push_str("\r\n");
                        let _ = sock.write_all(out.as_bytes()).await;
                        let _ = sock.write_all(&r.body).await;
                        let _ = sock.shutdown().await;
                    }
                    None if routes.contains_key(&path) => {
                        // Hold the connection open without answering.
                        tokio::time::sleep(Duration::from_secs(30)).await;
                    }
                    None => {
                        let _ = sock
                            .write_all(b"HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
                            .await;
                    }
                }
            });
        }
    });
    port
}

const PAGE: &str = "<!DOCTYPE html><html><head><title>T</title><style>p { color: red }</style>\
<script>var secret = 1;</script></head><body><nav>Home | About</nav><h1>Title</h1>\
<script>alert('x')</script><p>Hello <b>world</b>, see <a href=\"/docs\">the docs</a>.</p>\
<ul><li>one</li><li>two</li></ul></body></html>";
const PAGE_MD: &str = "# Title\n\nHello **world**, see [the docs](/docs).\n\n*   one\n*   two";

/// Fetches `url` through `tool` (registered as the engine registers it).
async fn fetch(tool: WebFetchTool, url: &str) -> ToolOutput {
    let t = Tree::new();
    let ctx = t.ctx("");
    // The fake servers listen on 127.0.0.1.
    AllowedHosts::allow(&ctx, ["127.0.0.1".to_string()]);
    output(
        run(
            &typed(tool),
            &ctx,
            json!({"url": url, "prompt": "What is it about?"}),
        )
        .await,
    )
}

/// Serves one route for two connections; returns its URL.
async fn serve_one(path: &str, reply: Option<Reply>) -> String {
    let port = serve(HashMap::from([(path.to_string(), reply)]), 2).await;
    format!("http://127.0.0.1:{port}{path}")
}

/// What a successful fetch of `url` answers with `body`.
fn answer(url: &str, body: &str) -> String {
    format!("Prompt: What is it about?\nURL: {url}\n\n{body}")
}

/// A fetch of `url` with a 300 ms timeout comes back, well within 5 s, as
/// the timeout error.
async fn assert_times_out(url: &str) {
    let started = std::time::Instant::now();
    let tool = WebFetchTool::with_limits(Duration::from_millis(300), 1_024);
    let out = fetch(tool, url).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(out.is_error);
    assert_eq!(text(&out), format!("Request to {url} timed out after 0.3s"));
}

#[tokio::test]
async fn html_becomes_markdown_without_script_style_head_or_nav() {
    let port = serve(
        HashMap::from([(
            "/page".into(),
            reply("200 OK", "text/html; charset=utf-8", PAGE),
        )]),
        4,
    )
    .await;
    let url = format!("http://127.0.0.1:{port}/page");
    let out = fetch(WebFetchTool::new(), &url).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(text(&out), answer(&url, PAGE_MD));
}

#[tokio::test]
async fn text_and_json_pass_through() {
    let port = serve(
        HashMap::from([
            (
                "/a.txt".into(),
                reply("200 OK", "text/plain", "plain <b>text</b>"),
            ),
            (
                "/a.json".into(),
                reply("200 OK", "application/json", "{\"k\": 1}"),
            ),
        ]),
        4,
    )
    .await;
    let out = fetch(
        WebFetchTool::new(),
        &format!("http://127.0.0.1:{port}/a.txt"),
    )
    .await;
    assert!(text(&out).ends_with("\n\nplain <b>text</b>"), "{out:?}");
    let out = fetch(
        WebFetchTool::new(),
        &format!("http://127.0.0.1:{port}/a.json"),
    )
    .await;
    assert!(text(&out).ends_with("\n\n{\"k\": 1}"), "{out:?}");
}

#[tokio::test]
async fn same_host_redirects_are_followed() {
    let port = serve(
        HashMap::from([
            ("/old".into(), redirect("301 Moved Permanently", "/mid")),
            ("/mid".into(), redirect("302 Found", "/page")),
            ("/page".into(), reply("200 OK", "text/html", PAGE)),
        ]),
        6,
    )
    .await;
    let out = fetch(WebFetchTool::new(), &format!("http://127.0.0.1:{port}/old")).await;
    let landed = format!("http://127.0.0.1:{port}/page");
    assert_eq!(text(&out), answer(&landed, PAGE_MD));
}

#[tokio::test]
async fn cross_host_redirect_is_reported_not_followed() {
    // Never contacted: a redirect to another host is only reported.
    let target = "http://example.invalid/elsewhere".to_string();
    let original = serve_one("/go", redirect("301 Moved Permanently", &target)).await;
    let out = fetch(WebFetchTool::new(), &original).await;
    assert!(!out.is_error);
    assert_eq!(
        text(&out),
        format!(
            "REDIRECT DETECTED: The URL redirects to a different host.\n\nOriginal URL: {original}\nRedirect URL: {target}\nStatus: 301 Moved Permanently\n\nTo complete your request, I need to fetch content from the redirected URL. Please use WebFetch again with these parameters:\n- url: \"{target}\"\n- prompt: \"What is it about?\""
        )
    );
}

#[tokio::test]
async fn redirect_loops_stop() {
    let port = serve(
        HashMap::from([("/loop".into(), redirect("302 Found", "/loop"))]),
        20,
    )
    .await;
    let url = format!("http://127.0.0.1:{port}/loop");
    let out = fetch(WebFetchTool::new(), &url).await;
    assert!(out.is_error);
    assert_eq!(
        text(&out),
        format!("Too many redirects (more than 10) starting at {url}")
    );
}

#[tokio::test]
async fn non_http_schemes_and_bad_urls_are_refused() {
    let t = Tree::new();
    let ctx = t.ctx("");
    let tool = builtin("WebFetch");
    let refusal = async |url: &str| {
        let input = json!({"url": url, "prompt": "p"});
        run(&tool, &ctx, input).await.unwrap_refusal()
    };
    assert_eq!(
        refusal("ftp://example.com/x").await,
        "Unsupported URL scheme \"ftp:\". WebFetch fetches http:// and https:// URLs only."
    );
    let err = refusal("file:///etc/passwd").await;
    assert!(err.starts_with("Unsupported URL scheme \"file:\""), "{err}");
    assert_eq!(
        refusal("not a url").await,
        "Invalid URL \"not a url\". The URL provided could not be parsed."
    );
}

#[tokio::test]
async fn body_is_capped_at_the_download_limit() {
    let url = serve_one("/big", reply("200 OK", "text/plain", "a".repeat(10_000))).await;
    let tool = WebFetchTool::with_limits(Duration::from_secs(10), 1_024);
    let out = fetch(tool, &url).await;
    let kept = "a".repeat(1_024);
    let note = "[Download stopped at the size limit; the rest of the response was not read.]";
    assert_eq!(text(&out), answer(&url, &format!("{kept}\n\n{note}")));
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    assert_times_out(&serve_one("/hang", None).await).await;
}

#[tokio::test]
async fn http_errors_and_binary_content_are_errors() {
    let port = serve(
        HashMap::from([(
            "/img".into(),
            reply("200 OK", "image/png", b"\x89PNG\r\n\x1a\n".to_vec()),
        )]),
        4,
    )
    .await;
    let out = fetch(
        WebFetchTool::new(),
        &format!("http://127.0.0.1:{port}/missing"),
    )
    .await;
    assert!(out.is_error);
    assert_eq!(text(&out), "Request failed with status code 404");
    let url = format!("http://127.0.0.1:{port}/img");
    let out = fetch(WebFetchTool::new(), &url).await;
    assert!(out.is_error);
    assert_eq!(
        text(&out),
        format!(
            "WebFetch cannot read binary content (Content-Type: image/png) from {url}. It reads HTML, text and JSON."
        )
    );
}

#[tokio::test]
async fn declares_itself_read_only_concurrency_safe_and_networked() {
    let t = Tree::new();
    let ctx = t.ctx("");
    let tool = builtin("WebFetch");
    assert_eq!(tool.input_schema()["required"], json!(["url", "prompt"]));
    // The network fact is the URL as fetched; the subject, as sent.
    let table = [
        ("http://example.com", "http://example.com/"),
        (" https://example.com/a?b=1 ", "https://example.com/a?b=1"),
        ("not a url", "not a url"),
    ];
    for (sent, fetched) in table {
        assert_eq!(
            facts(&tool, &ctx, &json!({"url": sent, "prompt": "p"})),
            CallFacts {
                read_only: true,
                concurrency_safe: true,
                network: Some(fetched.into()),
                subject: sent.into(),
                ..CallFacts::default()
            },
            "{sent}"
        );
    }
}

#[tokio::test]
async fn content_over_100_000_chars_is_cut_with_a_note() {
    let body = format!("{}{}", "é".repeat(100_000), "TAIL");
    let url = serve_one("/long", reply("200 OK", "text/plain", body)).await;
    let out = fetch(WebFetchTool::new(), &url).await;
    assert!(!out.is_error);
    // Chars, not bytes: 100,000 two-byte chars are kept whole; without a
    // side query the window itself is the result, with Claude Code's note.
    let kept = "é".repeat(100_000);
    let note = "[WebFetch note: this page's text is 100004 characters long and the answer above covers only characters 0 to 100000; the final 4 were not read \u{2014} to read on, call WebFetch again with the same url and offset: 100000.]";
    assert_eq!(text(&out), answer(&url, &format!("{kept}\n\n{note}")));
}

#[tokio::test]
async fn a_body_that_stalls_after_the_headers_times_out() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let Ok((mut sock, _)) = listener.accept().await else {
            return;
        };
        let mut buf = [0u8; 1024];
        let _ = sock.read(&mut buf).await;
        let _ = sock
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\npartial...")
            .await;
        // Promise 1,000 bytes, send 10, then go quiet.
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    assert_times_out(&format!("http://127.0.0.1:{port}/slow")).await;
}

/// Without an allowed host, every spelling of the local server is refused
/// before a byte is sent: the literal, a name resolving to it, the
/// IPv4-mapped IPv6 form and the decimal integer form.
#[tokio::test]
async fn local_addresses_are_refused_unless_allowed() {
    let url = serve_one("/page", reply("200 OK", "text/html", PAGE)).await;
    for target in [
        url.clone(),
        url.replace("127.0.0.1", "localhost"),
        url.replace("127.0.0.1", "[::ffff:127.0.0.1]"),
        url.replace("127.0.0.1", "2130706433"),
    ] {
        let t = Tree::new();
        let out = output(
            run(
                &typed(WebFetchTool::new()),
                &t.ctx(""),
                json!({"url": target, "prompt": "What is it about?"}),
            )
            .await,
        );
        assert!(out.is_error, "{target}: {out:?}");
        assert!(
            text(&out).contains("Refusing to fetch"),
            "{target}: {}",
            text(&out)
        );
        assert!(!text(&out).contains("Hello"), "{target}");
    }
    // The server was never reached: its two connections are still there.
    assert_eq!(
        text(&fetch(WebFetchTool::new(), &url).await),
        answer(&url, PAGE_MD)
    );
}

/// A page is downloaded once per session and read on from the cache
/// (Claude Code keeps pages 15 minutes): the server takes one connection,
/// so a second download would be refused.
#[tokio::test]
async fn reading_on_with_offset_uses_the_cached_page() {
    let body = format!("{}TAIL", "a".repeat(100_000));
    let routes = HashMap::from([("/p".to_string(), reply("200 OK", "text/plain", body))]);
    let port = serve(routes, 1).await;
    let url = format!("http://127.0.0.1:{port}/p");
    let t = Tree::new();
    let ctx = t.ctx("");
    AllowedHosts::allow(&ctx, ["127.0.0.1".to_string()]);
    let tool = typed(WebFetchTool::new());
    let first = output(run(&tool, &ctx, json!({"url": url, "prompt": "p"})).await);
    assert!(
        text(&first).ends_with("offset: 100000.]"),
        "{}",
        text(&first)
    );
    let input = json!({"url": url, "prompt": "p", "offset": 100_000});
    let rest = output(run(&tool, &ctx, input).await);
    assert_eq!(text(&rest), format!("Prompt: p\nURL: {url}\n\nTAIL"));
}
