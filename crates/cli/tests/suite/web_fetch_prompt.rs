//! WebFetch's `prompt` answered by the small fast model and its `offset`
//! (issue 35; DESIGN §11), through the binary against the fake Messages
//! API: the side request carries the page framed as Claude Code 2.1.332
//! frames it and the catalog's small fast model; the tool_result is the
//! side model's answer, plus Claude Code's note naming the next `offset`
//! when the page is longer than one window.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpListener;

use orbit_test_support::anthropic::side::SIDE_ANSWER_PREFIX;
use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::{Value, json};

use super::common::{Scratch, first_user_text, orbit_with_env, run, tool_results_text};

/// Serves each path's body as `text/html` on 127.0.0.1 (any number of
/// requests); returns `http://127.0.0.1:PORT`.
pub fn serve_pages(pages: &[(&str, String)]) -> String {
    let pages: HashMap<String, String> = pages
        .iter()
        .map(|(path, body)| (path.to_string(), body.clone()))
        .collect();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let head = read_head(&mut stream);
            let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
            let (status, body) = match pages.get(&path) {
                Some(body) => ("200 OK", body.as_str()),
                None => ("404 Not Found", "no such page"),
            };
            let reply = format!(
                "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    format!("http://127.0.0.1:{port}")
}

/// A request's head (to its blank line), read byte by byte so nothing
/// past it is consumed.
pub fn read_head(stream: &mut impl Read) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
        head.push(byte[0]);
    }
    String::from_utf8_lossy(&head).into_owned()
}

const README: &str = "<html><head><title>Widget</title><script>var x = 1;</script></head>\
<body><h1>Widget</h1><p>Widget is a tool.</p><h2>Installation</h2>\
<p>Run <code>make install</code> then <code>widget init</code>.</p></body></html>";

