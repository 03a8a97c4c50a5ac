//! Grep on real temp trees: every output mode and flag, gitignore, binary
//! and VCS skipping, ordering, head_limit, errors.

use orbit_tool::{ResultLimit, TypedTool};
use orbit_tools::builtin::grep::GrepTool;
use serde_json::{Value, json};

use super::contract::{facts, success_text, try_call};
use super::glob::Tree;

fn tree() -> Tree {
    let t = Tree::new();
    t.file(".gitignore", "build/\n", 0);
    t.file(
        "src/main.rs",
        "fn main() {\n    println!(\"hello\");\n}\n",
        10,
    );
    t.file(
        "src/lib.rs",
        "pub fn greet() -> &'static str {\n    \"Hello\"\n}\n",
        30,
    );
    t.file("web/app.ts", "const hello = 1;\n", 20);
    t.file("web/view.tsx", "export const View = () => hello;\n", 5);
    t.file("notes.md", "say hello\nand HELLO again\n", 1);
    t.file("build/out.rs", "hello from build\n", 99);
    t.file("data.bin", b"hello\x00\x01\x02 binary", 99);
    t.file(".config/settings.txt", "hello hidden\n", 2);
    t.file(".git/config", "hello vcs\n", 99);
    t
}

async fn grep(t: &Tree, input: Value) -> String {
    success_text(GrepTool::new(), &t.ctx(""), input).await
}

#[tokio::test]
async fn files_with_matches_is_default_newest_first_and_skips_ignored_binary_and_vcs() {
    let t = tree();
    let out = grep(&t, json!({"pattern": "hello"})).await;
    // Hidden files are searched (like Claude Code's `rg --hidden`), .git is not.
    assert_eq!(
        out,
        "Found 5 files\nweb/app.ts\nsrc/main.rs\nweb/view.tsx\n.config/settings.txt\nnotes.md"
    );
}

#[tokio::test]
async fn one_file_is_singular() {
    let t = tree();
    let out = grep(&t, json!({"pattern": "greet"})).await;
    assert_eq!(out, "Found 1 file\nsrc/lib.rs");
}

#[tokio::test]
async fn content_mode_has_line_numbers_by_default_and_sorts_by_path() {
    let t = tree();
    let out = grep(
        &t,
        json!({"pattern": "hello", "output_mode": "content", "path": "src"}),
    )
    .await;
    assert_eq!(out, "src/main.rs:2:    println!(\"hello\");");
    let out = grep(
        &t,
        json!({"pattern": "hello", "output_mode": "content", "glob": "*.{ts,tsx}"}),
    )
    .await;
    assert_eq!(
        out,
        "web/app.ts:1:const hello = 1;\nweb/view.tsx:1:export const View = () => hello;"
    );
}

#[tokio::test]
async fn content_mode_without_line_numbers() {
    let t = tree();
    let out = grep(
        &t,
        json!({"pattern": "hello", "output_mode": "content", "-n": false, "glob": "*.md"}),
    )
    .await;
    assert_eq!(out, "notes.md:say hello");
}

#[tokio::test]
async fn case_insensitive_flag() {
    let t = tree();
    let out = grep(
        &t,
        json!({"pattern": "hello", "output_mode": "content", "-i": true, "glob": "*.md"}),
    )
    .await;
    assert_eq!(out, "notes.md:1:say hello\nnotes.md:2:and HELLO again");
}

