//! WebFetch's page cache: a page's markdown is kept for 15 minutes per
//! URL (Claude Code's), so reading on with `offset` — or asking another
//! question of the same page — does not download it again and sees the
//! same text.
//!
//! One cache per session (a `ToolUseContext` extension), keyed by the URL
//! as requested; only converted pages are kept (errors and cross-host
//! redirects are fetched again), at most [`MAX_CACHED_PAGES`], none over
//! [`MAX_CACHED_PAGE_BYTES`]; the oldest goes first.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use orbit_tool::ToolUseContext;
use reqwest::Url;

/// How long a page is reused, in milliseconds (Claude Code's 15 minutes).
pub(crate) const CACHE_TTL_MS: u64 = 15 * 60 * 1000;
/// Pages kept per session.
pub(crate) const MAX_CACHED_PAGES: usize = 16;
/// A larger page text is not kept, in bytes.
pub(crate) const MAX_CACHED_PAGE_BYTES: usize = 4 * 1024 * 1024;

const EXTENSION_KEY: &str = "orbit.web_fetch.cache";

/// A converted page: where it ended up (after same-host redirects) and its text.
#[derive(Debug, Clone)]
pub(crate) struct CachedPage {
    pub url: Url,
    pub text: Arc<str>,
}

struct Entry {
    key: String,
    at: Instant,
    page: CachedPage,
}

/// The session's cache.
#[derive(Default)]
pub(crate) struct PageCache(Mutex<Vec<Entry>>);

impl PageCache {
    /// The session's cache.
    pub(crate) fn of(ctx: &ToolUseContext) -> Arc<Self> {
        ctx.extension(EXTENSION_KEY, Self::default)
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Vec<Entry>> {
        match self.0.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// The page fetched for `key` within the TTL.
    pub(crate) fn get(&self, key: &str) -> Option<CachedPage> {
        let ttl = Duration::from_millis(CACHE_TTL_MS);
        let mut entries = self.entries();
        entries.retain(|e| e.at.elapsed() < ttl);
        entries
            .iter()
            .find(|e| e.key == key)
            .map(|e| e.page.clone())
    }

    /// Keeps `page` for `key` (unless it is too large).
    pub(crate) fn put(&self, key: String, page: CachedPage) {
        if page.text.len() > MAX_CACHED_PAGE_BYTES {
            return;
        }
        let mut entries = self.entries();
        entries.retain(|e| e.key != key);
        if entries.len() >= MAX_CACHED_PAGES {
            entries.remove(0);
        }
        entries.push(Entry {
            key,
            at: Instant::now(),
            page,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::web_fetch::test_url;

    fn page(text: &str) -> CachedPage {
        CachedPage {
            url: test_url("https://example.com/"),
            text: Arc::from(text),
        }
    }

    #[test]
    fn pages_are_kept_by_url_and_the_oldest_goes_first() {
        let cache = PageCache::default();
        assert!(cache.get("a").is_none());
        cache.put("a".into(), page("A"));
        assert_eq!(cache.get("a").map(|p| p.text), Some(Arc::from("A")));
        for i in 0..MAX_CACHED_PAGES {
            cache.put(format!("k{i}"), page("x"));
        }
        assert!(cache.get("a").is_none(), "evicted");
        assert!(cache.get("k0").is_some());
        cache.put("big".into(), page(&"x".repeat(MAX_CACHED_PAGE_BYTES + 1)));
        assert!(cache.get("big").is_none());
    }
}