/// Runs `orbit -p` whose model calls WebFetch with each input in turn;
/// side requests are answered by the fake. Returns the server.
fn fetch_run(inputs: &[Value], env: &[(&str, &str)]) -> FakeAnthropic {
    let mut replies: Vec<Reply> = inputs
        .iter()
        .enumerate()
        .map(|(i, input)| Reply::tool_use(format!("toolu_{i}"), "WebFetch", input.clone()))
        .collect();
    replies.push(Reply::text("done"));
    let server = FakeAnthropic::start(replies);
    server.serve_side_requests(Vec::new());
    let scratch = Scratch::new();
    let mut vars = server.env();
    vars.push(("ORBIT_WEBFETCH_ALLOW_HOSTS".into(), "127.0.0.1".into()));
    vars.extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let mut cmd = orbit_with_env(&scratch, &vars);
    cmd.args(["-p", "read the docs", "--allowedTools", "WebFetch"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    server
}

/// The tool_result the model got for the `n`-th call (0-based).
fn result_of_call(server: &FakeAnthropic, n: usize) -> String {
    tool_results_text(&server.requests()[n + 1].body)
}

#[test]
fn the_prompt_is_answered_by_the_small_fast_model_over_the_page() {
    let base = serve_pages(&[("/README", README.to_string())]);
    let url = format!("{base}/README");
    let prompt = "What does it say about installation?";
    let server = fetch_run(&[json!({"url": url, "prompt": prompt})], &[]);
    let side = server.side_requests();
    assert_eq!(side.len(), 1, "one side request");
    let body = &side[0].body;
    let model = body["model"].as_str().unwrap_or_default();
    assert!(model.contains("haiku"), "the small fast model: {model}");
    assert!(body.get("tools").is_none(), "no tools: {body}");
    let asked = first_user_text(body);
    assert!(
        asked.starts_with("\nWeb page content:\n---\n"),
        "Claude Code's framing: {asked}"
    );
    assert!(
        asked.contains("## Installation\n\nRun `make install` then `widget init`.\n---\n\nWhat does it say about installation?\n\nProvide a concise response based only on the content above."),
        "the page as markdown, then the prompt: {asked}"
    );
    assert!(!asked.contains("var x"), "no script: {asked}");
    // The model receives the side model's answer, not the page.
    let result = result_of_call(&server, 0);
    assert_eq!(result, format!("{SIDE_ANSWER_PREFIX}{asked}").trim());
    assert!(!result.contains("Prompt: "), "{result}");
}

#[test]
fn the_side_model_is_the_configured_small_fast_model() {
    let base = serve_pages(&[("/README", README.to_string())]);
    let input = json!({"url": format!("{base}/README"), "prompt": "install?"});
    let server = fetch_run(&[input], &[("ANTHROPIC_SMALL_FAST_MODEL", "claude-tiny-1")]);
    let side = server.side_requests();
    assert_eq!(side.len(), 1);
    assert_eq!(side[0].body["model"], "claude-tiny-1");
}

#[test]
fn a_long_page_is_read_on_with_offset() {
    let paragraph = "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>";
    let body = format!(
        "<html><body>{}<h2>Tail</h2><p>TAIL-MARKER</p></body></html>",
        paragraph.repeat(2_500)
    );
    let base = serve_pages(&[("/long", body)]);
    let url = format!("{base}/long");
    let server = fetch_run(
        &[
            json!({"url": url, "prompt": "find the tail"}),
            json!({"url": url, "prompt": "find the tail", "offset": 100_000}),
            json!({"url": url, "prompt": "find the tail", "offset": 9_000_000}),
        ],
        &[],
    );
    let side = server.side_requests();
    assert_eq!(side.len(), 2, "the past-the-end call asks no model");
    let first = first_user_text(&side[0].body);
    assert!(first.contains("\n\n[Content truncated due to length...]\n---\n\nfind the tail"));
    assert!(!first.contains("TAIL-MARKER"));
    let second = first_user_text(&side[1].body);
    assert!(second.contains("TAIL-MARKER"), "the rest of the page");
    assert!(!second.contains("[Content truncated"));
    let note = result_of_call(&server, 0);
    let total = note
        .split("this page's text is ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("no length in the note: {note}"));
    assert!(total > 100_000 && total < 200_000, "{total}");
    assert!(
        note.ends_with(&format!(
            "\n\n[WebFetch note: this page's text is {total} characters long and the answer above covers only characters 0 to 100000; the final {} were not read \u{2014} to read on, call WebFetch again with the same url and offset: 100000.]",
            total - 100_000
        )),
        "{note}"
    );
    let rest = result_of_call(&server, 1);
    assert!(!rest.contains("WebFetch note"), "{rest}");
    let past = result_of_call(&server, 2);
    assert!(
        past.contains(&format!(
            "offset 9000000 is past the end of the page: its text is {total} characters long."
        )),
        "{past}"
    );
}

/// With the OpenAI provider the side request goes to the same server with
/// the session's own model (the catalog names no small model there).
#[test]
fn the_openai_provider_answers_with_the_session_s_model() {
    use orbit_test_support::fake::Dialect;
    use orbit_test_support::{Completion, FakeOpenAi, OpenAiReply};

    let base = serve_pages(&[("/README", README.to_string())]);
    let url = format!("{base}/README");
    let server = FakeOpenAi::start(vec![
        OpenAiReply::completion(Completion::new().tool_call(
            "call_1",
            "WebFetch",
            json!({"url": url, "prompt": "install?"}),
        )),
        OpenAiReply::completion(Completion::new().text("done")),
    ]);
    server.answer_side_requests(
        std::sync::Arc::new(|body: &Value| body.get("tools").is_none()),
        std::sync::Arc::new(|_, _: &Value| {
            Some(Completion::new().text("Run make install.").render(1))
        }),
    );
    let scratch = Scratch::new();
    let mut vars = server.env();
    vars.push(("ORBIT_WEBFETCH_ALLOW_HOSTS".into(), "127.0.0.1".into()));
    let mut cmd = orbit_with_env(&scratch, &vars);
    cmd.args(["-p", "read the docs", "--allowedTools", "WebFetch"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let side = server.side_requests();
    assert_eq!(side.len(), 1);
    assert_eq!(side[0].body["model"], server.bodies()[0]["model"]);
    let asked = side[0].body["messages"].to_string();
    assert!(asked.contains("make install"), "the page: {asked}");
    let said = server.bodies()[1]["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    assert_eq!(said, "\"Run make install.\"");
}
