//! Streams a window of a text file's lines into Read's `N\tline` format,
//! hashing every byte it passes so the file state (T5) costs no second read.
//!
//! Lines are what splitting the content at `\n` gives (as Claude Code does):
//! a file that ends with a newline has a last, empty line (`a\nb\n` is
//! `1\ta`, `2\tb`, `3\t`), so the model can tell whether the file ends with
//! a newline; one without a trailing newline has no such line. Line counts
//! use the same rule. A session whose [`ReadView`] turns that line off (the
//! small-model profile) sees and counts the lines `wc -l` counts.
//!
//! Memory stays bounded by the window, not the file: lines before the window
//! are skipped without being kept, a line's bytes are kept only up to
//! [`LINE_KEEP_BYTES`], and reading stops after the window unless the caller
//! asks for the whole file (to learn its hash).

use std::io::{self, BufRead, BufReader, Read};

use orbit_tool::ReadView;
use sha2::{Digest, Sha256};

/// Lines longer than this many chars are cut.
pub(crate) const MAX_LINE_CHARS: usize = 2_000;
/// Appended to a cut line, so the model knows the line goes on.
pub use orbit_tool::texts::tools::read::LINE_TRUNCATION_MARKER;
/// Bytes of one line kept for display: enough for `MAX_LINE_CHARS` chars
/// of up to 4 bytes each, plus a `\r`.
const LINE_KEEP_BYTES: usize = MAX_LINE_CHARS * 4 + 1;
/// Read buffer, in bytes.
const READ_BUF_BYTES: usize = 64 * 1024;

/// The lines of one window, formatted.
#[derive(Debug, Default)]
pub(crate) struct LineWindow {
    /// `N\tline` entries joined by `\n`, no trailing newline.
    pub text: String,
    /// The same lines without their `N\t` prefixes (the embedder's
    /// `ToolDetail::Read` content).
    pub content: String,
    pub lines_shown: u64,
    /// Number of lines in the file (the empty one after a final newline
    /// included), when reading reached its end.
    pub total_lines: Option<u64>,
    /// sha256 hex of the whole file, when reading reached its end.
    pub hash: Option<String>,
}

/// Reads lines `start..start + limit` (1-based, `start >= 1`). With
/// `read_to_end`, keeps reading (without formatting) to the end of the file.
/// `view` says whether the empty line after a final newline is a line.
pub(crate) fn read_window<R: Read>(
    reader: R,
    start: u64,
    limit: u64,
    read_to_end: bool,
    view: ReadView,
) -> io::Result<LineWindow> {
    let mut r = BufReader::with_capacity(READ_BUF_BYTES, reader);
    let mut hasher = Sha256::new();
    let mut line = Vec::with_capacity(256);
    let end = start.saturating_add(limit);
    let mut window = LineWindow::default();
    let mut n: u64 = 0;
    // The previous line ended with `\n`, so another (maybe empty) follows.
    let mut line_follows = false;
    loop {
        let next = n + 1;
        if next >= end && !read_to_end {
            break;
        }
        let wanted = next >= start && next < end;
        let dropped = match next_line(&mut r, &mut line, &mut hasher, wanted)? {
            Some(read) => {
                line_follows = read.terminated;
                read.dropped
            }
            // The empty line after a final newline (`line` was cleared).
            None if line_follows && view.final_empty_line => {
                line_follows = false;
                false
            }
            None => {
                window.total_lines = Some(n);
                window.hash = Some(crate::file_state::to_hex(&hasher.finalize()));
                break;
            }
        };
        n = next;
        if wanted {
            if window.lines_shown > 0 {
                window.text.push('\n');
                window.content.push('\n');
            }
            let before = window.text.len();
            push_line(&mut window.text, n, &line, dropped);
            let prefix = n.to_string().len() + 1;
            window.content.push_str(&window.text[before + prefix..]);
            window.lines_shown += 1;
        }
    }
    Ok(window)
}