#[tokio::test]
async fn context_lines_use_dashes_and_separate_groups() {
    let t = Tree::new();
    let body: String = (1..=10)
        .map(|i| {
            if i == 2 || i == 8 {
                format!("hit {i}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    t.file("f.txt", &body, 1);
    t.file("g.txt", "hit g\n", 1);
    let out = grep(
        &t,
        json!({"pattern": "hit", "output_mode": "content", "-C": 1}),
    )
    .await;
    assert_eq!(
        out,
        "f.txt-1-line 1\nf.txt:2:hit 2\nf.txt-3-line 3\n--\nf.txt-7-line 7\nf.txt:8:hit 8\nf.txt-9-line 9\n--\ng.txt:1:hit g"
    );
    let out = grep(
        &t,
        json!({"pattern": "hit 8", "output_mode": "content", "-A": 2, "-B": 1}),
    )
    .await;
    assert_eq!(
        out,
        "f.txt-7-line 7\nf.txt:8:hit 8\nf.txt-9-line 9\nf.txt-10-line 10"
    );
    let out = grep(
        &t,
        json!({"pattern": "hit 8", "output_mode": "content", "-B": 1, "-n": false}),
    )
    .await;
    assert_eq!(out, "f.txt-line 7\nf.txt:hit 8");
}

#[tokio::test]
async fn count_mode_lists_counts_and_a_total() {
    let t = tree();
    let out = grep(
        &t,
        json!({"pattern": "hello", "output_mode": "count", "-i": true}),
    )
    .await;
    assert_eq!(
        out,
        ".config/settings.txt:1\nnotes.md:2\nsrc/lib.rs:1\nsrc/main.rs:1\nweb/app.ts:1\nweb/view.tsx:1\n\nFound 7 total occurrences across 6 files."
    );
    let out = grep(&t, json!({"pattern": "greet", "output_mode": "count"})).await;
    assert_eq!(
        out,
        "src/lib.rs:1\n\nFound 1 total occurrence across 1 file."
    );
}

#[tokio::test]
async fn type_filter_uses_ripgrep_types() {
    let t = tree();
    let out = grep(&t, json!({"pattern": "hello", "type": "rust", "-i": true})).await;
    assert_eq!(out, "Found 2 files\nsrc/lib.rs\nsrc/main.rs");
    let err = try_call(
        GrepTool::new(),
        &t.ctx(""),
        json!({"pattern": "x", "type": "nosuchlang"}),
    )
    .await
    .unwrap_err();
    assert!(err.starts_with("Invalid file type `nosuchlang`: "), "{err}");
}

#[tokio::test]
async fn multiline_lets_patterns_span_lines() {
    let t = Tree::new();
    t.file("s.rs", "struct Foo {\n    a: i32,\n}\nstruct Bar;\n", 1);
    let input = json!({"pattern": "struct Foo \\{\\s*a: i32", "output_mode": "content"});
    let out = grep(&t, input.clone()).await;
    assert_eq!(out, "No matches found");
    let mut multi = input;
    multi["multiline"] = json!(true);
    let out = grep(&t, multi).await;
    assert_eq!(out, "s.rs:1:struct Foo {\ns.rs:2:    a: i32,");
    let out = grep(&t, json!({"pattern": "Foo.*Bar", "multiline": true})).await;
    assert_eq!(out, "Found 1 file\ns.rs");
}

#[tokio::test]
async fn head_limit_keeps_the_first_entries() {
    let t = tree();
    let out = grep(&t, json!({"pattern": "hello", "head_limit": 2})).await;
    assert_eq!(out, "Found 2 files\nweb/app.ts\nsrc/main.rs");
    let out = grep(
        &t,
        json!({"pattern": "hello", "output_mode": "content", "-i": true, "head_limit": 2}),
    )
    .await;
    assert_eq!(
        out,
        ".config/settings.txt:1:hello hidden\nnotes.md:1:say hello"
    );
    let out = grep(
        &t,
        json!({"pattern": "hello", "output_mode": "count", "head_limit": 1}),
    )
    .await;
    assert_eq!(
        out,
        ".config/settings.txt:1\n\nFound 1 total occurrence across 1 file."
    );
    // 0 means no limit.
    let out = grep(&t, json!({"pattern": "greet", "head_limit": 0})).await;
    assert_eq!(out, "Found 1 file\nsrc/lib.rs");
}

#[tokio::test]
async fn nothing_found_texts() {
    let t = tree();
    assert_eq!(
        grep(&t, json!({"pattern": "zebra"})).await,
        "No files found"
    );
    assert_eq!(
        grep(&t, json!({"pattern": "zebra", "output_mode": "content"})).await,
        "No matches found"
    );
    assert_eq!(
        grep(&t, json!({"pattern": "zebra", "output_mode": "count"})).await,
        "No matches found"
    );
}

#[tokio::test]
async fn long_lines_are_cut_in_content_mode() {
    let t = Tree::new();
    let long = format!("needle{}", "x".repeat(1_000));
    t.file("long.txt", format!("{long}\n"), 1);
    let out = grep(&t, json!({"pattern": "needle", "output_mode": "content"})).await;
    let expected_text: String = long.chars().take(500).collect();
    assert_eq!(
        out,
        format!("long.txt:1:{expected_text} [... omitted end of long line]")
    );
}

#[tokio::test]
async fn a_file_path_searches_that_file() {
    let t = tree();
    let out = grep(
        &t,
        json!({"pattern": "hello", "path": "notes.md", "output_mode": "content"}),
    )
    .await;
    assert_eq!(out, "notes.md:1:say hello");
}

#[tokio::test]
async fn invalid_regex_and_missing_path_are_validation_errors() {
    let t = tree();
    let ctx = t.ctx("");
    let err = try_call(GrepTool::new(), &ctx, json!({"pattern": "fn ("}))
        .await
        .unwrap_err();
    assert!(err.starts_with("Invalid regex pattern `fn (`: "), "{err}");
    let err = try_call(
        GrepTool::new(),
        &ctx,
        json!({"pattern": "x", "path": "missing"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err,
        format!(
            "Path does not exist: {}/missing. Note: your current working directory is {}.",
            t.root.display(),
            t.root.display()
        )
    );
}

#[tokio::test]
async fn declares_itself_read_only_and_concurrency_safe() {
    let t = tree();
    let ctx = t.ctx("");
    let f = facts(GrepTool::new(), &ctx, json!({"pattern": "x"}));
    assert!(f.read_only && f.concurrency_safe && !f.destructive);
    assert_eq!(f.reads, vec![t.root.clone()]);
    assert_eq!(f.subject, "x");
    let f = facts(
        GrepTool::new(),
        &ctx,
        json!({"pattern": "x", "path": "src/main.rs"}),
    );
    assert_eq!(f.reads, vec![t.root.join("src/main.rs")]);
    let tool = GrepTool::new();
    assert_eq!(tool.info().name, "Grep");
    assert_eq!(tool.info().result_limit, ResultLimit::PersistOver(20_000));
}
