//! The network allow list: a small HTTP proxy on 127.0.0.1 in the parent
//! (orbit) process that passes only allowed hosts. Sandboxed commands get
//! `HTTP(S)_PROXY` pointing at it, and Landlock lets their TCP connects
//! reach only its port (`NetworkPolicy::Proxy`), so a client that ignores
//! the variables gets nowhere.
//!
//! Flow per connection (one thread each): read the request head → `CONNECT
//! host:port` (HTTPS and anything tunnelled) or an absolute-URI request
//! (`GET http://host/…`, plain HTTP) → host allowed? → connect upstream,
//! answer `200` for CONNECT or forward the head, then copy bytes both ways
//! until either side closes; a host not allowed gets `403` and nothing is
//! connected.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::thread;

/// Longest request head the proxy reads, in bytes.
const PROXY_MAX_HEAD_BYTES: usize = 16 * 1024;

/// A running proxy.
#[derive(Debug)]
pub struct DomainProxy {
    port: u16,
}

impl DomainProxy {
    /// Starts the proxy on 127.0.0.1 (a free port) for `allowed` hosts:
    /// `example.com` matches that host, `*.example.com` its subdomains.
    /// It runs on its own threads until the process ends.
    pub fn start(allowed: Vec<String>) -> io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let allowed: Arc<Vec<String>> = Arc::new(
            allowed
                .iter()
                .map(|h| h.trim().to_ascii_lowercase())
                .collect(),
        );
        thread::Builder::new()
            .name("orbit-sandbox-proxy".into())
            .spawn(move || {
                for client in listener.incoming().flatten() {
                    let allowed = Arc::clone(&allowed);
                    let _ = thread::Builder::new()
                        .name("orbit-sandbox-proxy-conn".into())
                        .spawn(move || {
                            let _ = serve(client, &allowed);
                        });
                }
            })?;
        Ok(Self { port })
    }

    /// The port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }
}

/// Whether `host` is on the allow list.
pub(crate) fn host_allowed(host: &str, allowed: &[String]) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    allowed
        .iter()
        .any(|pattern| match pattern.strip_prefix("*.") {
            Some(base) => host.ends_with(&format!(".{base}")),
            None => host == *pattern,
        })
}

/// `host` and `port` of a request line's target (`host:port` for CONNECT,
/// `http://host[:port]/…` otherwise).
pub(crate) fn target(method: &str, uri: &str) -> Option<(String, u16)> {
    let (authority, default_port) = if method.eq_ignore_ascii_case("CONNECT") {
        (uri, 443)
    } else {
        let rest = uri.strip_prefix("http://")?;
        (rest.split('/').next()?, 80)
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (h, p.parse().ok()?),
        _ => (authority, default_port),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    (!host.is_empty()).then(|| (host.to_string(), port))
}

fn serve(client: TcpStream, allowed: &[String]) -> io::Result<()> {
    let mut reader = BufReader::new(client.try_clone()?);
    let mut head = Vec::new();
    loop {
        let n = reader.read_until(b'\n', &mut head)?;
        if n == 0 || head.len() > PROXY_MAX_HEAD_BYTES {
            return Ok(());
        }
        if head.ends_with(b"\r\n\r\n") || head.ends_with(b"\n\n") {
            break;
        }
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let mut words = text.lines().next().unwrap_or_default().split_whitespace();
    let (method, uri) = (
        words.next().unwrap_or_default(),
        words.next().unwrap_or_default(),
    );
    let mut client = client;
    let Some((host, port)) = target(method, uri).filter(|(h, _)| host_allowed(h, allowed)) else {
        let body = "orbit sandbox: this host is not in sandbox.network.allowedDomains\n";
        return write!(
            client,
            "HTTP/1.1 403 Forbidden\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    };
    let mut upstream = match TcpStream::connect((host.as_str(), port)) {
        Ok(s) => s,
        Err(_) => {
            return client.write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
        }
    };
    if method.eq_ignore_ascii_case("CONNECT") {
        client.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")?;
    } else {
        upstream.write_all(&head)?;
    }
    // Bytes the reader already buffered past the head belong upstream.
    let buffered = reader.buffer().to_vec();
    upstream.write_all(&buffered)?;
    let (mut up_read, mut client_write) = (upstream.try_clone()?, client.try_clone()?);
    let down = thread::spawn(move || {
        let _ = io::copy(&mut up_read, &mut client_write);
        let _ = client_write.shutdown(Shutdown::Write);
    });
    let mut client_read: Box<dyn Read> = Box::new(client);
    let _ = io::copy(&mut client_read, &mut upstream);
    let _ = upstream.shutdown(Shutdown::Write);
    let _ = down.join();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_targets() {
        let allowed = vec!["crates.io".to_string(), "*.npmjs.org".to_string()];
        let cases = [
            ("crates.io", true),
            ("CRATES.IO.", true),
            ("static.crates.io", false),
            ("registry.npmjs.org", true),
            ("npmjs.org", false),
            ("evilcrates.io", false),
        ];
        for (host, want) in cases {
            assert_eq!(host_allowed(host, &allowed), want, "{host}");
        }
        assert_eq!(
            target("CONNECT", "crates.io:443"),
            Some(("crates.io".into(), 443))
        );
        assert_eq!(target("GET", "http://h:8080/x"), Some(("h".into(), 8080)));
        assert_eq!(target("GET", "http://h/x"), Some(("h".into(), 80)));
        assert_eq!(target("GET", "/relative"), None);
        assert_eq!(target("CONNECT", "[::1]:443"), Some(("::1".into(), 443)));
    }
}
