//! Key sequences → text and cursor, cursor placement on wrapped rows, and
//! what Enter submits.

use orbit_composer::{ComposerEvent, Submission};
use ratatui::layout::Rect;

use super::support::{composer_in, feed, parse_key, text_with_cursor};

#[test]
fn key_sequences_edit_text_and_move_the_cursor() {
    // (keys, box width the text was drawn at (0: never drawn), text with
    // `|` at the cursor afterwards)
    let cases: &[(&str, u16, &str)] = &[
        ("hello", 0, "hello|"),
        ("a<S-Enter>b", 0, "a\nb|"),
        ("a\\<Enter>b", 0, "a\nb|"),
        ("a<A-Enter>b", 0, "a\nb|"),
        ("a<C-j>b", 0, "a\nb|"),
        ("abc<Left><Left>X", 0, "aX|bc"),
        ("abc<Home>X", 0, "X|abc"),
        ("ab<S-Enter>cd<Up><End>", 0, "ab|\ncd"),
        ("ab<S-Enter>cd<C-a>", 0, "ab\n|cd"),
        ("ab<S-Enter>cd<Up><C-e>", 0, "ab|\ncd"),
        ("hello world<C-a><A-Right><C-k>", 0, "hello|"),
        ("ab<S-Enter>cd<Up><End><C-k>", 0, "ab|cd"),
        ("ab<S-Enter>cd ef<C-u>", 0, "ab\n|"),
        ("ab<S-Enter><C-u>", 0, "ab|"),
        ("foo bar baz<C-w>", 0, "foo bar |"),
        ("foo bar<C-w><C-a><C-y>", 0, "bar|foo "),
        ("foo.bar baz<A-Left><A-Left>", 0, "foo.|bar baz"),
        ("foo bar<C-Left><C-Left><C-Right>", 0, "foo| bar"),
        ("foo bar<A-b><A-d>", 0, "foo |"),
        ("foo bar<A-BS>", 0, "foo |"),
        ("abc<Home><Del>", 0, "|bc"),
        ("abc<BS><BS>", 0, "a|"),
        ("日本語<Left>x", 0, "日本x|語"),
        ("a<C-A-@>b", 0, "a@b|"),
        (
            "abcdef<S-Enter>xy<S-Enter>123456<Up><Up>",
            0,
            "abcdef|\nxy\n123456",
        ),
        (
            "abcdef<S-Enter>xy<S-Enter>123456<Up><Up><Down>",
            0,
            "abcdef\nxy|\n123456",
        ),
        // Width 12 leaves 10 cells of text: "aaaa bbbb " / "cccc dddd".
        ("aaaa bbbb cccc dddd<Up>", 12, "aaaa bbbb| cccc dddd"),
        ("aaaa bbbb cccc dddd<C-a><Down>", 12, "aaaa bbbb |cccc dddd"),
        ("aaaa bbbb cccc dddd<Up>", 0, "aaaa bbbb cccc dddd|"),
    ];
    for (keys, width, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut c = composer_in(dir.path(), &[]);
        if *width > 0 {
            c.desired_height(*width);
        }
        feed(&mut c, keys);
        assert_eq!(
            text_with_cursor(&mut c),
            *expected,
            "keys {keys:?} at width {width}"
        );
    }
}

#[test]
fn the_cursor_sits_right_on_wrapped_rows() {
    // (typed text, box width, cursor x/y with the border on row 0, rows
    // the box wants)
    let cases: &[(&str, u16, (u16, u16), u16)] = &[
        ("", 80, (2, 1), 2),
        ("ab<S-Enter>cd", 80, (4, 2), 3),
        // 10 cells of text: the word moves to the next row.
        ("hello world foo", 12, (11, 2), 3),
        // A full row puts the cursor at the start of the next one.
        ("abcdefghij", 12, (2, 2), 3),
        // Wide chars: four fill the row, the fifth wraps.
        ("日本語日本", 10, (4, 2), 3),
        ("日本語日本<Left>", 10, (2, 2), 3),
        ("日本語日本<Left><Left>", 10, (8, 1), 3),
        // A word longer than the row is cut mid-word.
        ("abcdefghijklmno", 12, (7, 2), 3),
    ];
    for (keys, width, expected, height) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut c = composer_in(dir.path(), &[]);
        feed(&mut c, keys);
        assert_eq!(c.desired_height(*width), *height, "height for {keys:?}");
        let area = Rect::new(0, 0, *width, *height);
        assert_eq!(
            c.cursor_position(area),
            Some(*expected),
            "cursor for {keys:?}"
        );
    }
}

#[test]
fn a_short_area_scrolls_to_the_cursor_row() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = composer_in(dir.path(), &[]);
    feed(&mut c, "1<S-Enter>2<S-Enter>3<S-Enter>4<S-Enter>5");
    assert_eq!(c.desired_height(20), 6);
    // Border plus two text rows: rows 4 and 5 are shown, the cursor on 5.
    assert_eq!(c.cursor_position(Rect::new(0, 10, 20, 3)), Some((3, 12)));
    feed(&mut c, "<Up><Up><Up><Up>");
    assert_eq!(c.cursor_position(Rect::new(0, 10, 20, 3)), Some((3, 11)));
}

#[test]
fn enter_submits_by_the_first_character() {
    let cases: Vec<(&str, Submission)> = vec![
        (
            "hello<Enter>",
            Submission::Prompt {
                text: "hello".into(),
                mentions: vec![],
            },
        ),
        (
            "a\\<Enter>b<Enter>",
            Submission::Prompt {
                text: "a\nb".into(),
                mentions: vec![],
            },
        ),
        ("!ls -la<Enter>", Submission::Shell("ls -la".into())),
        ("#use tabs<Enter>", Submission::Note("use tabs".into())),
        (
            "/compact keep it short <Enter>",
            Submission::Command {
                name: "compact".into(),
                args: "keep it short".into(),
            },
        ),
    ];
    for (keys, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut c = composer_in(dir.path(), &[]);
        let events = feed(&mut c, keys);
        assert_eq!(
            events.last(),
            Some(&ComposerEvent::Submit(expected)),
            "{keys:?}"
        );
        assert!(c.is_empty(), "the box empties after {keys:?}");
    }
}

#[test]
fn keys_for_the_ui_are_ignored() {
    // (text typed first, key, expected event)
    let cases: &[(&str, &str, ComposerEvent)] = &[
        ("", "C-c", ComposerEvent::Ignored),
        ("abc", "C-c", ComposerEvent::Ignored),
        ("", "Esc", ComposerEvent::Ignored),
        ("", "C-d", ComposerEvent::Ignored),
        ("abc<Home>", "C-d", ComposerEvent::Changed),
        ("", "Tab", ComposerEvent::Ignored),
        ("", "C-o", ComposerEvent::Ignored),
        ("   ", "Enter", ComposerEvent::Changed),
    ];
    for (before, key, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut c = composer_in(dir.path(), &[]);
        feed(&mut c, before);
        assert_eq!(
            c.handle_key(parse_key(key)),
            *expected,
            "{before:?} then <{key}>"
        );
    }
    // Key releases (kitty keyboard protocol, Windows) do nothing.
    let dir = tempfile::tempdir().unwrap();
    let mut c = composer_in(dir.path(), &[]);
    let release = crossterm::event::KeyEvent::new_with_kind(
        crossterm::event::KeyCode::Char('x'),
        crossterm::event::KeyModifiers::NONE,
        crossterm::event::KeyEventKind::Release,
    );
    assert_eq!(c.handle_key(release), ComposerEvent::Ignored);
    assert!(c.is_empty());
}
