//! WebFetch's address policy: no request reaches a loopback, private,
//! link-local, CGNAT, unspecified, multicast, broadcast or reserved
//! address, unless its host name is allowed for local development.
//!
//! Flow: every hop's URL goes through [`check_url_host`] (an IP literal —
//! the URL parser already turned `0x7f000001`, `017700000001` and
//! `2130706433` into `127.0.0.1` — is judged as is); a host name is
//! resolved by [`GuardedResolver`], the client's only resolver, which
//! refuses the name when any of its addresses is forbidden and otherwise
//! hands the client exactly the addresses it checked, so the connection
//! goes where the check looked (no second lookup, no DNS-rebinding window).
//! IPv4-mapped, IPv4-compatible, NAT64 and 6to4 IPv6 addresses are judged
//! by the IPv4 address inside. Allowed hosts ([`AllowedHosts`], from
//! `ORBIT_WEBFETCH_ALLOW_HOSTS`) skip the check; the session installs them.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, RwLock};

use orbit_tool::ToolUseContext;
use orbit_tool::texts::tools::web_fetch as texts;
use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// The key of the session's [`AllowedHosts`] extension.
const ALLOWED_HOSTS_KEY: &str = "orbit.web_fetch.allowed_hosts";

/// Host names WebFetch may reach on local addresses (lower-case; `*` is
/// every host). A session has one; the CLI fills it from
/// `ORBIT_WEBFETCH_ALLOW_HOSTS`.
#[derive(Debug, Default)]
pub struct AllowedHosts(RwLock<Vec<String>>);

impl AllowedHosts {
    /// The session's list.
    pub fn of(ctx: &ToolUseContext) -> Arc<AllowedHosts> {
        ctx.extension(ALLOWED_HOSTS_KEY, AllowedHosts::default)
    }

    /// Adds `hosts` to the session's list.
    pub fn allow(ctx: &ToolUseContext, hosts: impl IntoIterator<Item = String>) {
        let list = Self::of(ctx);
        let mut g = match list.0.write() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        g.extend(hosts.into_iter().map(|h| h.to_ascii_lowercase()));
    }

    /// A copy of the list.
    pub fn hosts(&self) -> Vec<String> {
        match self.0.read() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }
}

/// True when `host` (a URL's host as written, brackets removed) is in `allowed`.
fn host_is_allowed(allowed: &[String], host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    allowed
        .iter()
        .any(|a| a == "*" || a.eq_ignore_ascii_case(host))
}

/// Why `ip` may not be fetched (a short class name), or `None`.
pub fn forbidden_address(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => forbidden_v6(v6),
    }
}

fn forbidden_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (0, ..) => "unspecified",
        (127, ..) => "loopback",
        (10, ..) | (172, 16..=31, _) | (192, 168, _) => "private",
        (100, 64..=127, _) => "shared (CGNAT)",
        (169, 254, _) => "link-local",
        (192, 0, 0) | (192, 0, 2) | (198, 18..=19, _) | (198, 51, 100) | (203, 0, 113) => {
            "reserved"
        }
        (224..=239, ..) => "multicast",
        (240..=255, ..) if ip == Ipv4Addr::BROADCAST => "broadcast",
        (240..=255, ..) => "reserved",
        _ => return None,
    })
}

fn forbidden_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let seg = ip.segments();
    if ip.is_unspecified() {
        return Some("unspecified");
    }
    if ip.is_loopback() {
        return Some("loopback");
    }
    if let Some(v4) = embedded_v4(ip) {
        return forbidden_v4(v4);
    }
    Some(match seg[0] {
        s if s & 0xfe00 == 0xfc00 => "private (unique local)",
        s if s & 0xffc0 == 0xfe80 => "link-local",
        s if s & 0xffc0 == 0xfec0 => "site-local",
        s if s & 0xff00 == 0xff00 => "multicast",
        0x2001 if seg[1] == 0x0db8 => "reserved",
        _ => return None,
    })
}

/// The IPv4 address an IPv6 address carries: mapped (`::ffff:a.b.c.d`),
/// compatible (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`), 6to4 (`2002:AB:CD::`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let seg = ip.segments();
    let low =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    match seg {
        [0, 0, 0, 0, 0, 0xffff, hi, lo] | [0, 0, 0, 0, 0, 0, hi, lo] => Some(low(hi, lo)),
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(low(hi, lo)),
        [0x2002, hi, lo, ..] => Some(low(hi, lo)),
        _ => None,
    }
}

/// The refusal text when `url`'s host is an IP literal that may not be
/// fetched (and is not allowed); `None` for host names (the resolver
/// judges them) and fetchable addresses.
pub fn check_url_host(url: &Url, allowed: &[String]) -> Option<String> {
    let host = url.host_str()?;
    if host_is_allowed(allowed, host) {
        return None;
    }
    // The URL parser normalised every IPv4 spelling to dotted decimal.
    let ip: IpAddr = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok()?;
    forbidden_address(ip).map(|class| texts::address_refused(host, &ip.to_string(), class))
}

/// The client's resolver (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct GuardedResolver {
    allowed: Arc<RwLock<Vec<String>>>,
}

