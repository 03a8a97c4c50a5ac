//! LS on real temp trees: tree format, gitignore, hidden files, `ignore`
//! globs, the 1,000-entry cap.

use orbit_tools::Tool;
use orbit_tools::builtin::ls::LsTool;
use serde_json::json;

use super::glob::{Tree, ok_text, run};

fn tree() -> Tree {
    let t = Tree::new();
    t.file(".gitignore", "target/\n", 0);
    t.file("Cargo.toml", "", 0);
    t.file("src/main.rs", "", 0);
    t.file("src/util/mod.rs", "", 0);
    t.file("target/debug/bin", "", 0);
    t.file(".secret/key", "", 0);
    t.file("docs/a.log", "", 0);
    t.file("docs/guide.md", "", 0);
    t
}

#[tokio::test]
async fn lists_a_tree_respecting_gitignore_and_hidden_files() {
    let t = tree();
    let out = ok_text(&LsTool::new(), &t.ctx(""), json!({"path": t.root})).await;
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
    let out = ok_text(
        &LsTool::new(),
        &t.ctx(""),
        json!({"path": "docs", "ignore": ["*.log"]}),
    )
    .await;
    assert_eq!(out, format!("- {}/docs/\n  - guide.md", t.root.display()));
    let out = ok_text(
        &LsTool::new(),
        &t.ctx(""),
        json!({"path": "src", "ignore": ["util"]}),
    )
    .await;
    assert_eq!(out, format!("- {}/src/\n  - main.rs", t.root.display()));
}

#[tokio::test]
async fn caps_the_listing_at_1000_entries_with_a_note() {
    let t = Tree::new();
    for i in 0..1_005 {
        t.file(&format!("f{i:04}.txt"), "", 0);
    }
    let out = ok_text(&LsTool::new(), &t.ctx(""), json!({"path": "."})).await;
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
    let err = run(&LsTool::new(), &ctx, json!({"path": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        format!(
            "Directory does not exist: {0}/nope. Note: your current working directory is {0}.",
            t.root.display()
        )
    );
    let err = run(&LsTool::new(), &ctx, json!({"path": "Cargo.toml"}))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        format!("Path is not a directory: {}/Cargo.toml", t.root.display())
    );
}

#[tokio::test]
async fn declares_itself_read_only_and_concurrency_safe() {
    let tool = LsTool::new();
    let input = json!({"path": "."});
    assert_eq!(tool.name(), "LS");
    assert!(tool.is_read_only(&input));
    assert!(tool.is_concurrency_safe(&input));
    assert_eq!(tool.input_schema()["required"], json!(["path"]));
}
