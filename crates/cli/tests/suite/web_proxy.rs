//! WebFetch through an HTTP proxy with the address guard still deciding
//! (issue 36): orbit resolves and checks the target, then asks the proxy
//! for `CONNECT <checked ip>:<port>` — never the host name — while the
//! page still gets the name as `Host`; a local address, or a name orbit
//! cannot resolve, is refused before the proxy hears anything.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::json;

use super::common::{Scratch, orbit_with_env, run, tool_results_text};
use super::network::RecordingProxy;

const PAGE: &str = "tunnelled page 51c2";

/// A page server on 127.0.0.1 that records each request's `Host`.
fn host_recording_server() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hosts = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&hosts);
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let head = String::from_utf8_lossy(&head).to_string();
            let host = head
                .lines()
                .find_map(|l| {
                    l.strip_prefix("host: ")
                        .or_else(|| l.strip_prefix("Host: "))
                })
                .unwrap_or_default()
                .to_string();
            seen.lock().unwrap().push(host);
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{PAGE}",
                PAGE.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    (port, hosts)
}

/// `orbit -p` whose model fetches `url` with `HTTP_PROXY` set; returns
/// what the tool said.
fn fetch_through(proxy: &RecordingProxy, url: &str, allow: &str) -> String {
    let server = FakeAnthropic::start(vec![
        Reply::tool_use(
            "toolu_1",
            "WebFetch",
            json!({"url": url, "prompt": "what is it?"}),
        ),
        Reply::text("done"),
    ]);
    server.serve_side_requests(Vec::new());
    let scratch = Scratch::new();
    let mut vars = server.env();
    vars.push(("HTTP_PROXY".into(), proxy.url()));
    // The model's own traffic goes direct: the proxy sees WebFetch alone.
    vars.push(("NO_PROXY".into(), "127.0.0.1".into()));
    vars.push(("ORBIT_WEBFETCH_ALLOW_HOSTS".into(), allow.into()));
    let mut cmd = orbit_with_env(&scratch, &vars);
    cmd.args(["-p", "go", "--allowedTools", "WebFetch"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    tool_results_text(&server.requests()[1].body)
}

#[test]
fn the_proxy_is_asked_for_the_checked_address_not_the_name() {
    let proxy = RecordingProxy::start();
    let (port, hosts) = host_recording_server();
    let said = fetch_through(&proxy, &format!("http://localhost:{port}/doc"), "localhost");
    assert!(said.contains(PAGE), "{said}");
    let seen = proxy.seen();
    assert!(
        seen.iter().all(|l| l.starts_with("CONNECT ")),
        "only tunnels: {seen:?}"
    );
    assert!(
        seen.contains(&format!("CONNECT 127.0.0.1:{port} HTTP/1.1")),
        "the checked address: {seen:?}"
    );
    assert!(!seen.iter().any(|l| l.contains("localhost")), "{seen:?}");
    assert_eq!(*hosts.lock().unwrap(), vec![format!("localhost:{port}")]);
}

#[test]
fn local_and_unresolvable_targets_never_reach_the_proxy() {
    let proxy = RecordingProxy::start();
    let (port, hosts) = host_recording_server();
    for (url, needle) in [
        (
            format!("http://127.0.0.1:{port}/secret"),
            "Refusing to fetch",
        ),
        (
            format!("http://localhost:{port}/secret"),
            "Refusing to fetch",
        ),
        ("http://no-such-host.invalid/".to_string(), "Cannot resolve"),
    ] {
        let said = fetch_through(&proxy, &url, "");
        assert!(said.contains(needle), "{url}: {said}");
    }
    assert_eq!(proxy.seen(), Vec::<String>::new());
    assert!(hosts.lock().unwrap().is_empty());
}
