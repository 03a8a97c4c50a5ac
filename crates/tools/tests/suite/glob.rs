//! Glob on real temp trees: gitignore, hidden files, mtime order, the
//! 100-result cap, paths relative to the cwd. Also the small helpers the
//! Grep and LS suites share (`Tree`, `run`).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use orbit_tool::TypedTool;
use orbit_tools::ToolUseContext;
use orbit_tools::builtin::glob::GlobTool;
use serde_json::json;

use super::harness::{assert_search_facts, missing_under_cwd, refused, success_text};

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

/// Searches over `sample_tree` from its root: gitignore respected, hidden
/// dirs skipped, newest first; `*` stays in one directory; `path` is
/// resolved against the cwd (placeholder strings mean the cwd); an
/// absolute pattern searches from its literal prefix.
#[tokio::test]
async fn searches_over_the_sample_tree() {
    let t = sample_tree();
    let absolute = format!("{}/src/**/*.rs", t.root.display());
    // (pattern, path ("" for none), the listing)
    let rows = [
        ("**/*.rs", "", "src/nested/b.rs\nmain.rs\nsrc/a.rs"),
        ("*.rs", "", "main.rs"),
        ("src/*.rs", "", "src/a.rs"),
        ("**/*.py", "", "No files found"),
        ("**/*.rs", "src", "src/nested/b.rs\nsrc/a.rs"),
        ("*.md", "undefined", "README.md"),
        (absolute.as_str(), "", "src/nested/b.rs\nsrc/a.rs"),
    ];
    let ctx = t.ctx("");
    for (pattern, path, expected) in rows {
        let mut input = json!({ "pattern": pattern });
        if !path.is_empty() {
            input["path"] = json!(path);
        }
        let out = success_text(GlobTool, &ctx, input.clone()).await;
        assert_eq!(out, expected, "{input}");
    }
}

#[tokio::test]
async fn equal_mtimes_are_ordered_by_path() {
    let t = Tree::new();
    for name in ["c.txt", "a.txt", "b.txt"] {
        t.file(name, "x", 7);
    }
    let out = success_text(GlobTool, &t.ctx(""), json!({"pattern": "*.txt"})).await;
    assert_eq!(out, "a.txt\nb.txt\nc.txt");
}

#[tokio::test]
async fn truncates_at_100_keeping_the_newest() {
    let t = Tree::new();
    for i in 0..150u64 {
        t.file(&format!("f/{i:03}.txt"), "x", i);
    }
    let out = success_text(GlobTool, &t.ctx(""), json!({"pattern": "**/*.txt"})).await;
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
async fn results_outside_cwd_are_absolute() {
    let t = Tree::new();
    t.file("proj/in.txt", "x", 1);
    let other = t.file("other/out.txt", "x", 1);
    let ctx = t.ctx("proj");
    for input in [
        json!({"pattern": "*.txt", "path": "../other"}),
        json!({"pattern": "../other/*.txt"}),
    ] {
        let out = success_text(GlobTool, &ctx, input).await;
        assert_eq!(out, other.display().to_string());
    }
}

#[tokio::test]
async fn missing_directory_is_a_validation_error() {
    let t = Tree::new();
    let input = json!({"pattern": "*", "path": "nope"});
    let err = refused(GlobTool, &t.ctx(""), input).await;
    assert_eq!(err, missing_under_cwd("Directory", &t.root, "nope"));
}

#[tokio::test]
async fn declares_itself_read_only_and_concurrency_safe() {
    let t = Tree::new();
    let ctx = t.ctx("sub");
    let rows = [
        (json!({"pattern": "*"}), t.root.join("sub")),
        (
            json!({"pattern": "*", "path": "../x/./y"}),
            t.root.join("x/y"),
        ),
    ];
    assert_search_facts(GlobTool, &ctx, &rows);
    let tool = GlobTool;
    assert_eq!(tool.input_schema()["required"], json!(["pattern"]));
    assert_eq!(tool.input_schema()["additionalProperties"], json!(false));
}
