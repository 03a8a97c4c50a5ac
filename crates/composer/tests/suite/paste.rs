//! Bracketed pastes: small ones inline, large ones as a placeholder that is
//! expanded on submit and deleted as a unit.

use orbit_composer::{ComposerEvent, Submission};

use super::support::{composer_in, feed, text_with_cursor};

fn lines(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn pastes_are_inline_or_collapsed_by_size() {
    let long_line = "x".repeat(1_000);
    // (pasted text, what the box shows)
    let cases: Vec<(String, String)> = vec![
        ("small paste".into(), "small paste".into()),
        ("a\r\nb\rc".into(), "a\nb\nc".into()),
        (lines(10), lines(10)),
        ("y".repeat(800), "y".repeat(800)),
        (lines(42), "[Pasted text #1 +42 lines]".into()),
        (long_line, "[Pasted text #1 +1000 chars]".into()),
    ];
    for (pasted, shown) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut c = composer_in(dir.path(), &[]);
        c.handle_paste(&pasted);
        assert_eq!(c.text(), shown);
    }
}

#[test]
fn a_placeholder_expands_on_submit() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = composer_in(dir.path(), &[]);
    feed(&mut c, "fix this: ");
    c.handle_paste(&lines(42));
    feed(&mut c, " and this: ");
    c.handle_paste(&lines(20));
    assert_eq!(
        c.text(),
        "fix this: [Pasted text #1 +42 lines] and this: [Pasted text #2 +20 lines]"
    );
    let events = feed(&mut c, "<Enter>");
    let expected = format!("fix this: {} and this: {}", lines(42), lines(20));
    assert_eq!(
        events,
        vec![ComposerEvent::Submit(Submission::Prompt {
            text: expected.trim().to_string(),
            mentions: vec![],
        })]
    );
}

#[test]
fn a_placeholder_is_deleted_and_skipped_as_a_unit() {
    // (keys after "a " + paste + " b", text with cursor)
    let cases: &[(&str, &str)] = &[
        ("<Left><Left><BS>", "a | b"),
        ("<Left><Left><Left>", "a |[Pasted text #1 +42 lines] b"),
        ("<Home><Right><Right><Del>", "a | b"),
        (
            "<Home><Right><Right><Right>",
            "a [Pasted text #1 +42 lines]| b",
        ),
        // Word moves and kills never split a placeholder.
        ("<C-Left><C-Left>", "a |[Pasted text #1 +42 lines] b"),
        (
            "<Home><C-Right><C-Right>",
            "a [Pasted text #1 +42 lines]| b",
        ),
        ("<Left><Left><C-w>", "a | b"),
        ("<Home><Right><Right><Right><Left><A-d>", "a | b"),
        ("<Home><Right><Right><C-k>", "a |"),
    ];
    for (keys, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut c = composer_in(dir.path(), &[]);
        feed(&mut c, "a ");
        c.handle_paste(&lines(42));
        feed(&mut c, " b");
        feed(&mut c, keys);
        assert_eq!(text_with_cursor(&mut c), *expected, "{keys}");
    }
}

#[test]
fn a_deleted_paste_is_not_expanded_and_clear_forgets_pastes() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = composer_in(dir.path(), &[]);
    c.handle_paste(&lines(42));
    feed(&mut c, "<BS>typed<Enter>");
    c.handle_paste(&lines(12));
    c.clear();
    // The same placeholder typed by hand is not a paste any more.
    feed(&mut c, "[Pasted text #2 +12 lines]");
    let events = feed(&mut c, "<Enter>");
    assert_eq!(
        events.last(),
        Some(&ComposerEvent::Submit(Submission::Prompt {
            text: "[Pasted text #2 +12 lines]".into(),
            mentions: vec![],
        }))
    );
}

/// A submitted prompt's echo keeps its pastes collapsed (once; a prompt
/// without a collapsed paste is echoed as it is).
#[test]
fn the_echo_of_a_submission_keeps_its_placeholders() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = composer_in(dir.path(), &[]);
    feed(&mut c, "see ");
    c.handle_paste(&lines(30));
    let events = feed(&mut c, "<Enter>");
    let [ComposerEvent::Submit(Submission::Prompt { text, .. })] = events.as_slice() else {
        panic!("{events:?}");
    };
    assert_eq!(c.shown_form(text), "see [Pasted text #1 +30 lines]");
    assert_eq!(c.shown_form(text), *text, "forgotten once echoed");
    assert_eq!(c.shown_form("typed"), "typed");
}
