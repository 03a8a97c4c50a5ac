//! The hierarchy loaded from real files: order, imports, the warnings of
//! skipped imports, caps, hostile targets, nested memory.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use orbit_memory::{Access, Caps, LoadedMemory, Memory, NestedMemory, Sources, load, render};
use orbit_test_support::files::{mkfifo, put};

struct Tree {
    _tmp: tempfile::TempDir,
    top: PathBuf,
}

impl Tree {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().canonicalize().unwrap();
        Self { _tmp: tmp, top }
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        put(&self.top, rel, text)
    }

    /// Writes each `(rel, text)` below the top.
    fn write_all(&self, files: &[(&str, &str)]) {
        for (rel, text) in files {
            self.write(rel, text);
        }
    }

    fn sources(&self) -> Sources {
        Sources {
            cwd: self.top.join("work/proj"),
            home: Some(self.top.join("home")),
            claude_dir: Some(self.top.join("home/.claude")),
            managed: Some(self.top.join("etc/CLAUDE.md")),
        }
    }

    /// The hierarchy of [`Tree::sources`] under the default caps.
    fn load(&self, trusted: bool) -> (Memory, Vec<String>) {
        run(&self.sources(), trusted, Caps::default())
    }
}

fn run(sources: &Sources, trusted: bool, caps: Caps) -> (Memory, Vec<String>) {
    let mut lines = Vec::new();
    let mut warn = |l: &str| lines.push(l.to_string());
    let memory = load(
        sources,
        caps,
        &mut Access {
            trusted,
            deny: &|p: &Path| p.to_string_lossy().contains("secret"),
            warn: &mut warn,
        },
    );
    (memory, lines)
}

fn texts(memory: &Memory) -> Vec<String> {
    memory.files.iter().map(|f| f.text.clone()).collect()
}

/// Asserts that `prompt` holds `needle`.
fn assert_in_prompt(prompt: &str, needle: &str) {
    assert!(prompt.contains(needle), "{needle:?} is not in {prompt}");
}

/// Asserts that `warnings` is one line and that it holds `needle`.
fn assert_one_warning(warnings: &[String], needle: &str) {
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains(needle), "{warnings:?}");
}

#[test]
fn the_whole_hierarchy_in_claude_codes_order() {
    let t = Tree::new();
    std::fs::create_dir_all(t.top.join("work/proj/.git")).unwrap();
    t.write_all(&[
        ("etc/CLAUDE.md", "MANAGED"),
        ("home/.claude/CLAUDE.md", "USER @user-import.md"),
        ("home/.claude/user-import.md", "USER-IMPORTED"),
        ("home/.claude/rules/u.md", "USER-RULE"),
        ("work/CLAUDE.md", "PARENT"),
        ("work/CLAUDE.local.md", "PARENT-LOCAL"),
        (
            "work/proj/CLAUDE.md",
            "PROJECT @imp.md `@span.md`\n```\n@fenced.md\n```\n@missing.md @alice",
        ),
        ("work/proj/imp.md", "IMPORTED"),
        ("work/proj/span.md", "SPAN"),
        ("work/proj/fenced.md", "FENCED"),
        ("work/proj/.claude/CLAUDE.md", "DOT-CLAUDE"),
        ("work/proj/.claude/rules/b.md", "RULE-B"),
        ("work/proj/.claude/rules/a.md", "RULE-A"),
        ("work/proj/CLAUDE.local.md", "LOCAL"),
        ("work/proj/AGENTS.md", "AGENTS @imp.md"),
    ]);
    let (memory, warnings) = t.load(false);
    assert_eq!(
        texts(&memory),
        [
            "MANAGED",
            "USER @user-import.md",
            "USER-IMPORTED",
            "USER-RULE",
            "PARENT",
            "PARENT-LOCAL",
            "PROJECT @imp.md `@span.md`\n```\n@fenced.md\n```\n@missing.md @alice",
            "IMPORTED",
            "DOT-CLAUDE",
            "RULE-A",
            "RULE-B",
            "LOCAL",
            "AGENTS @imp.md",
        ]
    );
    assert_eq!(
        warnings,
        ["skipped @missing.md (imported by CLAUDE.md): it does not exist"]
    );
    let prompt = render(&memory);
    assert_in_prompt(
        &prompt,
        "\n# CLAUDE.md (project instructions from the working directory; follow them)\nPROJECT",
    );
    assert_in_prompt(
        &prompt,
        "\n# ~/.claude/CLAUDE.md (user's private instructions for all projects; follow them)\nUSER",
    );
    assert_in_prompt(
        &prompt,
        "\n# imp.md (imported by CLAUDE.md; follow them)\nIMPORTED",
    );
}

