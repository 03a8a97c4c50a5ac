//! Helpers: settings from JSON text, an `Overrides` in a fixed directory,
//! and warnings captured from `tracing`.

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use orbit_config::{Config, Env, Overrides, Settings, SettingsFile, SettingsSource};

/// One settings document of `source`, named `<source>.json` in errors.
pub fn file(source: SettingsSource, json: &str) -> SettingsFile {
    SettingsFile::parse(source, format!("{source}.json"), None, json).unwrap()
}

/// Settings made of these documents.
pub fn settings(docs: &[(SettingsSource, &str)]) -> Settings {
    Settings::from_files(docs.iter().map(|(s, j)| file(*s, j)).collect())
}

/// An environment with a home (so there is a data directory) plus `vars`.
pub fn env(vars: &[(&str, &str)]) -> Env {
    let mut pairs = vec![("HOME".to_string(), "/home/u".to_string())];
    pairs.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    Env::from_pairs(pairs)
}

/// Overrides with the working directory set and the folder trusted
/// (`--trust-project`): the precedence tests are about a project whose
/// settings apply; `trust.rs` covers an untrusted one.
pub fn overrides() -> Overrides {
    Overrides {
        cwd: PathBuf::from("/work/project"),
        trust_project: true,
        ..Overrides::default()
    }
}

/// A home (with the data dir `~/.orbit`) and a project directory.
pub struct Dirs {
    pub home: tempfile::TempDir,
    pub project: tempfile::TempDir,
}

impl Dirs {
    pub fn new() -> Self {
        Self {
            home: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
        }
    }

    pub fn env(&self) -> Env {
        Env::from_pairs([("HOME", self.home.path())])
    }
}

/// `Config::resolve` that must succeed.
pub fn resolve(o: &Overrides, e: &Env, s: &Settings) -> Config {
    Config::resolve(o, e, s).unwrap()
}

#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `f` and returns its value with the warning lines it logged.
pub fn with_warnings<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .without_time()
        .with_target(false)
        .with_max_level(tracing::Level::WARN)
        .finish();
    let value = tracing::subscriber::with_default(subscriber, f);
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    (value, text.lines().map(str::to_string).collect())
}
