//! Keystroke cost of the input box: `handle_key` plus everything a frame
//! asks of the composer (`desired_height`, `render`, `cursor_position`),
//! timed per keystroke.
//!
//! The box is drawn at 80 columns, at most 24 rows (a whole 80×24
//! terminal). Scenarios: a 5,000-char multi-line text with the cursor at its end, and
//! the `@` popup open over a generated 20,000-file tree: keys typed while
//! the tree is indexed in the background, then the first query
//! char scores every file, a further char re-scores the previous query's
//! hits (nearly all files for this tree and query), Backspace returns to
//! the previous query's kept result. Run:
//!
//! ```text
//! cargo run --release -p orbit-composer --example keystroke_bench
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use orbit_composer::{Composer, ComposerConfig};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// Keystrokes timed per scenario.
const KEYSTROKES: usize = 4_000;
/// The box width drawn at.
const WIDTH_CELLS: u16 = 80;
/// The tallest box drawn: an 80×24 terminal's worth of rows.
const MAX_HEIGHT_ROWS: u16 = 24;
/// Files in the generated tree.
const TREE_FILES: usize = 20_000;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// One keystroke and one frame; returns its time.
fn keystroke(c: &mut Composer, code: KeyCode) -> Duration {
    let start = Instant::now();
    c.handle_key(key(code));
    let height = c.desired_height(WIDTH_CELLS).min(MAX_HEIGHT_ROWS);
    let area = Rect::new(0, 0, WIDTH_CELLS, height);
    let mut buf = Buffer::empty(area);
    c.render(area, &mut buf);
    std::hint::black_box(c.cursor_position(area));
    std::hint::black_box(&buf);
    start.elapsed()
}

/// Types `ch` and erases it again, `KEYSTROKES / 2` times: the times of
/// the typed chars and of the Backspaces.
fn type_and_erase(c: &mut Composer, ch: char) -> (Vec<Duration>, Vec<Duration>) {
    (0..KEYSTROKES / 2)
        .map(|_| {
            let typed = keystroke(c, KeyCode::Char(ch));
            (typed, keystroke(c, KeyCode::Backspace))
        })
        .unzip()
}

fn report(name: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    println!(
        "{name:<48} median {:>7.1} µs   p99 {:>7.1} µs   max {:>7.1} µs   (n={})",
        at(0.5).as_secs_f64() * 1e6,
        at(0.99).as_secs_f64() * 1e6,
        at(1.0).as_secs_f64() * 1e6,
        times.len()
    );
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let words = [
        "handler", "model", "view", "parser", "config", "client", "server", "util", "render",
        "state",
    ];
    let started = Instant::now();
    for i in 0..TREE_FILES {
        let path = dir.path().join(format!(
            "pkg{}/src/{}/{}_{i}.rs",
            i / 100,
            words[i % words.len()],
            words[(i / 7) % words.len()]
        ));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "").unwrap();
    }
    println!(
        "generated {TREE_FILES} files in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let config = ComposerConfig {
        project_root: dir.path().to_path_buf(),
        ..ComposerConfig::default()
    };

    // A 5,000-char text: 50 lines of 99 chars plus newlines.
    let mut c = Composer::new(config.clone());
    let line = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et";
    let text: String = (0..50).map(|_| format!("{}\n", &line[..99])).collect();
    c.set_text(text.trim_end());
    assert!(c.text().len() >= 4_900);
    let (typing, erasing) = type_and_erase(&mut c, 'x');
    report("5,000-char text: type a char", typing);
    report("5,000-char text: Backspace", erasing);

    // The @ popup over the tree.
    let mut c = Composer::new(config);
    c.set_text("explain ");
    let open = Instant::now();
    c.handle_key(key(KeyCode::Char('@')));
    println!(
        "first @ (starts the background index): {:.2} ms",
        open.elapsed().as_secs_f64() * 1e3
    );
    // Keys typed while the tree is walked on the other thread.
    let mut during = Vec::new();
    while !c.poll_files() {
        during.push(keystroke(&mut c, KeyCode::Char('r')));
        during.push(keystroke(&mut c, KeyCode::Backspace));
    }
    println!(
        "index ready after {:.1} ms",
        open.elapsed().as_secs_f64() * 1e3
    );
    report("@ popup while indexing: type / Backspace", during);
    assert!(c.popup_open());
    let (first_char, _back_to_at) = type_and_erase(&mut c, 'r');
    report("@ popup, 20k files: first char (scores all)", first_char);
    for ch in "rend".chars() {
        c.handle_key(key(KeyCode::Char(ch)));
    }
    let (narrowing, backspace) = type_and_erase(&mut c, 'e');
    assert!(c.popup_open());
    report("@ popup, 20k files: 5th char (narrows hits)", narrowing);
    report("@ popup, 20k files: Backspace (kept result)", backspace);
    let mut moving = Vec::new();
    for _ in 0..KEYSTROKES {
        moving.push(keystroke(&mut c, KeyCode::Down));
    }
    report("@ popup, 20k files: ↓ selection", moving);
}
