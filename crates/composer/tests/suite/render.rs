//! Snapshots of the drawn box (border, marker, wrapped text, placeholders,
//! popups) at 80 and 40 columns, and colour switched off.

use orbit_composer::{Composer, ComposerConfig};
use ratatui::style::Color;

use super::support::{draw, feed, screen, write};

/// A project for the `@` popup and a composer with a few commands.
fn setup(color: bool) -> (tempfile::TempDir, Composer) {
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "src/main.rs",
        "src/lib.rs",
        "crates/composer/src/render.rs",
        "crates/composer/src/editor.rs",
        "crates/very-long-directory-name-for-truncation/src/main.rs",
        "README.md",
    ] {
        write(dir.path(), f, "x");
    }
    let commands = [
        ("help", "Show help"),
        ("clear", "Start a new session"),
        ("compact", "Summarise the conversation to free context"),
        ("resume", "Pick a session to resume"),
        ("continue", "Continue the last session"),
        ("cost", "Show the session cost"),
        ("model", "Show or switch the model"),
        ("permissions", "View and edit permission rules"),
        ("mcp", "MCP servers and their status"),
        ("init", "Write a starter CLAUDE.md"),
        ("status", "Show the session status"),
        ("exit", "Leave orbit"),
    ];
    let mut c = Composer::new(ComposerConfig {
        project_root: dir.path().to_path_buf(),
        commands: commands
            .iter()
            .map(|(n, d)| (n.to_string(), d.to_string()))
            .collect(),
        ..ComposerConfig::default()
    });
    c.set_color(color);
    (dir, c)
}

#[test]
fn the_box_at_80_and_40_columns() {
    let long = "The quick brown fox jumps over the lazy dog while the composer wraps \
                every word that does not fit on the row";
    // (snapshot name, keys typed, text pasted after the keys)
    let cases: &[(&str, &str, Option<String>)] = &[
        ("empty", "", None),
        ("wrapped", long, None),
        (
            "multiline",
            "first line<S-Enter>second line<S-Enter>  indented 日本語",
            None,
        ),
        (
            "placeholder",
            "please review ",
            Some((1..=42).map(|i| format!("{i}\n")).collect()),
        ),
        ("mention_popup", "explain @main", None),
        ("slash_popup", "/", None),
        ("slash_popup_scrolled", "/<Up><Up>", None),
        ("slash_popup_filtered", "/co", None),
    ];
    for (name, keys, paste) in cases {
        for width in [80u16, 40] {
            let (_dir, mut c) = setup(true);
            feed(&mut c, keys);
            if keys.contains('@') {
                // The file index arrives from a background thread.
                super::support::wait_for_index(&mut c);
            }
            if let Some(p) = paste {
                c.handle_paste(p);
            }
            insta::assert_snapshot!(format!("{name}_{width}"), screen(&c, width));
        }
    }
}

#[test]
fn without_colour_nothing_is_styled() {
    let (_dir, mut colored) = setup(true);
    let (_dir2, mut plain) = setup(false);
    for c in [&mut colored, &mut plain] {
        feed(c, "/co");
    }
    let styled = |c: &Composer| {
        let height = c.desired_height(60);
        let buf = draw(c, 60, height);
        buf.content()
            .iter()
            .filter(|cell| {
                cell.fg != Color::Reset || cell.bg != Color::Reset || !cell.modifier.is_empty()
            })
            .count()
    };
    assert!(styled(&colored) > 0);
    assert_eq!(styled(&plain), 0);
}

#[test]
fn a_tiny_area_keeps_the_cursor_row() {
    let (_dir, mut c) = setup(true);
    feed(&mut c, "one<S-Enter>two<S-Enter>three<S-Enter>@src");
    // Two rows: the border and the cursor's row; the popup gets no room.
    let area = ratatui::layout::Rect::new(0, 0, 30, 2);
    let buf = draw(&c, 30, 2);
    let row: String = (0..30).map(|x| buf[(x, 1)].symbol()).collect();
    assert_eq!(row.trim_end(), "  @src");
    assert_eq!(c.cursor_position(area), Some((6, 1)));
}
