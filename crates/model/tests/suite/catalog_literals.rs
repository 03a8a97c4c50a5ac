//! Nothing but the model catalog holds a model number: a grep of every
//! crate's non-test source (`crates/*/src`, each file up to its first
//! `#[cfg(test)]`, comment lines skipped) for context-window literals,
//! price literals and model id strings. The exceptions are listed below,
//! each with its reason; the help texts among them, and README's alias
//! table, are checked against the catalog, so they cannot drift from it.

use std::path::{Path, PathBuf};

use orbit_model::catalog::{self, LOCAL_CONTEXT_WINDOW_TOKENS, LOCAL_MODEL_ID, Provider};

/// Where the facts live.
const CATALOG_DIR: &str = "model/src/catalog";

/// Crates whose whole source is test code.
const TEST_CRATES: [&str; 1] = ["test-support"];

/// Context-window numbers (digits only) that only the catalog may write.
/// Smaller common ones (8,192, 32,768) are buffer sizes too, so they are
/// not searched for; the catalog tests pin them.
const WINDOW_NUMBERS: [&str; 4] = ["200000", "1047576", "400000", "128000"];

/// Text that only the catalog may write: model ids and price literals.
const MODEL_TEXTS: [&str; 10] = [
    "claude-opus",
    "claude-sonnet",
    "claude-haiku",
    "claude-instant",
    "claude-3",
    "claude-4",
    "gpt-4.1",
    "gpt-4o",
    "qwen2.5-coder-1.5b",
    "Pricing::new",
];

/// `(file under crates/, literal, reason)`: the allowed exceptions.
const ALLOWED: [(&str, &str, &str); 4] = [
    (
        "engine/src/results/budget.rs",
        "200000",
        "DEFAULT_PER_MESSAGE_BUDGET_CHARS: a tool-result budget in chars (Claude Code's), not a model fact",
    ),
    (
        "config/src/vars.rs",
        "200000",
        "help texts of ORBIT_TOOL_RESULT_BUDGET_CHARS (chars) and ORBIT_CONTEXT_WINDOW (checked against the catalog below)",
    ),
    (
        "config/src/vars.rs",
        "claude-opus",
        "help text of ANTHROPIC_MODEL naming the default (checked against the catalog below)",
    ),
    (
        "config/src/vars.rs",
        "gpt-4.1",
        "help text of OPENAI_MODEL naming the default (checked against the catalog below)",
    ),
];

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The non-test code lines of a source file: up to its first
/// `#[cfg(test)]`, without comment lines; none for a test-only file.
fn code_lines(path: &Path, text: &str) -> Vec<(usize, String)> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name == "tests.rs" || name.ends_with("_tests.rs") {
        return Vec::new();
    }
    text.lines()
        .enumerate()
        .take_while(|(_, line)| line.trim() != "#[cfg(test)]")
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .map(|(i, line)| (i + 1, line.to_string()))
        .collect()
}

/// The numbers written in `line`, digits only (`1_047_576` → `1047576`,
/// `200_000u64` → `200000`).
fn numbers(line: &str) -> Vec<String> {
    line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|token| token.starts_with(|c: char| c.is_ascii_digit()))
        .map(|token| {
            token
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '_')
                .filter(char::is_ascii_digit)
                .collect()
        })
        .collect()
}

/// What `line` writes that only the catalog may.
fn model_literals(line: &str) -> Vec<&'static str> {
    let numbers = numbers(line);
    let mut found: Vec<&'static str> = WINDOW_NUMBERS
        .into_iter()
        .filter(|n| numbers.iter().any(|m| m == n))
        .collect();
    found.extend(MODEL_TEXTS.into_iter().filter(|t| line.contains(t)));
    found
}

#[test]
fn no_model_number_outside_the_catalog() {
    let crates = crates_dir();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&crates).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if !TEST_CRATES.contains(&name.as_str()) {
            rust_files(&entry.path().join("src"), &mut files);
        }
    }
    assert!(files.len() > 50, "found only {} files", files.len());
    let mut offending = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(&crates)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel.starts_with(CATALOG_DIR) {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for (n, line) in code_lines(path, &text) {
            for literal in model_literals(&line) {
                let allowed = ALLOWED
                    .iter()
                    .any(|(file, lit, _)| *file == rel && *lit == literal);
                if !allowed {
                    offending.push(format!("crates/{rel}:{n}: `{literal}` in: {}", line.trim()));
                }
            }
        }
    }
    assert!(
        offending.is_empty(),
        "model facts belong in orbit_model::catalog (crates/model/src/catalog); read them from there:\n{}",
        offending.join("\n")
    );
}

#[test]
fn the_search_finds_what_it_looks_for() {
    assert_eq!(model_literals("const W: u64 = 1_047_576;"), vec!["1047576"]);
    assert_eq!(model_literals("let w = 200000u64;"), vec!["200000"]);
    assert_eq!(model_literals("x(200_000)"), vec!["200000"]);
    assert_eq!(
        model_literals(r#"model: "claude-sonnet-4-5".into()"#),
        vec!["claude-sonnet"]
    );
    assert!(model_literals("let n = 2_000_000;").is_empty());
    assert!(model_literals(r#""/etc/claude-code/managed-settings.json""#).is_empty());
    let path = Path::new("x.rs");
    let text = "// 200_000\nconst A: u64 = 128_000;\n#[cfg(test)]\nconst B: u64 = 400_000;\n";
    let lines = code_lines(path, text);
    assert_eq!(lines, vec![(2, "const A: u64 = 128_000;".to_string())]);
}

#[test]
fn help_texts_allowed_above_say_what_the_catalog_says() {
    let vars = std::fs::read_to_string(crates_dir().join("config/src/vars.rs")).unwrap();
    let anthropic = catalog::default_model(Provider::Anthropic);
    let openai = catalog::default_model(Provider::OpenAi);
    for needle in [
        format!("default `{anthropic}`"),
        format!("default `{openai}`"),
        format!(
            "{} for Claude models, {LOCAL_CONTEXT_WINDOW_TOKENS} for the local model",
            catalog::context_window_tokens(anthropic)
        ),
    ] {
        assert!(
            vars.contains(&needle),
            "config/src/vars.rs no longer says `{needle}`"
        );
    }
    assert_eq!(catalog::default_model(Provider::Local), LOCAL_MODEL_ID);
}

#[test]
fn the_readme_alias_table_is_the_catalogs() {
    let readme = std::fs::read_to_string(crates_dir().join("../README.md")).unwrap();
    let table = readme
        .split("**Model aliases**")
        .nth(1)
        .expect("README has the model alias table");
    let rows: Vec<(String, String)> = table
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let alias = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            let id = cells.get(2)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((alias.to_string(), id.to_string()))
        })
        .collect();
    let mut want: Vec<(String, String)> = catalog::ALIASES
        .iter()
        .map(|(a, id)| (a.to_string(), id.to_string()))
        .collect();
    let mut got = rows.clone();
    want.sort();
    got.sort();
    assert_eq!(got, want, "README.md's alias table: {rows:?}");
}
