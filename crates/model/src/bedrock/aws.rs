//! What every AWS credential source shares: the credentials value
//! ([`AwsCredentials`], its secret kept out of `Debug`), the user's shared
//! files (`~/.aws/credentials`, `~/.aws/config`: located under `$HOME` or
//! by a variable, read capped through `orbit_untrusted`, parsed as INI
//! sections) and the RFC 3339 times AWS writes expirations in. A leaf under
//! the chain (`credentials`) and the SSO source (`sso`).

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::cloud::CapturedEnv;

/// Largest credentials or config file read, in bytes.
const MAX_PROFILE_FILE_BYTES: usize = 1024 * 1024;

/// `var`'s file, else `default` under `$HOME`.
pub(crate) fn home_file(env: &CapturedEnv, var: &str, default: &str) -> Option<PathBuf> {
    match env.get(var) {
        Some(path) => Some(PathBuf::from(path)),
        None => under_home(env, default),
    }
}

/// `relative` under `$HOME`.
pub(crate) fn under_home(env: &CapturedEnv, relative: &str) -> Option<PathBuf> {
    env.get("HOME")
        .map(|home| PathBuf::from(home).join(relative))
}

/// One set of AWS credentials.
#[derive(Clone, PartialEq)]
pub(crate) struct AwsCredentials {
    pub(crate) access_key_id: String,
    pub(crate) secret_access_key: String,
    pub(crate) session_token: Option<String>,
    /// When they stop working; None = never.
    pub(crate) expires: Option<SystemTime>,
}

impl std::fmt::Debug for AwsCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AwsCredentials")
            .field("access_key_id", &self.access_key_id)
            .finish_non_exhaustive()
    }
}

/// A user's own AWS file, capped; None when it is missing or not a
/// regular file (read through `orbit_untrusted`: a FIFO or device named by
/// `AWS_SHARED_CREDENTIALS_FILE` never blocks the request).
pub(crate) fn read_profile_file(path: &std::path::Path) -> Option<String> {
    let opts = orbit_untrusted::ReadOpts::user_file(MAX_PROFILE_FILE_BYTES);
    orbit_untrusted::read_untrusted(path, &opts)
        .ok()
        .map(|file| file.text())
}

/// The `key = value` lines of section `[name]` of an INI file.
pub(crate) fn ini_section(text: &str, name: &str) -> Option<Vec<(String, String)>> {
    let mut found = None;
    let mut current: Option<Vec<(String, String)>> = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || line.starts_with(';') || line.is_empty() {
            continue;
        }
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if let Some(done) = current.take() {
                found.get_or_insert_with(Vec::new).extend(done);
            }
            if header.trim() == name {
                current = Some(Vec::new());
            }
            continue;
        }
        if let (Some(section), Some((k, v))) = (current.as_mut(), line.split_once('=')) {
            section.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    if let Some(done) = current {
        found.get_or_insert_with(Vec::new).extend(done);
    }
    found
}

/// The value of `name` in a section (keys are lowercase).
pub(crate) fn key<'a>(section: &'a [(String, String)], name: &str) -> Option<&'a str> {
    section
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// `2026-12-06T20:15:00Z` as a time (UTC only, as AWS writes it).
pub(crate) fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    let t = text.trim().trim_end_matches('Z');
    let (date, time) = t.split_once('T')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut h = time
        .split(':')
        .map(|p| p.split('.').next()?.parse::<i64>().ok());
    let (hh, mm, ss) = (h.next()??, h.next()??, h.next()??);
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = u64::try_from(days * 86_400 + hh * 3_600 + mm * 60 + ss).ok()?;
    Some(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn ini_sections_and_times() {
        let text =
            "[default]\naws_access_key_id = A\n# c\n[profile work]\nAWS_SECRET_ACCESS_KEY=s\n";
        let section = ini_section(text, "default").unwrap();
        assert_eq!(key(&section, "aws_access_key_id"), Some("A"));
        assert_eq!(
            key(
                &ini_section(text, "profile work").unwrap(),
                "aws_secret_access_key"
            ),
            Some("s")
        );
        assert!(ini_section(text, "other").is_none());
        let t = parse_rfc3339("1970-01-02T00:00:01Z").unwrap();
        assert_eq!(t, SystemTime::UNIX_EPOCH + Duration::from_secs(86_401));
    }

    /// A credentials file that is a FIFO (or a directory) is no file: read
    /// as missing at once, never waited on.
    #[test]
    fn a_fifo_or_directory_credentials_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("credentials");
        orbit_test_support::files::mkfifo(&fifo);
        assert_eq!(read_profile_file(&fifo), None);
        assert_eq!(read_profile_file(dir.path()), None);
        let file = dir.path().join("config");
        std::fs::write(&file, "[default]\nregion = x\n").unwrap();
        assert_eq!(
            read_profile_file(&file).as_deref(),
            Some("[default]\nregion = x\n")
        );
    }
}
