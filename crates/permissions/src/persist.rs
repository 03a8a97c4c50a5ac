//! "Always allow": how the rule an approval saves (`crate::suggested_rule`)
//! is kept for later sessions ([`persist_allow_rule`]: appended to
//! `permissions.allow` of a settings file — the CLI's is the user-level
//! file of the project, `orbit_config::saved_rules`). The file is merged,
//! never replaced: every other key stays, a rule already there is not
//! added twice, and the new text is written to a temporary file in the
//! same directory and renamed over the old one, so a crash leaves the old
//! file or the new one, never half.

use std::io::Write;
use std::path::{Path, PathBuf};

use orbit_untrusted::{CONFIG_FILE_MAX_BYTES, ReadOpts, read_untrusted};
use serde_json::{Map, Value};
use thiserror::Error;

/// A project's local settings file, relative to its root (`/permissions
/// allow` and the dialog wrote here before; a repository can ship it, so an
/// untrusted folder ignores its allow rules).
pub const LOCAL_RULES_FILE: &str = ".orbit/settings.local.json";

/// Why a rule could not be persisted; the file is left as it was.
#[derive(Debug, Error)]
pub enum PersistError {
    /// Reading, writing or renaming failed.
    #[error("cannot update {path}: {source}")]
    Io {
        /// The settings file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file exists but is not a JSON object with a `permissions.allow`
    /// list (it is not overwritten).
    #[error("cannot update {path}: {message}")]
    Malformed {
        /// The settings file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// Appends `rule` to `permissions.allow` of the settings file at `path`
/// (created with its directory when missing). See the module docs.
pub fn persist_allow_rule(path: &Path, rule: &str) -> Result<(), PersistError> {
    let io = |source| PersistError::Io {
        path: path.to_path_buf(),
        source,
    };
    let malformed = |message: &str| PersistError::Malformed {
        path: path.to_path_buf(),
        message: message.to_string(),
    };
    // The project's file: a FIFO or a device there is refused, never read
    // (a plain read of a FIFO would block the session), and at most the cap.
    let opts = ReadOpts::user_file(CONFIG_FILE_MAX_BYTES).refuse_over_cap();
    let mut doc = match read_untrusted(path, &opts).map(|file| file.text()) {
        Ok(text) if text.trim().is_empty() => Value::Object(Map::new()),
        Ok(text) => {
            serde_json::from_str(&text).map_err(|e| malformed(&format!("not valid JSON ({e})")))?
        }
        Err(e) if e.is_not_found() => Value::Object(Map::new()),
        Err(e) => return Err(io(std::io::Error::other(e))),
    };
    let root = doc
        .as_object_mut()
        .ok_or_else(|| malformed("not a JSON object"))?;
    let permissions = root
        .entry("permissions")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| malformed("`permissions` is not an object"))?;
    let allow = permissions
        .entry("allow")
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
        .ok_or_else(|| malformed("`permissions.allow` is not a list"))?;
    if allow.iter().any(|v| v.as_str() == Some(rule)) {
        return Ok(());
    }
    allow.push(Value::String(rule.to_string()));
    let mut text = serde_json::to_string_pretty(&doc)
        .map_err(|e| malformed(&format!("cannot serialise ({e})")))?;
    text.push('\n');
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        name.unwrap_or_default(),
        std::process::id()
    ));
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(text.as_bytes())?;
        f.sync_all()
    });
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn merges_into_the_file_keeping_other_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".orbit/settings.local.json");
        persist_allow_rule(&path, "Bash(npm test)").unwrap();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            doc,
            serde_json::json!({"permissions": {"allow": ["Bash(npm test)"]}})
        );

        std::fs::write(
            &path,
            r#"{"model": "opus", "permissions": {"allow": ["Read"], "deny": ["Bash(rm:*)"]}, "env": {"A": "1"}}"#,
        )
        .unwrap();
        persist_allow_rule(&path, "Bash(npm test)").unwrap();
        persist_allow_rule(&path, "Bash(npm test)").unwrap();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            doc,
            serde_json::json!({"model": "opus", "env": {"A": "1"}, "permissions": {
                "allow": ["Read", "Bash(npm test)"], "deny": ["Bash(rm:*)"]}})
        );
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    }

    /// A FIFO planted where the rules file goes is refused at once (a plain
    /// read blocked the session forever) and left in place.
    #[test]
    fn a_fifo_in_place_of_the_file_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.local.json");
        orbit_test_support::files::mkfifo(&path);
        let (tx, rx) = std::sync::mpsc::channel();
        let target = path.clone();
        std::thread::spawn(move || {
            let _ = tx.send(persist_allow_rule(&target, "Read").map_err(|e| e.to_string()));
        });
        let outcome = rx
            .recv_timeout(std::time::Duration::from_secs(2))
            .expect("persist_allow_rule blocked on a FIFO");
        let err = outcome.unwrap_err();
        assert!(err.contains("a FIFO, not a regular file"), "{err}");
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_fifo()
        );
    }

    #[test]
    fn a_malformed_file_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.local.json");
        for text in ["{not json", "[1]", r#"{"permissions": {"allow": "Read"}}"#] {
            std::fs::write(&path, text).unwrap();
            let err = persist_allow_rule(&path, "Read").unwrap_err();
            assert!(matches!(err, PersistError::Malformed { .. }), "{err}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
    }
}
