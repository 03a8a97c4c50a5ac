//! LS on real temp trees: tree format, gitignore, hidden files, `ignore`
//! globs, the 1,000-entry cap.

use orbit_tool::CallFacts;
use orbit_tools::ToolUseContext;
use serde_json::{Value, json};

use super::glob::Tree;
use super::harness::{Refusal, builtin, facts, output, run, text};

/// The text of a listing that must succeed.
async fn ls(ctx: &ToolUseContext, input: Value) -> String {
    let out = output(run(&builtin("LS"), ctx, input).await);
    assert!(!out.is_error, "unexpected error: {out:?}");
    text(&out).to_string()
}

fn tree() -> Tree {
    let t = Tree::new();
    t.file(".gitignore", "target/\n", 0);
    // Empty files: the listing shows names only.
    for path in [
        "Cargo.toml",
        "src/main.rs",
        "src/util/mod.rs",
        "target/debug/bin",
        ".secret/key",
        "docs/a.log",
        "docs/guide.md",
    ] {
        t.file(path, "", 0);
    }
    t
}

#[tokio::test]
async fn lists_a_tree_respecting_gitignore_and_hidden_files() {
    let t = tree();
    let out = ls(&t.ctx(""), json!({"path": t.root})).await;
    assert_eq!(
        out,
        format!(
            "- {}/\n  - Cargo.toml\n  - docs/\n    - a.log\n    - guide.md\n  - src/\n    - main.rs\n    - util/\n      - mod.rs",
            t.root.display()
        )
    );
}

#[tokio::test]
async fn ignore_globs_prune_entries_and_relative_paths_work() {
    let t = tree();
    let out = ls(&t.ctx(""), json!({"path": "docs", "ignore": ["*.log"]})).await;
    assert_eq!(out, format!("- {}/docs/\n  - guide.md", t.root.display()));
    let out = ls(&t.ctx(""), json!({"path": "src", "ignore": ["util"]})).await;
    assert_eq!(out, format!("- {}/src/\n  - main.rs", t.root.display()));
}

#[tokio::test]
async fn caps_the_listing_at_1000_entries_with_a_note() {
    let t = Tree::new();
    for i in 0..1_005 {
        t.file(&format!("f{i:04}.txt"), "", 0);
    }
    let out = ls(&t.ctx(""), json!({"path": "."})).await;
    let note = "There are more than 1000 files in the repository. Use the LS tool (passing a specific path), Bash tool, and other tools to explore nested directories. The first 1000 files and directories are included below:\n\n";
    assert!(out.starts_with(note), "{}", &out[..200]);
    let listing: Vec<&str> = out[note.len()..].lines().collect();
    assert_eq!(listing.len(), 1_001);
    assert_eq!(listing[0], format!("- {}/", t.root.display()));
    assert_eq!(listing[1], "  - f0000.txt");
    assert_eq!(listing[1_000], "  - f0999.txt");
}

#[tokio::test]
async fn missing_or_non_directory_paths_are_validation_errors() {
    let t = tree();
    let ctx = t.ctx("");
    let err = run(&builtin("LS"), &ctx, json!({"path": "nope"}))
        .await
        .unwrap_refusal();
    assert_eq!(
        err,
        format!(
            "Directory does not exist: {0}/nope. Note: your current working directory is {0}.",
            t.root.display()
        )
    );
    let err = run(&builtin("LS"), &ctx, json!({"path": "Cargo.toml"}))
        .await
        .unwrap_refusal();
    assert_eq!(
        err,
        format!("Path is not a directory: {}/Cargo.toml", t.root.display())
    );
}

#[tokio::test]
async fn a_bad_ignore_glob_is_a_validation_error() {
    let t = tree();
    let err = run(
        &builtin("LS"),
        &t.ctx(""),
        json!({"path": ".", "ignore": ["a[b"]}),
    )
    .await
    .unwrap_refusal();
    assert!(err.starts_with("Invalid ignore glob `a[b`: "), "{err}");
}

#[tokio::test]
async fn declares_itself_read_only_and_concurrency_safe() {
    let t = tree();
    let ctx = t.ctx("src");
    let tool = builtin("LS");
    assert_eq!(tool.input_schema()["required"], json!(["path"]));
    assert_eq!(
        facts(&tool, &ctx, &json!({"path": "../docs"})),
        CallFacts {
            read_only: true,
            concurrency_safe: true,
            reads: vec![t.root.join("docs")],
            subject: "../docs".into(),
            ..CallFacts::default()
        }
    );
}
