//! Shared helpers: project files, a key-sequence mini-language and buffer
//! capture.

use std::path::Path;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use orbit_composer::{Composer, ComposerConfig, ComposerEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// Writes `text` at `root/rel`, making the folders on the way.
pub fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A composer over `root` with the given built-in commands, no history
/// file and no custom commands.
pub fn composer_in(root: &Path, commands: &[(&str, &str)]) -> Composer {
    let mut c = composer_indexing(root, commands);
    // The file index is built in the background on the first `@`: start
    // it and wait for it, so the tests see the finished index.
    feed(&mut c, "@");
    wait_for_index(&mut c);
    c.clear();
    c
}

/// A composer whose file index is not built yet.
pub fn composer_indexing(root: &Path, commands: &[(&str, &str)]) -> Composer {
    Composer::new(ComposerConfig {
        project_root: root.to_path_buf(),
        commands: commands
            .iter()
            .map(|(n, d)| (n.to_string(), d.to_string()))
            .collect(),
        ..ComposerConfig::default()
    })
}

/// Waits (at most 10 s) until the background file index has arrived.
pub fn wait_for_index(c: &mut Composer) {
    let started = std::time::Instant::now();
    while !c.poll_files() {
        assert!(
            started.elapsed().as_secs() < 10,
            "the file index never arrived"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Parses one `<…>` key name (`C-` ctrl, `A-` alt, `S-` shift prefixes).
pub fn parse_key(name: &str) -> KeyEvent {
    let mut modifiers = KeyModifiers::NONE;
    let mut rest = name;
    loop {
        if let Some(r) = rest.strip_prefix("C-") {
            modifiers |= KeyModifiers::CONTROL;
            rest = r;
        } else if let Some(r) = rest.strip_prefix("A-") {
            modifiers |= KeyModifiers::ALT;
            rest = r;
        } else if let Some(r) = rest.strip_prefix("S-") {
            modifiers |= KeyModifiers::SHIFT;
            rest = r;
        } else {
            break;
        }
    }
    let code = match rest {
        "Enter" => KeyCode::Enter,
        "BS" => KeyCode::Backspace,
        "Del" => KeyCode::Delete,
        "Left" => KeyCode::Left,
        "Right" => KeyCode::Right,
        "Up" => KeyCode::Up,
        "Down" => KeyCode::Down,
        "Home" => KeyCode::Home,
        "End" => KeyCode::End,
        "Tab" => KeyCode::Tab,
        "Esc" => KeyCode::Esc,
        one if one.chars().count() == 1 => KeyCode::Char(one.chars().next().unwrap()),
        other => panic!("unknown key <{other}>"),
    };
    KeyEvent::new(code, modifiers)
}

/// Feeds `keys` — plain characters typed one by one, `<Name>` for other
/// keys — and returns every event the composer answered.
pub fn feed(c: &mut Composer, keys: &str) -> Vec<ComposerEvent> {
    let mut events = Vec::new();
    let mut rest = keys;
    while let Some(ch) = rest.chars().next() {
        let key = if ch == '<' && rest.len() > 1 && rest[1..].contains('>') {
            let end = rest.find('>').unwrap();
            let key = parse_key(&rest[1..end]);
            rest = &rest[end + 1..];
            key
        } else {
            rest = &rest[ch.len_utf8()..];
            KeyEvent::new(KeyCode::Char(ch), KeyModifiers::NONE)
        };
        events.push(c.handle_key(key));
    }
    events
}

/// The text with `|` where the cursor is (typed, so it goes through the
/// same path as every other key).
pub fn text_with_cursor(c: &mut Composer) -> String {
    c.handle_key(KeyEvent::new(KeyCode::Char('|'), KeyModifiers::NONE));
    c.text().to_string()
}

/// Renders into a `width`×`height` buffer.
pub fn draw(c: &Composer, width: u16, height: u16) -> Buffer {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    c.render(area, &mut buf);
    buf
}

/// The buffer as text (trailing spaces trimmed), then the cursor position.
pub fn screen(c: &Composer, width: u16) -> String {
    let height = c.desired_height(width);
    let area = Rect::new(0, 0, width, height);
    let buf = draw(c, width, height);
    let mut out = String::new();
    for y in 0..height {
        // A wide char's second cell holds a blank that is not on screen.
        let mut line = String::new();
        let mut x = 0;
        while x < width {
            let symbol = buf[(x, y)].symbol();
            line.push_str(symbol);
            x += u16::try_from(unicode_width::UnicodeWidthStr::width(symbol).max(1)).unwrap();
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str(&format!("cursor: {:?}", c.cursor_position(area)));
    out
}
