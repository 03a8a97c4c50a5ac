//! Proxied WebFetch with the address guard still deciding: orbit resolves
//! and checks the target itself, then asks the HTTP proxy for
//! `CONNECT <checked ip>:<port>` — the proxy never resolves the name, so
//! it cannot be steered to an address the guard refused (DNS rebinding
//! between orbit's lookup and the proxy's).
//!
//! Flow: [`proxy_for`] picks the proxy of a URL from `HTTPS_PROXY` /
//! `HTTP_PROXY` / `ALL_PROXY` (upper or lower case) unless `NO_PROXY`
//! names the host; only `http://` proxies are tunnelled here (an
//! `https://` or SOCKS proxy is left to the HTTP client, the name checked
//! first). [`Relay::open`] sends the first `CONNECT` at once, to each
//! checked address in turn until the proxy reaches one (a refusal is
//! reported with the proxy's status line), then listens on
//! 127.0.0.1:0 and joins each connection the HTTP client makes to a
//! tunnel of its own. The client reaches the relay by a resolve override
//! for the host name, so TLS SNI, certificate checks and `Host` stay the
//! name's (`super::fetch` builds that client). The relay stops when
//! dropped (after the response is read).

use std::net::SocketAddr;
use std::time::Duration;

use base64::Engine;
use reqwest::Url;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// Longest proxy answer head read before giving up, in bytes.
const MAX_CONNECT_REPLY_BYTES: usize = 8 * 1024;
/// Time to connect to the proxy and hear its answer, in milliseconds.
const CONNECT_TIMEOUT_MS: u64 = 10_000;

/// The `http://` proxy that `url` goes through, if any.
pub(crate) fn proxy_for(url: &Url) -> Option<Url> {
    proxy_from(url, |name| std::env::var(name).ok())
}

/// [`proxy_for`] with an injectable variable lookup.
pub(crate) fn proxy_from(url: &Url, var: impl Fn(&str) -> Option<String>) -> Option<Url> {
    let get = |name: &str| {
        var(name)
            .or_else(|| var(&name.to_ascii_lowercase()))
            .filter(|v| !v.trim().is_empty())
    };
    let host = url
        .host_str()?
        .trim_start_matches('[')
        .trim_end_matches(']');
    if let Some(list) = get("NO_PROXY")
        && no_proxy_matches(&list, host)
    {
        return None;
    }
    let scheme_var = if url.scheme() == "https" {
        "HTTPS_PROXY"
    } else {
        "HTTP_PROXY"
    };
    let raw = get(scheme_var).or_else(|| get("ALL_PROXY"))?;
    let raw = raw.trim();
    let with_scheme = if raw.contains("://") {
        raw.to_string()
    } else {
        format!("http://{raw}")
    };
    Url::parse(&with_scheme)
        .ok()
        .filter(|p| p.scheme() == "http" && p.host_str().is_some())
}

/// Whether the `NO_PROXY` list names `host` (`*`, the host, or a parent
/// domain with or without a leading dot).
fn no_proxy_matches(list: &str, host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    list.split(',')
        .map(|e| e.trim().trim_start_matches("*.").trim_start_matches('.'))
        .map(str::to_ascii_lowercase)
        .filter(|e| !e.is_empty())
        .any(|e| e == "*" || host == e || host.ends_with(&format!(".{e}")))
}

/// A local end of tunnels through the proxy to one checked address.
pub(crate) struct Relay {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Relay {
    /// Opens the first tunnel through `proxy` to the first of `targets`
    /// (checked addresses, in resolver order) the proxy reaches — the last
    /// refusal is the `Err` text — and starts relaying to that address.
    pub(crate) async fn open(proxy: &Url, targets: &[SocketAddr]) -> Result<Self, String> {
        let mut refusal = String::from("no address to connect to");
        let mut opened = None;
        for target in targets {
            match connect_tunnel(proxy, *target).await {
                Ok(stream) => {
                    opened = Some((stream, *target));
                    break;
                }
                Err(e) => refusal = e,
            }
        }
        let (first, target) = opened.ok_or(refusal)?;
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| format!("cannot open a local relay: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot open a local relay: {e}"))?;
        let proxy = proxy.clone();
        let task = tokio::spawn(async move {
            let mut first = Some(first);
            while let Ok((mut inbound, _)) = listener.accept().await {
                let tunnel = match first.take() {
                    Some(tunnel) => Ok(tunnel),
                    None => connect_tunnel(&proxy, target).await,
                };
                // A failed tunnel closes the client's connection.
                let Ok(mut tunnel) = tunnel else { continue };
                tokio::spawn(async move {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut tunnel).await;
                });
            }
        });
        Ok(Self { addr, task })
    }

    /// Where the HTTP client connects.
    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }
}

