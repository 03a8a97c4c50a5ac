//! Grep on real temp trees: every output mode and flag, gitignore, binary
//! and VCS skipping, ordering, head_limit, errors.

use orbit_tools::builtin::grep::GrepTool;
use serde_json::{Value, json};

use super::glob::Tree;
use super::harness::{assert_search_facts, missing_under_cwd, refused, success_text};

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
    success_text(GrepTool, &t.ctx(""), input).await
}

/// Searches over `tree()` from its root, one labelled row a search.
#[tokio::test]
async fn searches_over_the_sample_tree() {
    let rows = [
        // Hidden files are searched (like Claude Code's `rg --hidden`), .git is not.
        (
            "files_with_matches is the default, newest first, skipping ignored, binary and VCS",
            json!({"pattern": "hello"}),
            "Found 5 files\nweb/app.ts\nsrc/main.rs\nweb/view.tsx\n.config/settings.txt\nnotes.md",
        ),
        (
            "one file is singular",
            json!({"pattern": "greet"}),
            "Found 1 file\nsrc/lib.rs",
        ),
        (
            "content mode has line numbers by default",
            json!({"pattern": "hello", "output_mode": "content", "path": "src"}),
            "src/main.rs:2:    println!(\"hello\");",
        ),
        (
            "content mode sorts by path",
            json!({"pattern": "hello", "output_mode": "content", "glob": "*.{ts,tsx}"}),
            "web/app.ts:1:const hello = 1;\nweb/view.tsx:1:export const View = () => hello;",
        ),
        (
            "content mode without line numbers",
            json!({"pattern": "hello", "output_mode": "content", "-n": false, "glob": "*.md"}),
            "notes.md:say hello",
        ),
        (
            "case-insensitive flag",
            json!({"pattern": "hello", "output_mode": "content", "-i": true, "glob": "*.md"}),
            "notes.md:1:say hello\nnotes.md:2:and HELLO again",
        ),
        (
            "count mode lists counts and a total",
            json!({"pattern": "hello", "output_mode": "count", "-i": true}),
            ".config/settings.txt:1\nnotes.md:2\nsrc/lib.rs:1\nsrc/main.rs:1\nweb/app.ts:1\nweb/view.tsx:1\n\nFound 7 total occurrences across 6 files.",
        ),
        (
            "count mode, one occurrence",
            json!({"pattern": "greet", "output_mode": "count"}),
            "src/lib.rs:1\n\nFound 1 total occurrence across 1 file.",
        ),
        (
            "type filter uses ripgrep types",
            json!({"pattern": "hello", "type": "rust", "-i": true}),
            "Found 2 files\nsrc/lib.rs\nsrc/main.rs",
        ),
        (
            "head_limit keeps the first files",
            json!({"pattern": "hello", "head_limit": 2}),
            "Found 2 files\nweb/app.ts\nsrc/main.rs",
        ),
        (
            "head_limit keeps the first lines",
            json!({"pattern": "hello", "output_mode": "content", "-i": true, "head_limit": 2}),
            ".config/settings.txt:1:hello hidden\nnotes.md:1:say hello",
        ),
        (
            "head_limit keeps the first counts",
            json!({"pattern": "hello", "output_mode": "count", "head_limit": 1}),
            ".config/settings.txt:1\n\nFound 1 total occurrence across 1 file.",
        ),
        (
            "head_limit 0 means no limit",
            json!({"pattern": "greet", "head_limit": 0}),
            "Found 1 file\nsrc/lib.rs",
        ),
        (
            "nothing found: files",
            json!({"pattern": "zebra"}),
            "No files found",
        ),
        (
            "nothing found: content",
            json!({"pattern": "zebra", "output_mode": "content"}),
            "No matches found",
        ),
        (
            "nothing found: count",
            json!({"pattern": "zebra", "output_mode": "count"}),
            "No matches found",
        ),
        (
            "a file path searches that file",
            json!({"pattern": "hello", "path": "notes.md", "output_mode": "content"}),
            "notes.md:1:say hello",
        ),
    ];
    let t = tree();
    for (label, input, expected) in rows {
        assert_eq!(grep(&t, input).await, expected, "{label}");
    }
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
    let rows = [
        (
            json!({"pattern": "hit", "output_mode": "content", "-C": 1}),
            "f.txt-1-line 1\nf.txt:2:hit 2\nf.txt-3-line 3\n--\nf.txt-7-line 7\nf.txt:8:hit 8\nf.txt-9-line 9\n--\ng.txt:1:hit g",
        ),
        (
            json!({"pattern": "hit 8", "output_mode": "content", "-A": 2, "-B": 1}),
            "f.txt-7-line 7\nf.txt:8:hit 8\nf.txt-9-line 9\nf.txt-10-line 10",
        ),
        (
            json!({"pattern": "hit 8", "output_mode": "content", "-B": 1, "-n": false}),
            "f.txt-line 7\nf.txt:hit 8",
        ),
    ];
    for (input, expected) in rows {
        assert_eq!(grep(&t, input.clone()).await, expected, "{input}");
    }
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
async fn unknown_type_invalid_regex_and_missing_path_are_validation_errors() {
    let t = tree();
    let ctx = t.ctx("");
    let err = refused(
        GrepTool,
        &ctx,
        json!({"pattern": "x", "type": "nosuchlang"}),
    )
    .await;
    assert!(err.starts_with("Invalid file type `nosuchlang`: "), "{err}");
    let err = refused(GrepTool, &ctx, json!({"pattern": "fn ("})).await;
    assert!(err.starts_with("Invalid regex pattern `fn (`: "), "{err}");
    let err = refused(GrepTool, &ctx, json!({"pattern": "x", "path": "missing"})).await;
    assert_eq!(err, missing_under_cwd("Path", &t.root, "missing"));
}

#[tokio::test]
async fn declares_itself_read_only_and_concurrency_safe() {
    let t = tree();
    let ctx = t.ctx("");
    let rows = [
        (json!({"pattern": "x"}), t.root.clone()),
        (
            json!({"pattern": "x", "path": "src/main.rs"}),
            t.root.join("src/main.rs"),
        ),
    ];
    assert_search_facts(GrepTool, &ctx, &rows);
}
