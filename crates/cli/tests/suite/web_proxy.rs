//! WebFetch through an HTTP proxy with the address guard still deciding
//! (issue 36): orbit resolves and checks the target, then asks the proxy
//! for `CONNECT <checked ip>:<port>` — never the host name — while the
//! page still gets the name as `Host`; a local address, or a name orbit
//! cannot resolve, is refused before the proxy hears anything.

use std::io::Write;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use super::network::{RecordingProxy, TlsServer, make_certs, webfetch_run};
use super::web_fetch_prompt::read_head;

const PAGE: &str = "tunnelled page 51c2";

/// A page server on 127.0.0.1 that records each request's `Host`.
fn host_recording_server() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hosts = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&hosts);
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let head = read_head(&mut stream);
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

/// What WebFetch said about `url` with `HTTP_PROXY` set (the model's own
/// traffic direct, so the proxy sees WebFetch's alone).
fn fetch_through(proxy: &RecordingProxy, url: &str, allow: &str) -> String {
    let proxy_url = proxy.url();
    let env = [
        ("HTTP_PROXY", proxy_url.as_str()),
        ("NO_PROXY", "127.0.0.1"),
        ("ORBIT_WEBFETCH_ALLOW_HOSTS", allow),
    ];
    let (_server, said, code, stderr) = webfetch_run(url, &env);
    assert_eq!(code, 0, "{stderr}");
    said
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
    for (url, needle) in super::network::refused_targets(port) {
        let said = fetch_through(&proxy, &url, "");
        assert!(said.contains(needle), "{url}: {said}");
    }
    assert_eq!(proxy.seen(), Vec::<String>::new());
    assert!(hosts.lock().unwrap().is_empty());
}

/// HTTPS through the proxy: the tunnel goes to the checked address, while
/// TLS still names the host (SNI and the certificate check: the test CA's
/// certificate is for `localhost` only).
#[test]
fn https_through_the_proxy_keeps_the_name_for_tls() {
    let certs = tempfile::tempdir().unwrap();
    make_certs(certs.path());
    let server = TlsServer::start(certs.path(), &[]);
    let port = server.0.port;
    let proxy = RecordingProxy::start();
    let proxy_url = proxy.url();
    let ca = certs.path().join("ca.pem").display().to_string();
    let env = [
        ("HTTPS_PROXY", proxy_url.as_str()),
        ("NO_PROXY", "127.0.0.1"),
        ("ORBIT_WEBFETCH_ALLOW_HOSTS", "localhost"),
        ("NODE_EXTRA_CA_CERTS", ca.as_str()),
    ];
    let url = format!("https://localhost:{port}/page.txt");
    let (_server, said, code, stderr) = webfetch_run(&url, &env);
    assert_eq!(code, 0, "{stderr}");
    assert!(said.contains("tls page 5c2e"), "{said}");
    assert_eq!(
        proxy.seen(),
        vec![format!("CONNECT 127.0.0.1:{port} HTTP/1.1")]
    );
}
