//! Glob, Grep and LS end to end through the engine (issue 3): the exact
//! tool_result the model receives.

use std::fs::{self, File};
use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use super::builtin_tools::*;

/// Writes `content` to `root/rel` (parents created) with an mtime `age_s`
/// seconds in the past, so "newest first" orders are deterministic.
fn file_aged(root: &Path, rel: &str, content: &str, age_s: u64) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, content).unwrap();
    let mtime = SystemTime::now() - Duration::from_secs(age_s);
    File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
}

/// Empty files `(rel, age_s)` under `root` (see [`file_aged`]).
fn empty_files_aged(root: &Path, files: &[(&str, u64)]) {
    for (rel, age_s) in files {
        file_aged(root, rel, "", *age_s);
    }
}

// --------------------------------------------------------------------- Glob

#[tokio::test]
async fn glob_lists_matches_newest_first_relative_to_the_cwd() {
    let (_dir, root) = temp_dir();
    empty_files_aged(
        &root,
        &[
            ("old.rs", 300),
            ("src/new.rs", 10),
            ("src/mid.rs", 100),
            ("notes.txt", 1),
        ],
    );
    fs::write(root.join(".gitignore"), "target/\n").unwrap();
    file_aged(&root, "target/built.rs", "", 0);
    let r = call_one(&root, "Glob", json!({"pattern": "**/*.rs"})).await;
    assert_eq!(said(&r), ("src/new.rs\nsrc/mid.rs\nold.rs", false));
}

#[tokio::test]
async fn glob_results_are_relative_to_the_cwd_a_bash_cd_left() {
    let (_dir, root) = temp_dir();
    empty_files_aged(
        &root,
        &[
            ("top.rs", 300),
            ("src/new.rs", 10),
            ("src/deep/old.rs", 100),
        ],
    );
    let run = run_calls(
        &root,
        &[
            ("Bash", json!({"command": "cd src"})),
            ("Glob", json!({"pattern": "**/*.rs"})),
            ("Glob", json!({"pattern": "*.rs", "path": ".."})),
        ],
    )
    .await;
    assert_eq!(said(&run.results[1]), ("new.rs\ndeep/old.rs", false));
    // Outside the cwd, paths are absolute.
    let top = root.join("top.rs").display().to_string();
    assert_eq!(said(&run.results[2]), (top.as_str(), false));
}

#[tokio::test]
async fn glob_caps_at_100_results_with_a_note() {
    let (_dir, root) = temp_dir();
    for i in 0..105 {
        file_aged(&root, &format!("f{i:03}.txt"), "", 1_000 - i);
    }
    let r = call_one(&root, "Glob", json!({"pattern": "*.txt"})).await;
    let mut expected: Vec<String> = (5..105).rev().map(|i| format!("f{i:03}.txt")).collect();
    expected
        .push("(Results are truncated. Consider using a more specific path or pattern.)".into());
    assert_eq!(said(&r), (expected.join("\n").as_str(), false));
}

// --------------------------------------------------------------------- Grep

/// Three files: two mention `needle` (b.rs more recently modified).
fn grep_tree(root: &Path) {
    file_aged(root, "a.rs", "fn a() {}\nlet needle = 1;\nend\n", 200);
    file_aged(
        root,
        "src/b.rs",
        "one\ntwo\nneedle here\nthree\nfour\nNEEDLE again\n",
        50,
    );
    file_aged(root, "c.txt", "nothing to see\n", 10);
}

/// Grep's modes and filters over [`grep_tree`], in one session: what the
/// model receives.
#[tokio::test]
async fn grep_answers_each_mode_exactly() {
    let (_dir, root) = temp_dir();
    grep_tree(&root);
    let grep = |input: Value, text: &str| (input, text.to_string(), false);
    assert_each_said(
        &root,
        "Grep",
        &[
            // files_with_matches is the default mode.
            grep(
                json!({"pattern": "needle"}),
                "Found 2 files\nsrc/b.rs\na.rs",
            ),
            // Content with line numbers and context: b.rs's context lines 4
            // and 5 are adjacent, one group, no `--` (as rg).
            grep(
                json!({"pattern": "needle", "output_mode": "content", "-n": true, "-C": 1, "-i": true}),
                "a.rs-1-fn a() {}\n\
a.rs:2:let needle = 1;\n\
a.rs-3-end\n\
--\n\
src/b.rs-2-two\n\
src/b.rs:3:needle here\n\
src/b.rs-4-three\n\
src/b.rs-5-four\n\
src/b.rs:6:NEEDLE again",
            ),
            // Counts per file and in total.
            grep(
                json!({"pattern": "needle", "output_mode": "count", "-i": true}),
                "a.rs:1\nsrc/b.rs:2\n\nFound 3 total occurrences across 2 files.",
            ),
            grep(json!({"pattern": "haystack"}), "No files found"),
            grep(json!({"pattern": "see", "type": "rust"}), "No files found"),
            grep(
                json!({"pattern": "see", "glob": "*.txt"}),
                "Found 1 file\nc.txt",
            ),
            grep(
                json!({"pattern": "needle here\\s+three", "output_mode": "content"}),
                "No matches found",
            ),
            grep(
                json!({"pattern": "needle here\\s+three", "output_mode": "content", "multiline": true}),
                "src/b.rs:3:needle here\nsrc/b.rs:4:three",
            ),
            grep(
                json!({"pattern": "needle", "-i": true, "output_mode": "content", "head_limit": 2}),
                "a.rs:2:let needle = 1;\nsrc/b.rs:3:needle here",
            ),
        ],
    )
    .await;
}

// ----------------------------------------------------------------------- LS

#[tokio::test]
async fn ls_lists_a_tree_skipping_hidden_and_ignored_entries() {
    let (_dir, root) = temp_dir();
    for rel in [
        "src/main.rs",
        "src/lib.rs",
        "Cargo.toml",
        ".hidden/x",
        "logs/a.log",
    ] {
        file_aged(&root, rel, "", 0);
    }
    let r = call_one(&root, "LS", json!({"path": ".", "ignore": ["*.log"]})).await;
    let expected = format!(
        "- {}/\n  - Cargo.toml\n  - logs/\n  - src/\n    - lib.rs\n    - main.rs",
        root.display()
    );
    assert_eq!(said(&r), (expected.as_str(), false));
}