#[test]
fn a_cycle_and_a_too_deep_chain_each_give_one_line() {
    let t = Tree::new();
    t.write_all(&[
        ("work/proj/CLAUDE.md", "@a.md"),
        ("work/proj/a.md", "A @b.md"),
        ("work/proj/b.md", "B @a.md @CLAUDE.md"),
    ]);
    let (memory, warnings) = t.load(false);
    assert_eq!(texts(&memory), ["@a.md", "A @b.md", "B @a.md @CLAUDE.md"]);
    assert_eq!(
        warnings,
        [
            "skipped @a.md (imported by b.md): an import cycle, cut here",
            "skipped @CLAUDE.md (imported by b.md): an import cycle, cut here",
        ]
    );

    let t = Tree::new();
    t.write("work/proj/CLAUDE.md", "@d1.md");
    for n in 1..=7 {
        t.write(
            &format!("work/proj/d{n}.md"),
            &format!("D{n} @d{}.md", n + 1),
        );
    }
    let (memory, warnings) = t.load(false);
    assert_eq!(memory.files.len(), 6, "{:?}", texts(&memory));
    assert_eq!(
        warnings,
        ["skipped @d6.md (imported by d5.md): deeper than 5 imports"]
    );
}

#[test]
fn imports_out_of_an_untrusted_project_are_refused_but_user_files_may() {
    let t = Tree::new();
    t.write_all(&[
        ("elsewhere/notes.md", "OUTSIDE"),
        ("home/secret/key.md", "SECRET"),
    ]);
    t.write(
        "work/proj/CLAUDE.md",
        "@../../elsewhere/notes.md @~/secret/key.md",
    );
    std::fs::create_dir_all(t.top.join("work/proj/.claude")).unwrap();
    symlink(
        t.top.join("elsewhere/notes.md"),
        t.top.join("work/proj/.claude/link.md"),
    )
    .unwrap();
    t.write_all(&[
        ("work/proj/AGENTS.md", "agents"),
        ("work/proj/.claude/CLAUDE.md", "@link.md"),
        ("home/shared.md", "SHARED"),
        ("home/.claude/CLAUDE.md", "@~/shared.md"),
    ]);
    let (memory, warnings) = t.load(false);
    let loaded = texts(&memory);
    assert!(loaded.contains(&"SHARED".to_string()), "{loaded:?}");
    assert!(!loaded.iter().any(|t| t.contains("OUTSIDE")), "{loaded:?}");
    assert!(!loaded.iter().any(|t| t.contains("SECRET")), "{loaded:?}");
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(warnings[0].starts_with("skipped @../../elsewhere/notes.md (imported by CLAUDE.md): "));
    assert!(warnings[0].contains("outside the project"), "{warnings:?}");
    assert!(warnings[1].starts_with("skipped @~/secret/key.md (imported by CLAUDE.md): "));
    assert!(warnings[2].starts_with("skipped @link.md (imported by .claude/CLAUDE.md): "));
    assert!(warnings[2].contains("outside the project"), "{warnings:?}");

    // Trusted: followed, but never to a denied target.
    let (memory, warnings) = t.load(true);
    assert!(texts(&memory).contains(&"OUTSIDE".to_string()));
    assert_one_warning(&warnings, "is denied for reading");
}

#[test]
fn hostile_imports_are_one_line_each_and_never_block() {
    let t = Tree::new();
    let fifo = t.top.join("work/proj/fifo.md");
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    mkfifo(&fifo);
    symlink("/dev/zero", t.top.join("work/proj/zero.md")).unwrap();
    t.write("work/proj/CLAUDE.md", "@fifo.md @zero.md @/dev/zero");
    for trusted in [false, true] {
        let (memory, warnings) = t.load(trusted);
        assert_eq!(memory.files.len(), 1);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings[0].contains("a FIFO"), "{warnings:?}");
    }
}

