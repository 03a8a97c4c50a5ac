//! Networks (issue 36): the lazy TLS stack (no certificate read for an
//! `http://` run, seen with strace), and proxies (a recording HTTP proxy on
//! 127.0.0.1 sees the model's and WebFetch's traffic; WebFetch's address
//! guard still decides for proxied requests).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::json;

use super::common::{PortServer, Scratch, orbit_with_env, run, tool_results_text};

/// A forwarding HTTP proxy on 127.0.0.1 that records the first request
/// line of every connection (absolute-form `GET http://…` or `CONNECT`).
pub(super) struct RecordingProxy {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
}

impl RecordingProxy {
    pub(super) fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let log = Arc::clone(&log);
                std::thread::spawn(move || relay(client, &log));
            }
        });
        Self { port, seen }
    }

    pub(super) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub(super) fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

/// Reads the request head, connects to its target, then copies bytes both
/// ways (the fake server accepts absolute-form request lines).
fn relay(client: TcpStream, log: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(client.try_clone().unwrap());
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        head.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let request_line = head.lines().next().unwrap_or_default().to_string();
    log.lock().unwrap().push(request_line.clone());
    let mut parts = request_line.split(' ');
    let method = parts.next().unwrap_or_default();
    let target = parts.next().unwrap_or_default();
    let authority = target
        .strip_prefix("http://")
        .unwrap_or(target)
        .split('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let Ok(mut upstream) = TcpStream::connect(&authority) else {
        return;
    };
    let mut client_write = client;
    if method == "CONNECT" {
        let _ = client_write.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n");
    } else {
        let _ = upstream.write_all(head.as_bytes());
    }
    // What the reader buffered past the head belongs to the upstream.
    let buffered = reader.buffer().to_vec();
    let _ = upstream.write_all(&buffered);
    let mut up_read = upstream.try_clone().unwrap();
    let mut inner = reader.into_inner();
    let mut up_write = upstream;
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut inner, &mut up_write);
    });
    let mut buf = [0u8; 8192];
    while let Ok(n) = up_read.read(&mut buf) {
        if n == 0 || client_write.write_all(&buf[..n]).is_err() {
            break;
        }
    }
}

/// A local page server answering every GET with `PAGE`.
const PAGE: &str = "proxied page 7f3a";

fn page_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let response = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{PAGE}",
                PAGE.len()
            );
            let _ = stream.write_all(response.as_bytes());
        }
    });
    port
}

pub(super) fn webfetch_run(
    url: &str,
    env: &[(&str, &str)],
) -> (FakeAnthropic, String, i32, String) {
    let server = FakeAnthropic::start(vec![
        Reply::tool_use(
            "toolu_1",
            "WebFetch",
            json!({"url": url, "prompt": "what is it?"}),
        ),
        Reply::text("done"),
    ]);
    // WebFetch's prompt is answered by a side request, outside the script.
    server.serve_side_requests(Vec::new());
    let scratch = Scratch::new();
    let mut vars = server.env();
    vars.extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let mut cmd = orbit_with_env(&scratch, &vars);
    cmd.args(["-p", "go", "--allowedTools", "WebFetch"]);
    let out = run(cmd);
    let said = server
        .requests()
        .get(1)
        .map(|r| tool_results_text(&r.body))
        .unwrap_or_default();
    (server, said, out.code, out.stderr)
}

