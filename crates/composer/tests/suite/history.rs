//! ↑/↓ history through a real JSON-lines file: round trip, per-project
//! filtering, malformed lines, the draft, and unusable files.

use std::path::{Path, PathBuf};

use orbit_composer::{Composer, ComposerConfig};

use super::support::{feed, text_with_cursor};

fn composer(root: &Path, file: PathBuf) -> Composer {
    Composer::new(ComposerConfig {
        project_root: root.to_path_buf(),
        history_file: Some(file),
        ..ComposerConfig::default()
    })
}

#[test]
fn history_round_trips_through_the_file_and_restores_the_draft() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("state/history.jsonl");
    let mut first = composer(dir.path(), file.clone());
    feed(
        &mut first,
        "first<Enter>second<S-Enter>line<Enter>/cost<Enter>",
    );
    assert_eq!(first.take_warning(), None);

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1]["text"], "second\nline");
    assert_eq!(lines[1]["project"], dir.path().to_str().unwrap());

    // A new session: ↑ walks back, ↓ walks forward to the draft.
    let mut c = composer(dir.path(), file);
    feed(&mut c, "draft");
    // (keys, text, cursor cell in an 80-column box)
    let steps: &[(&str, &str, (u16, u16))] = &[
        ("<Up>", "/cost", (7, 1)),
        // Multi-line entry: the cursor lands at its end; ↑ first moves up
        // a row, then to the older entry.
        ("<Up>", "second\nline", (6, 2)),
        ("<Up>", "second\nline", (6, 1)),
        ("<Up>", "first", (7, 1)),
        ("<Up>", "first", (7, 1)),
        ("<Down>", "second\nline", (6, 2)),
        ("<Down>", "/cost", (7, 1)),
        ("<Down>", "draft", (7, 1)),
        ("<Down>", "draft", (7, 1)),
    ];
    for (keys, text, cursor) in steps {
        feed(&mut c, keys);
        assert_eq!(c.text(), *text, "after {keys}");
        let area = ratatui::layout::Rect::new(0, 0, 80, 5);
        assert_eq!(c.cursor_position(area), Some(*cursor), "after {keys}");
    }
    // Editing a recalled entry ends the walk: ↑ starts from the newest.
    feed(&mut c, "<Up><Up>!");
    assert_eq!(text_with_cursor(&mut c), "second\nline!|");
    feed(&mut c, "<Up><Up>");
    assert_eq!(c.text(), "/cost");
}

#[test]
fn malformed_lines_and_other_projects_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("history.jsonl");
    let here = dir.path().to_str().unwrap();
    let content = [
        format!(r#"{{"text":"old","project":"{here}","ts":1}}"#),
        "{not json".to_string(),
        r#"{"text":"elsewhere","project":"/some/other/project"}"#.to_string(),
        String::new(),
        r#"{"project":"missing text"}"#.to_string(),
        format!(r#"{{"text":"newest","project":"{here}"}}"#),
    ]
    .join("\n");
    std::fs::write(&file, content).unwrap();
    let mut c = composer(dir.path(), file);
    assert_eq!(c.take_warning(), None);
    feed(&mut c, "<Up>");
    assert_eq!(c.text(), "newest");
    feed(&mut c, "<Up>");
    assert_eq!(c.text(), "old");
    feed(&mut c, "<Up>");
    assert_eq!(c.text(), "old");
}

#[test]
fn an_unusable_history_file_warns_once_and_history_stays_in_memory() {
    // (history file relative to the project, what makes it unusable and
    // whether that happens before the composer loads it)
    let cases: &[(&str, &str, bool)] = &[
        // A regular file where the history's directory should be: reading
        // and appending both fail, even as root.
        ("blocker/history.jsonl", "file:blocker", true),
        // A directory at the file's path, made after loading (no file yet
        // is not a problem): appending fails.
        ("history.jsonl", "dir:history.jsonl", false),
    ];
    for (rel, obstacle, before_load) in cases {
        let dir = tempfile::tempdir().unwrap();
        let block = || match obstacle.split_once(':').unwrap() {
            ("file", p) => std::fs::write(dir.path().join(p), "").unwrap(),
            (_, p) => std::fs::create_dir(dir.path().join(p)).unwrap(),
        };
        if *before_load {
            block();
        }
        let mut c = composer(dir.path(), dir.path().join(rel));
        if !*before_load {
            assert_eq!(c.take_warning(), None, "{rel}: nothing wrong yet");
            block();
        }
        feed(&mut c, "one<Enter>");
        let warning = c.take_warning().expect("a warning about the file");
        assert!(warning.contains(rel), "{warning}");
        feed(&mut c, "two<Enter>");
        assert_eq!(
            c.take_warning(),
            None,
            "{rel}: the problem is reported once"
        );
        feed(&mut c, "<Up>");
        assert_eq!(c.text(), "two", "{rel}: history stays in memory");
    }
}
