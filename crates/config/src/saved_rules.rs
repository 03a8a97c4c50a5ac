//! Rules a person saved from orbit's own permission dialog ("Yes, and
//! don't ask again for …", `/permissions allow RULE`): kept in the user's
//! data directory, beside the trust store ([`crate::trust::TRUST_FILE`]),
//! one file per project, named after the project's canonical path.
//!
//! Data flow: the CLI gives the engine [`saved_rules_file`] of its working
//! directory as the file "always allow" answers are appended to
//! (`orbit_permissions::persist_allow_rule`); at the next start (or
//! `/clear`) [`crate::SettingsLocations::standard`] lists the same file
//! among the user-scope settings files, so its rules apply whether or not
//! the folder is trusted. Nothing inside the project can carry them: a
//! repository's own `.orbit/settings.local.json` stays a project-scope file
//! whose allow rules an untrusted folder ignores (`crate::trust`).
//!
//! The key is the SHA-256 of the canonical path (a symlink to the project
//! finds the same file, any other directory another one), prefixed with the
//! directory's name for a person browsing the store:
//! `<data dir>/project-permissions/<name>-<32 hex digits>.json`.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The store's directory inside the data directory.
pub const SAVED_RULES_DIR: &str = "project-permissions";

/// How many characters of the directory's name the file name keeps.
const NAME_MAX_CHARS: usize = 40;

/// How many hex digits of the path's SHA-256 the file name keeps (128 bits).
const KEY_HEX_DIGITS: usize = 32;

/// The file holding the rules saved for `project_dir` (made canonical when
/// it exists; see the module docs). No file is read or written here.
pub fn saved_rules_file(data_dir: &Path, project_dir: &Path) -> PathBuf {
    let dir = project_dir
        .canonicalize()
        .unwrap_or_else(|_| project_dir.to_path_buf());
    let digest = Sha256::digest(dir.as_os_str().as_encoded_bytes());
    let key: String = digest
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
        .chars()
        .take(KEY_HEX_DIGITS)
        .collect();
    let name: String = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(NAME_MAX_CHARS)
        .collect();
    let name = name.trim_start_matches('.');
    let file = if name.is_empty() {
        format!("{key}.json")
    } else {
        format!("{name}-{key}.json")
    };
    data_dir.join(SAVED_RULES_DIR).join(file)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn one_file_per_canonical_path() {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("my project");
        let other = root.path().join("other");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        let link = root.path().join("link");
        std::os::unix::fs::symlink(&project, &link).unwrap();
        let data = Path::new("/data");
        let file = saved_rules_file(data, &project);
        assert_eq!(saved_rules_file(data, &link), file);
        assert_eq!(saved_rules_file(data, &project.join("../my project")), file);
        assert_ne!(saved_rules_file(data, &other), file);
        assert_eq!(file.parent().unwrap(), data.join(SAVED_RULES_DIR));
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("my_project-"), "{name}");
        assert_eq!(
            name.len(),
            "my_project-".len() + KEY_HEX_DIGITS + ".json".len()
        );
        // The root and hidden names still give a file name.
        let name = saved_rules_file(data, Path::new("/"))
            .file_name()
            .unwrap()
            .len();
        assert_eq!(name, KEY_HEX_DIGITS + ".json".len());
    }
}