/// The model's request and an allowed WebFetch both pass through
/// `HTTP_PROXY`; the page arrives.
#[test]
fn model_and_webfetch_traffic_goes_through_the_proxy() {
    let proxy = RecordingProxy::start();
    let port = page_server();
    let url = format!("http://127.0.0.1:{port}/doc");
    let (server, said, code, stderr) = webfetch_run(
        &url,
        &[
            ("HTTP_PROXY", &proxy.url()),
            ("ORBIT_WEBFETCH_ALLOW_HOSTS", "127.0.0.1"),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(said.contains(PAGE), "{said}");
    let seen = proxy.seen();
    let model = format!("POST {}/v1/messages", server.base_url());
    assert!(seen.iter().any(|l| l.starts_with(&model)), "{seen:?}");
    // WebFetch tunnels to the address it checked (suite::web_proxy).
    assert!(
        seen.iter()
            .any(|l| l.starts_with(&format!("CONNECT 127.0.0.1:{port} "))),
        "{seen:?}"
    );
}

/// Targets WebFetch refuses before any connection, each with what its
/// answer says: a loopback name and a loopback address of `port`, and a
/// name that does not resolve.
pub(super) fn refused_targets(port: u16) -> [(String, &'static str); 3] {
    [
        (
            format!("http://localhost:{port}/secret"),
            "Refusing to fetch",
        ),
        (
            format!("http://127.0.0.1:{port}/secret"),
            "Refusing to fetch",
        ),
        ("http://no-such-host.invalid/".to_string(), "Cannot resolve"),
    ]
}

/// A host name of a local address is refused before anything reaches the
/// proxy (which would resolve it past the guard); so is a name that does
/// not resolve.
#[test]
fn webfetch_through_the_proxy_still_refuses_local_names() {
    let proxy = RecordingProxy::start();
    let port = page_server();
    for (url, needle) in refused_targets(port) {
        let (_server, said, code, stderr) = webfetch_run(&url, &[("HTTP_PROXY", &proxy.url())]);
        assert_eq!(code, 0, "{stderr}");
        assert!(said.contains(needle), "{url}: {said}");
        assert!(!said.contains(PAGE), "{url}: {said}");
        let seen = proxy.seen();
        assert!(
            !seen
                .iter()
                .any(|l| l.starts_with("GET ") || l.starts_with("CONNECT ")),
            "{url}: {seen:?}"
        );
    }
}

/// `strace` of `orbit -p hi` against an `http://` base URL: no file under
/// /etc/ssl is opened (WebFetch's client is built on the first fetch).
#[test]
fn an_http_run_reads_no_certificate() {
    let server = FakeAnthropic::start(vec![Reply::text("hello")]);
    let scratch = Scratch::new();
    let trace = scratch.path().join("strace.txt");
    let mut cmd = assert_cmd::Command::new("strace");
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", scratch.home())
        .env("ORBIT_HOME", scratch.home().join(".orbit"))
        .current_dir(scratch.path())
        .envs(server.env())
        .args(["-f", "-e", "trace=%file", "-o"])
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_orbit"))
        .args(["-p", "hi"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("hello"), "{}", out.stdout);
    let text = std::fs::read_to_string(&trace).unwrap();
    let ssl: Vec<&str> = text.lines().filter(|l| l.contains("/etc/ssl")).collect();
    assert!(
        ssl.is_empty(),
        "{} lines under /etc/ssl:\n{}",
        ssl.len(),
        ssl.join("\n")
    );
    assert!(text.lines().count() > 5, "strace saw nothing: {text}");
}

/// A CA and a `localhost` certificate it signed, made with openssl in
/// `dir`, plus `page.txt` for `openssl s_server -WWW`.
pub(super) fn make_certs(dir: &std::path::Path) {
    let script = r#"set -e
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=orbit-test-ca -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout leaf.key -out leaf.csr -subj /CN=localhost 2>/dev/null
printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > ext
openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out leaf.pem -days 2 -extfile ext 2>/dev/null
printf 'tls page 5c2e' > page.txt
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout client.key -out client.csr -subj /CN=orbit-client 2>/dev/null
printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n' > cext
openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 2 -extfile cext 2>/dev/null
openssl pkcs8 -topk8 -in client.key -out client-enc.key -v2 aes-256-cbc -passout pass:orbit-pass 2>/dev/null
"#;
    let status = std::process::Command::new("sh")
        .args(["-c", script])
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success());
}

/// `openssl s_server` on a free port serving `dir`; killed on drop.
pub(super) struct TlsServer(pub(super) PortServer);

impl TlsServer {
    pub(super) fn start(dir: &std::path::Path, extra: &[&str]) -> Self {
        Self(PortServer::start(
            "s_server",
            std::time::Duration::from_secs(10),
            |port| {
                let mut cmd = std::process::Command::new("openssl");
                cmd.args([
                    "s_server", "-4", "-quiet", "-WWW", "-cert", "leaf.pem", "-key", "leaf.key",
                ])
                .args(["-accept", &port.to_string()])
                .args(extra)
                .current_dir(dir)
                .stdin(std::process::Stdio::null());
                cmd
            },
        ))
    }
}

/// WebFetch over TLS to a server whose CA is not in the system store:
/// refused by default; fetched with `NODE_EXTRA_CA_CERTS` (added to the
/// store) or `SSL_CERT_FILE` (the store replaced) naming the CA.
#[test]
fn extra_and_replaced_trust_stores() {
    let certs = tempfile::tempdir().unwrap();
    make_certs(certs.path());
    let server = TlsServer::start(certs.path(), &[]);
    let url = format!("https://localhost:{}/page.txt", server.0.port);
    let ca = certs.path().join("ca.pem").display().to_string();
    let allow = ("ORBIT_WEBFETCH_ALLOW_HOSTS", "localhost");
    let (_s, said, code, stderr) = webfetch_run(&url, &[allow]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!said.contains("tls page 5c2e"), "{said}");
    assert!(said.to_lowercase().contains("certificate"), "{said}");
    for var in ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE"] {
        let (_s, said, code, stderr) = webfetch_run(&url, &[allow, (var, &ca)]);
        assert_eq!(code, 0, "{stderr}");
        assert!(said.contains("tls page 5c2e"), "{var}: {said}");
    }
}

/// A server that requires a client certificate: WebFetch without one
/// fails the handshake; with `CLAUDE_CODE_CLIENT_CERT`/`_KEY` it gets the
/// page, and with an encrypted key only given its passphrase.
#[test]
fn mutual_tls_with_a_client_certificate() {
    let certs = tempfile::tempdir().unwrap();
    make_certs(certs.path());
    let server = TlsServer::start(certs.path(), &["-Verify", "1", "-CAfile", "ca.pem"]);
    let url = format!("https://localhost:{}/page.txt", server.0.port);
    let path = |name: &str| certs.path().join(name).display().to_string();
    let (ca, cert, key) = (path("ca.pem"), path("client.pem"), path("client.key"));
    let base = [
        ("ORBIT_WEBFETCH_ALLOW_HOSTS", "localhost"),
        ("NODE_EXTRA_CA_CERTS", ca.as_str()),
    ];
    let (_s, said, code, stderr) = webfetch_run(&url, &base);
    assert_eq!(code, 0, "{stderr}");
    assert!(!said.contains("tls page 5c2e"), "{said}");
    let mut with_cert = base.to_vec();
    with_cert.extend([
        ("CLAUDE_CODE_CLIENT_CERT", cert.as_str()),
        ("CLAUDE_CODE_CLIENT_KEY", key.as_str()),
    ]);
    let (_s, said, code, stderr) = webfetch_run(&url, &with_cert);
    assert_eq!(code, 0, "{stderr}");
    assert!(said.contains("tls page 5c2e"), "{said}");
    // An encrypted key (PKCS#8, AES-256-CBC) opens with its passphrase
    // (`CLAUDE_CODE_CLIENT_KEY_PASSPHRASE`); a wrong one leaves the
    // certificate unused.
    let encrypted = path("client-enc.key");
    for (passphrase, fetched) in [("orbit-pass", true), ("wrong", false)] {
        let mut env = with_cert.clone();
        env.extend([
            ("CLAUDE_CODE_CLIENT_KEY", encrypted.as_str()),
            ("CLAUDE_CODE_CLIENT_KEY_PASSPHRASE", passphrase),
        ]);
        let (_s, said, code, stderr) = webfetch_run(&url, &env);
        assert_eq!(code, 0, "{stderr}");
        let got = said.contains("tls page 5c2e");
        assert_eq!(got, fetched, "passphrase {passphrase}: {said}");
    }
}