#[test]
fn caps_cut_with_a_stated_line() {
    let t = Tree::new();
    t.write_all(&[
        ("work/proj/CLAUDE.md", &"x".repeat(300)),
        ("work/proj/CLAUDE.local.md", &"y".repeat(300)),
        ("work/proj/AGENTS.md", "z"),
    ]);
    let caps = Caps {
        file_bytes: 200,
        total_bytes: 350,
    };
    let (memory, warnings) = run(&t.sources(), false, caps);
    let cuts: Vec<Option<String>> = memory.files.iter().map(|f| f.cut.clone()).collect();
    assert_eq!(
        cuts,
        [
            Some("[CLAUDE.md truncated: showing the first 200 of 300 bytes]".to_string()),
            Some("[CLAUDE.local.md truncated: showing the first 150 of 200 bytes (the memory files' 0 KiB total cap)]".to_string()),
        ]
    );
    assert_eq!(
        memory.over_total.as_deref(),
        Some("[memory files left out: AGENTS.md (over the 0 KiB total cap)]")
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
}

#[test]
fn nested_memory_is_sent_once_per_folder_and_file() {
    let t = Tree::new();
    t.write_all(&[
        ("work/proj/CLAUDE.md", "TOP"),
        ("work/proj/sub/CLAUDE.md", "SUB @../CLAUDE.md"),
        ("work/proj/sub/deeper/CLAUDE.md", "DEEPER"),
        ("work/proj/sub/deeper/x.txt", "x"),
    ]);
    let sources = t.sources();
    let (memory, _) = run(&sources, false, Caps::default());
    let loaded = LoadedMemory::default();
    for f in &memory.files {
        loaded.push(f.path.clone(), f.label.clone());
    }
    let warned = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&warned);
    let nested = NestedMemory::new(
        sources.clone(),
        false,
        Arc::new(|_: &Path| false),
        Arc::new(move |l: &str| sink.lock().unwrap().push(l.to_string())),
        loaded.clone(),
    );
    assert_eq!(nested.for_read(&sources.cwd.join("top.txt")), None);
    let first = nested
        .for_read(&sources.cwd.join("sub/deeper/x.txt"))
        .unwrap();
    let sub = sources.cwd.join("sub/CLAUDE.md");
    let deeper = sources.cwd.join("sub/deeper/CLAUDE.md");
    assert_eq!(
        first,
        format!(
            "<system-reminder>\nContents of {}:\n\nSUB @../CLAUDE.md\n</system-reminder>\n<system-reminder>\nContents of {}:\n\nDEEPER\n</system-reminder>",
            sub.display(),
            deeper.display()
        )
    );
    assert_eq!(nested.for_read(&sources.cwd.join("sub/deeper/x.txt")), None);
    assert_eq!(nested.for_read(&sources.cwd.join("sub/y.txt")), None);
    assert_eq!(loaded.files().len(), 3);
    assert!(warned.lock().unwrap().is_empty());
}

#[test]
fn past_the_total_cap_nothing_more_is_read_and_one_line_is_said() {
    let t = Tree::new();
    let mut words = String::new();
    for n in 0..40 {
        t.write(&format!("work/proj/f{n:02}.md"), &"z".repeat(100));
        words.push_str(&format!("@f{n:02}.md "));
    }
    t.write("work/proj/CLAUDE.md", &words);
    let caps = Caps {
        file_bytes: 1024,
        total_bytes: 1024,
    };
    let (memory, warnings) = run(&t.sources(), false, caps);
    let total: usize = memory.files.iter().map(|f| f.text.len()).sum();
    assert_eq!(total, 1024);
    assert_one_warning(&warnings, "total cap is reached");
    let line = memory.over_total.unwrap();
    assert!(
        line.ends_with(" and 22 more (over the 1 KiB total cap)]"),
        "{line}"
    );
}

#[test]
fn a_flood_of_missing_imports_is_twenty_lines_and_a_count() {
    let t = Tree::new();
    let words: String = (0..100).map(|n| format!("@missing{n}.md ")).collect();
    t.write("work/proj/CLAUDE.md", &words);
    let (_, warnings) = t.load(false);
    assert_eq!(warnings.len(), 21, "{warnings:?}");
    assert_eq!(
        warnings[20],
        "skipped 80 more memory files or imports (not listed)"
    );
}

#[test]
fn above_a_repository_the_parent_folders_are_the_users_without_one_they_are_not() {
    let t = Tree::new();
    t.write_all(&[
        ("dotfiles/work.md", "DOTFILES-WORK"),
        ("work/proj/CLAUDE.md", "PROJECT"),
    ]);
    std::os::unix::fs::symlink(t.top.join("dotfiles/work.md"), t.top.join("work/CLAUDE.md"))
        .unwrap();
    // No repository: work/ may be part of a download; its link stays out.
    let (memory, warnings) = t.load(false);
    assert_eq!(texts(&memory), ["PROJECT"]);
    assert_one_warning(&warnings, "outside the project");
    // work/proj is a repository: work/ is the user's folder.
    std::fs::create_dir_all(t.top.join("work/proj/.git")).unwrap();
    let (memory, warnings) = t.load(false);
    assert_eq!(texts(&memory), ["DOTFILES-WORK", "PROJECT"]);
    assert!(warnings.is_empty(), "{warnings:?}");
}
