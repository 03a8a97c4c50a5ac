//! `apiKeyHelper`: a shell command (settings, trusted sources only; the CLI
//! decides which) whose stdout is the API key.
//!
//! Flow: the driver asks [`ApiKeyHelper::key`] before each attempt → a
//! cached key younger than the TTL (`CLAUDE_CODE_API_KEY_HELPER_TTL_MS`,
//! Claude Code's default 5 minutes) is returned as is; otherwise the
//! command runs under `sh -c` (stdin closed, output captured, killed after
//! the timeout) and its trimmed stdout becomes the key. A 401 makes the
//! driver call [`ApiKeyHelper::invalidate`] and retry once with a fresh key.
//! The key and the command's output are never logged; an error names only
//! what failed (exit status, timeout, the first stderr line).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

use crate::ModelError;

/// Claude Code's default key lifetime, in milliseconds.
pub const API_KEY_HELPER_TTL_MS: u64 = 300_000;
/// Claude Code's limit for one run of the helper, in milliseconds.
pub const API_KEY_HELPER_TIMEOUT_MS: u64 = 600_000;

/// The helper command and its cached key.
pub struct ApiKeyHelper {
    command: String,
    ttl: Duration,
    timeout: Duration,
    cache: Mutex<Option<(String, Instant)>>,
    /// The server refused the cached key.
    stale: AtomicBool,
}

impl std::fmt::Debug for ApiKeyHelper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiKeyHelper")
            .field("ttl", &self.ttl)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl ApiKeyHelper {
    /// A helper running `command`, its key kept for `ttl_ms`, one run
    /// allowed `timeout_ms`.
    pub fn new(command: impl Into<String>, ttl_ms: u64, timeout_ms: u64) -> Self {
        Self {
            command: command.into(),
            ttl: Duration::from_millis(ttl_ms),
            timeout: Duration::from_millis(timeout_ms),
            cache: Mutex::new(None),
            stale: AtomicBool::new(false),
        }
    }

    /// The key: cached while younger than the TTL, else from a new run.
    pub async fn key(&self) -> Result<String, ModelError> {
        let mut cache = self.cache.lock().await;
        let stale = self.stale.swap(false, Ordering::SeqCst);
        if let Some((key, at)) = cache.as_ref()
            && !stale
            && at.elapsed() < self.ttl
        {
            return Ok(key.clone());
        }
        let key = self.run().await?;
        *cache = Some((key.clone(), Instant::now()));
        Ok(key)
    }

    /// Forgets the cached key (the server refused it).
    pub fn invalidate(&self) {
        self.stale.store(true, Ordering::SeqCst);
    }

    async fn run(&self) -> Result<String, ModelError> {
        let fail = |what: String| ModelError::Config(format!("apiKeyHelper {what}"));
        let child = tokio::process::Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| fail(format!("could not start: {e}")))?;
        let output = match tokio::time::timeout(self.timeout, child.wait_with_output()).await {
            Err(_) => {
                return Err(fail(format!(
                    "timed out after {} ms",
                    self.timeout.as_millis()
                )));
            }
            Ok(Err(e)) => return Err(fail(format!("failed: {e}"))),
            Ok(Ok(output)) => output,
        };
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let first = stderr.lines().next().unwrap_or("").trim();
            let status = output
                .status
                .code()
                .map_or_else(|| "was killed".to_string(), |c| format!("exited {c}"));
            return Err(fail(if first.is_empty() {
                status
            } else {
                format!("{status}: {first}")
            }));
        }
        let key = String::from_utf8_lossy(&output.stdout).trim().to_string();
        if key.is_empty() {
            return Err(fail("did not return a value".into()));
        }
        if !key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(fail(
                "returned output that cannot be used as an API key: the script must print only the key to stdout".into(),
            ));
        }
        Ok(key)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn caches_within_the_ttl_and_reruns_after_invalidate() {
        let count = std::env::temp_dir().join(format!("orbit-key-helper-{}", std::process::id()));
        let _ = std::fs::remove_file(&count);
        let cmd = format!(
            "echo x >> '{0}'; echo key-$(wc -l < '{0}')",
            count.display()
        );
        let helper = ApiKeyHelper::new(cmd, 60_000, 5_000);
        assert_eq!(helper.key().await.unwrap(), "key-1");
        assert_eq!(helper.key().await.unwrap(), "key-1");
        helper.invalidate();
        assert_eq!(helper.key().await.unwrap(), "key-2");
        let failing = ApiKeyHelper::new("echo nope >&2; exit 3", 0, 5_000);
        let e = failing.key().await.unwrap_err().to_string();
        assert!(e.contains("exited 3: nope"), "{e}");
        let hanging = ApiKeyHelper::new("sleep 5", 0, 100);
        let e = hanging.key().await.unwrap_err().to_string();
        assert!(e.contains("timed out"), "{e}");
    }
}
