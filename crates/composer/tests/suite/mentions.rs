//! `@path` completion over a real project tree with a `.gitignore`, and the
//! mentions a prompt reports.

use std::path::{Path, PathBuf};

use orbit_composer::{ComposerEvent, Submission};

use super::support::{
    composer_in, composer_indexing, feed, screen, text_with_cursor, wait_for_index, write,
};

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ".gitignore",
        "src/main.rs",
        "src/lib.rs",
        "src/domain/model.rs",
        "README.md",
        "target/debug/build.rs",
        "logs/app.log",
        "notes.log",
        ".github/workflows/ci.yml",
    ];
    for f in files {
        write(dir.path(), f, "x");
    }
    std::fs::write(dir.path().join(".gitignore"), "target/\n*.log\n").unwrap();
    dir
}

#[test]
fn completion_offers_files_that_are_not_ignored() {
    let dir = project();
    // (keys, popup open afterwards, text with cursor afterwards)
    let cases: &[(&str, bool, &str)] = &[
        ("@mai", true, "@mai|"),
        ("@mai<Tab>", false, "@src/main.rs |"),
        ("look at @mai<Enter>", false, "look at @src/main.rs |"),
        // Shift-Enter is still a newline.
        ("@mai<S-Enter>", false, "@mai\n|"),
        // Typed out in full, the popup still shows it; Enter then submits.
        ("@src/main.rs", true, "@src/main.rs|"),
        ("@src<Down><Tab>", false, "@src/main.rs |"),
        ("@mod<Up><Enter>", false, "@src/domain/model.rs |"),
        ("@ci.y<Tab>", false, "@.github/workflows/ci.yml |"),
        // Ignored by .gitignore: nothing to offer.
        ("@build", false, "@build|"),
        ("@app.log", false, "@app.log|"),
        // Esc closes the popup for this token, typing on keeps it closed.
        ("@mai<Esc>n", false, "@main|"),
        // A new token opens it again.
        ("@mai<Esc> @mai", true, "@mai @mai|"),
        // An @ inside a word is not a mention.
        ("me@mai", false, "me@mai|"),
        // Completing in the middle replaces the whole token.
        ("@maixx<Left><Left><Tab>", false, "@src/main.rs |"),
    ];
    for (keys, open, expected) in cases {
        let mut c = composer_in(dir.path(), &[]);
        feed(&mut c, keys);
        assert_eq!(c.popup_open(), *open, "popup after {keys:?}");
        let probe_open = c.popup_open();
        assert_eq!(
            text_with_cursor(&mut c),
            *expected,
            "{keys:?} (popup was {probe_open})"
        );
    }
}

#[test]
fn enter_on_a_complete_mention_submits() {
    let dir = project();
    let mut c = composer_in(dir.path(), &[]);
    let events = feed(&mut c, "read @src/lib.rs<Enter>");
    assert_eq!(
        events.last(),
        Some(&ComposerEvent::Submit(Submission::Prompt {
            text: "read @src/lib.rs".into(),
            mentions: vec!["src/lib.rs".into()],
        }))
    );
}

#[test]
fn esc_closes_an_open_popup_and_is_ignored_otherwise() {
    let dir = project();
    let mut c = composer_in(dir.path(), &[]);
    feed(&mut c, "@src");
    assert!(c.popup_open());
    assert_eq!(feed(&mut c, "<Esc>"), vec![ComposerEvent::Changed]);
    assert!(!c.popup_open());
    assert_eq!(feed(&mut c, "<Esc>"), vec![ComposerEvent::Ignored]);
}

#[test]
fn the_popup_lists_ranked_files() {
    let dir = project();
    let mut c = composer_in(dir.path(), &[]);
    feed(&mut c, "@rs");
    let shown = screen(&c, 40);
    assert!(shown.contains("› src/lib.rs"), "{shown}");
    for hidden in ["build.rs", ".log"] {
        assert!(!shown.contains(hidden), "{hidden} in\n{shown}");
    }
}

#[test]
fn refresh_files_sees_new_files() {
    let dir = project();
    let mut c = composer_in(dir.path(), &[]);
    feed(&mut c, "@fresh");
    assert!(!c.popup_open());
    std::fs::write(dir.path().join("fresh.txt"), "new").unwrap();
    feed(&mut c, "<BS>h");
    assert!(!c.popup_open(), "the index is built once");
    c.refresh_files();
    wait_for_index(&mut c);
    assert!(c.popup_open());
    assert!(screen(&c, 40).contains("fresh.txt"));
}

#[test]
fn the_first_at_shows_indexing_until_the_background_index_arrives() {
    let dir = project();
    let mut c = composer_indexing(dir.path(), &[]);
    // The key returns at once (the walk runs on a thread); the popup says
    // so, then lists the files once the index is there.
    feed(&mut c, "@mai");
    let first = screen(&c, 40);
    // Racy by nature: the walk of this small tree may already be done.
    if first.contains("indexing files…") {
        assert!(!first.contains("src/main.rs"), "{first}");
        wait_for_index(&mut c);
    }
    let shown = screen(&c, 40);
    assert!(shown.contains("src/main.rs"), "{shown}");
    assert!(!shown.contains("indexing"), "{shown}");
}

#[test]
fn a_prompt_lists_the_mentions_that_exist() {
    let dir = project();
    let mut c = composer_in(dir.path(), &[]);
    c.handle_paste("compare @src/main.rs, @src/lib.rs and @missing.rs (@src/main.rs)");
    let events = feed(&mut c, "<Enter>");
    let expected: Vec<PathBuf> = vec!["src/main.rs".into(), "src/lib.rs".into()];
    match events.last() {
        Some(ComposerEvent::Submit(Submission::Prompt { mentions, .. })) => {
            assert_eq!(mentions, &expected);
        }
        other => panic!("expected a prompt, got {other:?}"),
    }
    assert!(Path::new(&dir.path().join(&expected[0])).exists());
}