/// One line as [`next_line`] read it.
struct LineRead {
    /// Bytes were dropped by the [`LINE_KEEP_BYTES`] cap.
    dropped: bool,
    /// The line ended with `\n` (else it ended the file).
    terminated: bool,
}

/// Reads one line (through its `\n`) into `line` when `keep`, capped at
/// [`LINE_KEEP_BYTES`]; `line` is cleared first. `None` at end of file.
fn next_line<R: BufRead>(
    r: &mut R,
    line: &mut Vec<u8>,
    hasher: &mut Sha256,
    keep: bool,
) -> io::Result<Option<LineRead>> {
    line.clear();
    let mut any = false;
    let mut dropped = false;
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(any.then_some(LineRead {
                dropped,
                terminated: false,
            }));
        }
        any = true;
        let (len, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let chunk = &buf[..len];
        hasher.update(chunk);
        if keep {
            let room = LINE_KEEP_BYTES.saturating_sub(line.len());
            let body = chunk.strip_suffix(b"\n").unwrap_or(chunk);
            line.extend_from_slice(&body[..body.len().min(room)]);
            dropped |= body.len() > room;
        }
        r.consume(len);
        if done {
            return Ok(Some(LineRead {
                dropped,
                terminated: true,
            }));
        }
    }
}

/// Appends `N\tline`: `\r` of a CRLF ending removed, invalid UTF-8 shown
/// lossily, long lines cut to [`MAX_LINE_CHARS`] plus the marker.
fn push_line(out: &mut String, n: u64, raw: &[u8], dropped: bool) {
    use std::fmt::Write;
    let raw = if dropped {
        raw
    } else {
        raw.strip_suffix(b"\r").unwrap_or(raw)
    };
    let text = String::from_utf8_lossy(raw);
    let _ = write!(out, "{n}\t");
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => {
            out.push_str(&text[..cut]);
            out.push_str(LINE_TRUNCATION_MARKER);
        }
        None => {
            out.push_str(&text);
            if dropped {
                out.push_str(LINE_TRUNCATION_MARKER);
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn window(content: &[u8], start: u64, limit: u64, to_end: bool) -> LineWindow {
        read_window(content, start, limit, to_end, ReadView::default()).unwrap()
    }

    /// Without the final empty line (the small-model profile's view), a
    /// file has the lines `wc -l` counts; one without a final newline is
    /// shown as before, and the hash still covers every byte.
    #[test]
    fn the_final_empty_line_can_be_left_out() {
        let view = ReadView {
            final_empty_line: false,
        };
        // content, start, limit, text, total lines
        let table: &[(&str, u64, u64, &str, u64)] = &[
            ("a\nb\n", 1, 2000, "1\ta\n2\tb", 2),
            ("a\nb", 1, 2000, "1\ta\n2\tb", 2),
            ("a\n\n", 1, 2000, "1\ta\n2\t", 2),
            ("a\nb\n", 2, 1, "2\tb", 2),
            ("a\nb\n", 3, 5, "", 2),
        ];
        for &(content, start, limit, text, total) in table {
            let w = read_window(content.as_bytes(), start, limit, true, view).unwrap();
            assert_eq!(w.text, text, "{content:?} from {start}");
            assert_eq!(w.total_lines, Some(total), "{content:?}");
            let shown = window(content.as_bytes(), start, limit, true);
            assert_eq!(w.hash, shown.hash, "{content:?}");
        }
    }

    #[test]
    fn numbers_lines_from_one_without_padding() {
        let w = window(b"a\nb\nc", 1, 2000, true);
        assert_eq!(w.text, "1\ta\n2\tb\n3\tc");
        assert_eq!(w.total_lines, Some(3));
        assert_eq!(w.lines_shown, 3);
    }

    /// A final newline is followed by a numbered empty line; windows that
    /// reach the end show it, and line counts include it.
    #[test]
    fn final_newline_shows_an_empty_last_line() {
        // content, start, limit, text, total lines
        let table: &[(&str, u64, u64, &str, u64)] = &[
            (
                "alpha\nbeta\ngamma\n",
                1,
                2000,
                "1\talpha\n2\tbeta\n3\tgamma\n4\t",
                4,
            ),
            (
                "alpha\nbeta\ngamma",
                1,
                2000,
                "1\talpha\n2\tbeta\n3\tgamma",
                3,
            ),
            ("alpha\nbeta\ngamma\n", 3, 5, "3\tgamma\n4\t", 4),
            ("alpha\nbeta\ngamma\n", 4, 1, "4\t", 4),
            ("alpha\nbeta\ngamma\n", 5, 1, "", 4),
            ("alpha\nbeta\ngamma", 4, 1, "", 3),
            ("alpha\nbeta\ngamma\n", 2, 2, "2\tbeta\n3\tgamma", 4),
            ("\n", 1, 10, "1\t\n2\t", 2),
            ("a\n\n", 1, 10, "1\ta\n2\t\n3\t", 3),
            ("a\r\n", 1, 10, "1\ta\n2\t", 2),
        ];
        for (content, start, limit, text, total) in table {
            let w = window(content.as_bytes(), *start, *limit, true);
            let at = format!("{content:?} from {start} limit {limit}");
            let shown = if text.is_empty() {
                0
            } else {
                text.split('\n').count() as u64
            };
            assert_eq!(w.text, *text, "{at}");
            assert_eq!(w.lines_shown, shown, "{at}");
            assert_eq!(w.total_lines, Some(*total), "{at}");
            assert_eq!(
                w.hash.as_deref(),
                Some(crate::file_state::sha256_hex(content.as_bytes()).as_str()),
                "{at}"
            );
        }
    }

    #[test]
    fn window_in_the_middle_stops_early() {
        let w = window(b"1\n2\n3\n4\n5\n", 2, 2, false);
        assert_eq!(w.text, "2\t2\n3\t3");
        assert_eq!(w.total_lines, None);
        assert_eq!(w.hash, None);
    }

    #[test]
    fn window_reaching_the_end_knows_the_hash() {
        let w = window(b"1\n2\n", 2, 10, false);
        assert_eq!(w.text, "2\t2\n3\t");
        assert_eq!(
            w.hash.as_deref(),
            Some(crate::file_state::sha256_hex(b"1\n2\n").as_str())
        );
    }

    #[test]
    fn crlf_is_shown_without_cr_and_invalid_utf8_lossily() {
        let w = window(b"a\r\nb\xff\r\n", 1, 10, true);
        assert_eq!(w.text, "1\ta\n2\tb\u{fffd}\n3\t");
    }

    #[test]
    fn long_lines_are_cut_with_a_marker() {
        let long = "x".repeat(MAX_LINE_CHARS + 1);
        let w = window(format!("{long}\nshort").as_bytes(), 1, 10, true);
        let expected = format!(
            "1\t{}{LINE_TRUNCATION_MARKER}\n2\tshort",
            "x".repeat(MAX_LINE_CHARS)
        );
        assert_eq!(w.text, expected);
        let exact = "é".repeat(MAX_LINE_CHARS);
        let w = window(exact.as_bytes(), 1, 10, true);
        assert_eq!(w.text, format!("1\t{exact}"));
    }

    #[test]
    fn huge_line_keeps_bounded_bytes() {
        let huge = "ab".repeat(1_000_000);
        let w = window(format!("{huge}\nnext").as_bytes(), 1, 10, true);
        let expected = format!(
            "1\t{}{LINE_TRUNCATION_MARKER}\n2\tnext",
            &huge[..MAX_LINE_CHARS]
        );
        assert_eq!(w.text, expected);
        assert_eq!(w.total_lines, Some(2));
    }
}