/// A connection to `proxy` that answered `CONNECT target` with 2xx.
async fn connect_tunnel(proxy: &Url, target: SocketAddr) -> Result<TcpStream, String> {
    let host = proxy.host_str().unwrap_or_default();
    let port = proxy.port_or_known_default().unwrap_or(80);
    let work = async {
        let mut stream = TcpStream::connect((host, port))
            .await
            .map_err(|e| format!("cannot reach the proxy {host}:{port}: {e}"))?;
        let mut head = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n");
        if !proxy.username().is_empty() {
            let user = percent_decode(proxy.username());
            let pass = percent_decode(proxy.password().unwrap_or_default());
            let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"));
            head.push_str(&format!("Proxy-Authorization: Basic {token}\r\n"));
        }
        head.push_str("\r\n");
        stream
            .write_all(head.as_bytes())
            .await
            .map_err(|e| format!("the proxy {host}:{port} closed the connection: {e}"))?;
        let status = read_reply_head(&mut stream).await?;
        let code = status.split_whitespace().nth(1).unwrap_or_default();
        if code.starts_with('2') {
            Ok(stream)
        } else {
            Err(format!("the proxy refused CONNECT {target}: {status}"))
        }
    };
    tokio::time::timeout(Duration::from_millis(CONNECT_TIMEOUT_MS), work)
        .await
        .unwrap_or_else(|_| Err(format!("the proxy {host}:{port} did not answer CONNECT")))
}

/// Reads the proxy's answer head (to its blank line) and returns its
/// status line; nothing after the head is read.
async fn read_reply_head(stream: &mut TcpStream) -> Result<String, String> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let n = stream
            .read(&mut byte)
            .await
            .map_err(|e| format!("the proxy's answer could not be read: {e}"))?;
        if n == 0 || head.len() >= MAX_CONNECT_REPLY_BYTES {
            return Err("the proxy closed the connection without answering CONNECT".into());
        }
        head.push(byte[0]);
    }
    let text = String::from_utf8_lossy(&head);
    Ok(text.lines().next().unwrap_or_default().trim().to_string())
}

/// `%XX` escapes of a URL's user info decoded.
fn percent_decode(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::web_fetch::test_url;

    #[test]
    fn the_proxy_follows_the_scheme_and_no_proxy() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let env = vars(&[
            ("HTTPS_PROXY", "http://p:3128"),
            ("http_proxy", "p2:8080"),
            ("NO_PROXY", "internal.example, .corp"),
        ]);
        let of = |u: &str| proxy_from(&test_url(u), env).map(String::from);
        assert_eq!(of("https://docs.rs/x"), Some("http://p:3128/".into()));
        assert_eq!(of("http://docs.rs/x"), Some("http://p2:8080/".into()));
        assert_eq!(of("https://internal.example/"), None);
        assert_eq!(of("https://a.internal.example/"), None);
        assert_eq!(of("https://x.corp/"), None);
        let https_proxy = vars(&[("HTTPS_PROXY", "https://p:3128")]);
        assert_eq!(proxy_from(&test_url("https://docs.rs/"), https_proxy), None);
        let none = vars(&[]);
        assert_eq!(proxy_from(&test_url("https://docs.rs/"), none), None);
    }

    #[test]
    fn user_info_is_decoded() {
        assert_eq!(percent_decode("a%40b%3Ac"), "a@b:c");
        assert_eq!(percent_decode("100%"), "100%");
    }
}
