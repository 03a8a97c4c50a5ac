//! The provider setting in `<data dir>/settings.json`:
//! `{"provider": "anthropic" | "openai" | "local"}`. Precedence, applied by
//! the CLI: `--provider` flag > environment (API keys / base URLs) > this
//! setting > auto (local when nothing else is configured). A missing or
//! unreadable file means "no setting"; an unknown value is reported.

use std::path::Path;

/// The settings file name inside the data dir.
pub const SETTINGS_FILE: &str = "settings.json";

/// The `provider` value of `<data_dir>/settings.json`, if any.
pub fn configured_provider(data_dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(data_dir.join(SETTINGS_FILE)).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value["provider"]
        .as_str()
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_provider_setting() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(configured_provider(dir.path()), None);
        std::fs::write(
            dir.path().join(SETTINGS_FILE),
            r#"{"provider": "Local", "x": 1}"#,
        )
        .unwrap();
        assert_eq!(configured_provider(dir.path()).as_deref(), Some("local"));
        std::fs::write(dir.path().join(SETTINGS_FILE), "not json").unwrap();
        assert_eq!(configured_provider(dir.path()), None);
    }
}
