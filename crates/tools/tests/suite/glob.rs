//! Glob on real temp trees: gitignore, hidden files, mtime order, the
//! 100-result cap, paths relative to the cwd. Also the small helpers the
//! Grep and LS suites share (`Tree`, `run`).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use orbit_tool::{ResultLimit, TypedTool};
use orbit_tools::ToolUseContext;
use orbit_tools::builtin::glob::GlobTool;
use serde_json::json;

use super::contract::{facts, success_text, try_call};

/// A temp directory with helpers to lay out files and set their mtimes.
pub struct Tree {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
}

impl Tree {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        Self { _dir: dir, root }
    }

    /// Writes `path` (relative to the root) and sets its mtime to `secs`
    /// after an arbitrary epoch, so order tests do not depend on timing.
    pub fn file(&self, path: &str, content: impl AsRef<[u8]>, secs: u64) -> PathBuf {
        let p = self.root.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, content).unwrap();
        set_mtime(&p, secs);
        p
    }

    /// A session whose cwd is `sub` under the root.
    pub fn ctx(&self, sub: &str) -> ToolUseContext {
        let cwd = if sub.is_empty() {
            self.root.clone()
        } else {
            self.root.join(sub)
        };
        fs::create_dir_all(&cwd).unwrap();
        ToolUseContext::new("test-session", cwd, self.root.join(".orbit-data"))
    }
}

pub fn set_mtime(path: &Path, secs: u64) {
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000 + secs))
        .unwrap();
}

fn sample_tree() -> Tree {
    let t = Tree::new();
    t.file(".gitignore", "target/\n*.log\n", 0);
    t.file("src/a.rs", "a", 10);
    t.file("src/nested/b.rs", "b", 30);
    t.file("main.rs", "m", 20);
    t.file("target/debug/c.rs", "c", 99);
    t.file("x.log", "log", 99);
    t.file(".hidden/d.rs", "d", 99);
    t.file("README.md", "r", 5);
    t
}

#[tokio::test]
async fn respects_gitignore_skips_hidden_and_sorts_newest_first() {
    let t = sample_tree();
    let out = success_text(GlobTool::new(), &t.ctx(""), json!({"pattern": "**/*.rs"})).await;
    assert_eq!(out, "src/nested/b.rs\nmain.rs\nsrc/a.rs");
}

#[tokio::test]
async fn single_star_stays_in_one_directory() {
    let t = sample_tree();
    let out = success_text(GlobTool::new(), &t.ctx(""), json!({"pattern": "*.rs"})).await;
    assert_eq!(out, "main.rs");
    let out = success_text(GlobTool::new(), &t.ctx(""), json!({"pattern": "src/*.rs"})).await;
    assert_eq!(out, "src/a.rs");
}

#[tokio::test]
async fn equal_mtimes_are_ordered_by_path() {
    let t = Tree::new();
    for name in ["c.txt", "a.txt", "b.txt"] {
        t.file(name, "x", 7);
    }
    let out = success_text(GlobTool::new(), &t.ctx(""), json!({"pattern": "*.txt"})).await;
    assert_eq!(out, "a.txt\nb.txt\nc.txt");
}

#[tokio::test]
async fn truncates_at_100_keeping_the_newest() {
    let t = Tree::new();
    for i in 0..150u64 {
        t.file(&format!("f/{i:03}.txt"), "x", i);
    }
    let out = success_text(GlobTool::new(), &t.ctx(""), json!({"pattern": "**/*.txt"})).await;
    let mut expected: Vec<String> = (50..150u64)
        .rev()
        .map(|i| format!("f/{i:03}.txt"))
        .collect();
    expected.push(
        "(Results are truncated. Consider using a more specific path or pattern.)".to_string(),
    );
    assert_eq!(out, expected.join("\n"));
}

#[tokio::test]
async fn no_match_says_no_files_found() {
    let t = sample_tree();
    let out = success_text(GlobTool::new(), &t.ctx(""), json!({"pattern": "**/*.py"})).await;
    assert_eq!(out, "No files found");
}

#[tokio::test]
async fn path_is_resolved_against_cwd_and_results_stay_relative_to_cwd() {
    let t = sample_tree();
    let ctx = t.ctx("");
    let out = success_text(
        GlobTool::new(),
        &ctx,
        json!({"pattern": "**/*.rs", "path": "src"}),
    )
    .await;
    assert_eq!(out, "src/nested/b.rs\nsrc/a.rs");
    // The placeholder strings models send for "omitted" mean the cwd.
    let out = success_text(
        GlobTool::new(),
        &ctx,
        json!({"pattern": "*.md", "path": "undefined"}),
    )
    .await;
    assert_eq!(out, "README.md");
}

#[tokio::test]
async fn results_outside_cwd_are_absolute() {
    let t = Tree::new();
    t.file("proj/in.txt", "x", 1);
    let other = t.file("other/out.txt", "x", 1);
    let ctx = t.ctx("proj");
    let out = success_text(
        GlobTool::new(),
        &ctx,
        json!({"pattern": "*.txt", "path": "../other"}),
    )
    .await;
    assert_eq!(out, other.display().to_string());
    let out = success_text(GlobTool::new(), &ctx, json!({"pattern": "../other/*.txt"})).await;
    assert_eq!(out, other.display().to_string());
}

#[tokio::test]
async fn absolute_pattern_searches_from_its_literal_prefix() {
    let t = sample_tree();
    let pattern = format!("{}/src/**/*.rs", t.root.display());
    let out = success_text(GlobTool::new(), &t.ctx(""), json!({"pattern": pattern})).await;
    assert_eq!(out, "src/nested/b.rs\nsrc/a.rs");
}

#[tokio::test]
async fn missing_directory_is_a_validation_error() {
    let t = Tree::new();
    let ctx = t.ctx("");
    let err = try_call(
        GlobTool::new(),
        &ctx,
        json!({"pattern": "*", "path": "nope"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err,
        format!(
            "Directory does not exist: {}/nope. Note: your current working directory is {}.",
            t.root.display(),
            t.root.display()
        )
    );
}

#[tokio::test]
async fn declares_itself_read_only_and_concurrency_safe() {
    let t = Tree::new();
    let ctx = t.ctx("sub");
    let f = facts(GlobTool::new(), &ctx, json!({"pattern": "*"}));
    assert!(f.read_only && f.concurrency_safe && !f.destructive);
    assert_eq!(f.reads, vec![t.root.join("sub")]);
    assert_eq!(f.subject, "*");
    assert!(f.command.is_none() && !f.failure_cancels_siblings);
    let f = facts(
        GlobTool::new(),
        &ctx,
        json!({"pattern": "*", "path": "../x/./y"}),
    );
    assert_eq!(f.reads, vec![t.root.join("x/y")]);
    let tool = GlobTool::new();
    assert_eq!(tool.info().name, "Glob");
    assert_eq!(tool.info().result_limit, ResultLimit::PersistOver(100_000));
    assert_eq!(tool.input_schema()["required"], json!(["pattern"]));
    assert_eq!(tool.input_schema()["additionalProperties"], json!(false));
}