impl GuardedResolver {
    /// Replaces the allowed host names (the call's session list).
    pub fn set_allowed(&self, hosts: Vec<String>) {
        match self.allowed.write() {
            Ok(mut g) => *g = hosts,
            Err(p) => *p.into_inner() = hosts,
        }
    }

    /// Resolves and checks `url`'s host name as the client's resolver
    /// would (IP literals pass: [`check_url_host`] judges them): `Err` is
    /// the refusal text, also for a name that does not resolve. For
    /// requests a proxy resolves.
    pub async fn check_name(&self, url: &Url) -> Result<(), String> {
        self.checked_addrs(url).await.map(|_| ())
    }

    /// The addresses `url`'s host may be reached at: an IP literal as is,
    /// a name resolved and checked as the client's resolver does (an
    /// allowed host's addresses unchecked); the port is the URL's. `Err`
    /// is the refusal text, also for a name that does not resolve. A
    /// proxied fetch tunnels to one of these (`super::tunnel`).
    pub async fn checked_addrs(&self, url: &Url) -> Result<Vec<SocketAddr>, String> {
        let Some(host) = url.host_str() else {
            return Err(texts::invalid_url(url.as_str()));
        };
        let port = url.port_or_known_default().unwrap_or(80);
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return Ok(vec![SocketAddr::new(ip, port)]);
        }
        let name: Name = bare.parse().map_err(|_| texts::invalid_url(url.as_str()))?;
        match self.resolve(name).await {
            Ok(addrs) => Ok(addrs.map(|a| SocketAddr::new(a.ip(), port)).collect()),
            // A refusal names the host; a failed lookup does not.
            Err(e) if e.is::<Refused>() => Err(e.to_string()),
            Err(e) => Err(format!("Cannot resolve {bare}: {e}")),
        }
    }

    fn allowed(&self) -> Vec<String> {
        match self.allowed.read() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }
}

/// A refused resolution (its text reaches the model through the error chain).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Refused(String);

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        let allowed = host_is_allowed(&self.allowed(), &host);
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if !allowed
                && let Some((ip, class)) = addrs
                    .iter()
                    .find_map(|a| forbidden_address(a.ip()).map(|c| (a.ip(), c)))
            {
                let text = texts::address_refused(&host, &ip.to_string(), class);
                return Err(Box::new(Refused(text)) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    #[rustfmt::skip]
    fn address_classes() {
        // Each class with the addresses that fall in it; None: allowed.
        let table: &[(Option<&str>, &[&str])] = &[
            (Some("loopback"), &["127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1", "::127.0.0.1", "2002:7f00:1::"]),
            (Some("unspecified"), &["0.0.0.0", "::"]),
            (Some("private"), &["10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1"]),
            (Some("shared (CGNAT)"), &["100.64.0.1"]),
            (Some("link-local"), &["169.254.169.254", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "fe80::1"]),
            (Some("multicast"), &["224.0.0.1", "ff02::1"]),
            (Some("broadcast"), &["255.255.255.255"]),
            (Some("reserved"), &["240.0.0.1"]),
            (Some("private (unique local)"), &["fc00::1", "fd12:3456::1"]),
            (None, &["172.32.0.1", "100.128.0.1", "93.184.216.34", "8.8.8.8", "::ffff:8.8.8.8", "2606:4700::1111"]),
        ];
        for (class, ips) in table {
            for ip in *ips {
                let parsed: IpAddr = ip.parse().unwrap();
                assert_eq!(forbidden_address(parsed), *class, "{ip}");
            }
        }
    }

    #[test]
    fn url_spellings_of_loopback_are_refused() {
        for url in [
            "http://127.0.0.1/",
            "http://0x7f000001/",
            "http://2130706433/",
            "http://017700000001/",
            "http://0177.0.0.1/",
            "http://127.1/",
            "http://[::1]/",
            "http://[::ffff:7f00:1]/",
            "http://169.254.169.254/latest/meta-data/",
            "http://0/",
        ] {
            let parsed = Url::parse(url).unwrap();
            assert!(check_url_host(&parsed, &[]).is_some(), "{url}");
        }
        let ok = Url::parse("http://8.8.8.8/").unwrap();
        assert_eq!(check_url_host(&ok, &[]), None);
        let allowed = Url::parse("http://127.0.0.1:8080/").unwrap();
        assert_eq!(check_url_host(&allowed, &["127.0.0.1".into()]), None);
        assert_eq!(check_url_host(&allowed, &["*".into()]), None);
        let named = Url::parse("http://localhost/").unwrap();
        assert_eq!(
            check_url_host(&named, &[]),
            None,
            "names are the resolver's"
        );
    }

    #[tokio::test]
    async fn the_resolver_refuses_names_of_local_addresses() {
        let resolver = GuardedResolver::default();
        let refused = resolver.resolve("localhost".parse().unwrap()).await;
        let message = refused.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("localhost"), "{message}");
        resolver.set_allowed(vec!["localhost".into()]);
        let addrs: Vec<SocketAddr> = resolver
            .resolve("localhost".parse().unwrap())
            .await
            .map(|a| a.collect())
            .unwrap_or_default();
        assert!(!addrs.is_empty());
        assert!(addrs.iter().all(|a| a.ip().is_loopback()));
    }
}
