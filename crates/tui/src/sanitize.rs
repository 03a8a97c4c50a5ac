//! Terminal-safe text: the one place that decides which bytes of model or
//! tool text may reach a terminal. Everything orbit prints that a model, a
//! tool, a file name or an MCP server chose goes through here first: the
//! CLI's `--output-format text` writer ([`Mode::Terminal`]) and every line
//! the interactive UI draws ([`Mode::Cells`], applied where lines are
//! wrapped). JSON output formats do not use it — JSON already escapes C0.
//!
//! What passes: printable text, `\n`, `\t`, `\r\n`, and (in
//! [`Mode::Terminal`]) colour — SGR sequences `ESC [ params m` whose
//! parameters are digits, `;` and `:` — with the conceal attribute (8)
//! removed. Everything else that a terminal would act on is shown, not
//! obeyed: each C0 control and DEL becomes its Unicode *Control Picture*
//! (U+2400 + code, DEL → U+2421: `ESC` → `␛`, `BEL` → `␇`, a `\r` not
//! followed by `\n` → `␍`), and each C1 control (U+0080–U+009F), which
//! has no picture, becomes `␛` followed by its 7-bit equivalent (U+009B,
//! the 8-bit CSI, → `␛[`). So an OSC 52 clipboard write reads
//! `␛]52;c;aGk=␇` and a screen clear `␛[2J`: one column per control, the
//! rest of the sequence as plain text.
//!
//! Data flow: text arrives whole ([`sanitize`]) or in deltas
//! ([`Sanitizer::push`] … [`Sanitizer::finish`]). Only an unfinished
//! candidate for a kept sequence (`ESC`, `ESC [ 3`, a `\r` that may start
//! `\r\n`) is carried between deltas, at most [`SGR_MAX_BYTES`]; anything
//! else is decided at once, so a sequence split across deltas cannot slip
//! through (its ESC is shown as `␛` whatever follows). Text without a
//! control character is copied as it is, after one byte scan ([`sanitize`]
//! then borrows it: no allocation).

use std::borrow::Cow;

/// Longest SGR sequence kept (`ESC [` … `m`), in bytes; a longer one is shown.
pub const SGR_MAX_BYTES: usize = 64;
/// `ESC`.
const ESC: char = '\x1b';
/// The SGR sequence that resets every attribute.
const SGR_RESET: &str = "\x1b[0m";

/// Where the text goes, which decides what happens to colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A terminal reads the bytes (`--output-format text`): SGR colour is
    /// kept (without conceal), `\r\n` kept, and a colour left on at the end
    /// is reset by [`Sanitizer::finish`].
    Terminal,
    /// ratatui cells (the interactive UI), which style text themselves: SGR
    /// sequences are removed, `\r\n` becomes `\n`.
    Cells,
}

/// `text` with every control shown visibly (see the module docs); borrowed
/// when there is nothing to change.
pub fn sanitize(text: &str, mode: Mode) -> Cow<'_, str> {
    if first_control(text).is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut sanitizer = Sanitizer::new(mode);
    sanitizer.push(text, &mut out);
    sanitizer.finish(&mut out);
    Cow::Owned(out)
}

/// A sanitiser for text arriving in pieces; see the module docs.
#[derive(Debug, Clone)]
pub struct Sanitizer {
    mode: Mode,
    /// An unfinished `ESC…` SGR candidate or a lone `\r`, carried to the next piece.
    pending: String,
    /// A kept SGR sequence left some attribute on.
    colour_on: bool,
}

impl Sanitizer {
    /// A sanitiser with nothing pending.
    pub fn new(mode: Mode) -> Self {
        Self {
            mode,
            pending: String::new(),
            colour_on: false,
        }
    }

    /// Appends the safe form of `chunk` to `out`; an unfinished sequence at
    /// its end waits for the next chunk (or [`Sanitizer::finish`]).
    pub fn push(&mut self, chunk: &str, out: &mut String) {
        let mut rest = chunk;
        while !rest.is_empty() {
            if self.pending.is_empty() {
                let Some(at) = first_control(rest) else {
                    out.push_str(rest);
                    return;
                };
                out.push_str(&rest[..at]);
                rest = &rest[at..];
            }
            let mut chars = rest.chars();
            let Some(c) = chars.next() else {
                return;
            };
            self.step(c, out);
            rest = chars.as_str();
        }
    }

    /// Ends the text: an unfinished sequence is shown, and in
    /// [`Mode::Terminal`] a colour left on is reset.
    pub fn finish(&mut self, out: &mut String) {
        self.flush_pending(out);
        if self.colour_on {
            out.push_str(SGR_RESET);
            self.colour_on = false;
        }
    }

    /// One character at a control or inside a pending candidate.
    fn step(&mut self, c: char, out: &mut String) {
        if self.pending == "\r" {
            self.pending.clear();
            if c == '\n' {
                out.push_str(match self.mode {
                    Mode::Terminal => "\r\n",
                    Mode::Cells => "\n",
                });
                return;
            }
            out.push(picture('\r'));
        } else if self.pending.starts_with(ESC) {
            let in_params = self.pending.len() >= 2;
            if !in_params && c == '[' {
                self.pending.push(c);
                return;
            }
            if in_params && (c.is_ascii_digit() || c == ';' || c == ':') {
                if self.pending.len() < SGR_MAX_BYTES - 1 {
                    self.pending.push(c);
                    return;
                }
            } else if in_params && c == 'm' {
                let params = self.pending.split_off(2);
                self.pending.clear();
                self.sgr(&params, out);
                return;
            }
            self.flush_pending(out);
        }
        match c {
            ESC | '\r' => self.pending.push(c),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => push_visible(c, out),
            c => out.push(c),
        }
    }

    /// A complete SGR sequence with `params`: kept without conceal
    /// ([`Mode::Terminal`]) or removed ([`Mode::Cells`]).
    fn sgr(&mut self, params: &str, out: &mut String) {
        if self.mode == Mode::Cells {
            return;
        }
        let Some(kept) = sgr_without_conceal(params) else {
            return;
        };
        self.colour_on = !kept
            .split(';')
            .all(|p| p.trim_start_matches('0').is_empty());
        out.push(ESC);
        out.push('[');
        out.push_str(&kept);
        out.push('m');
    }

    /// Shows a pending candidate as text: `␛` (or `␍`) and the rest as it is.
    fn flush_pending(&mut self, out: &mut String) {
        for c in self.pending.chars() {
            match c {
                ESC | '\r' => out.push(picture(c)),
                c => out.push(c),
            }
        }
        self.pending.clear();
    }
}

/// The byte offset of the first character [`Sanitizer`] must look at: a C0
/// control other than `\n`/`\t`, DEL, or a C1 control (UTF-8 `C2 80`–`C2 9F`).
fn first_control(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().position(|(i, &b)| {
        (b < 0x20 && b != b'\n' && b != b'\t')
            || b == 0x7f
            || (b == 0xc2 && bytes.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)))
    })
}

/// The Control Picture of a C0 control or DEL.
fn picture(c: char) -> char {
    match c {
        '\x7f' => '\u{2421}',
        c => char::from_u32(0x2400 + u32::from(c)).unwrap_or('\u{fffd}'),
    }
}

/// A control shown visibly: C0 and DEL as their picture, C1 as `␛` and
/// its 7-bit equivalent.
fn push_visible(c: char, out: &mut String) {
    let code = u32::from(c);
    if (0x80..=0x9f).contains(&code) {
        out.push(picture(ESC));
        out.push(char::from_u32(code - 0x40).unwrap_or('\u{fffd}'));
    } else {
        out.push(picture(c));
    }
}

/// An SGR parameter's value: None unless it is empty or a number below 256
/// (every attribute and colour component is), so no terminal can read a
/// huge number as a different one.
fn param_value(p: &str) -> Option<u8> {
    let digits = p.trim_start_matches('0');
    if digits.is_empty() {
        return Some(0);
    }
    digits.parse().ok()
}

/// SGR parameters without conceal (8): `38;5;N` / `38;2;R;G;B` (and 48,
/// 58) are copied whole so a colour 8 stays a colour; a parameter with a
/// value over 255 is dropped. None when nothing is left of a non-empty list.
fn sgr_without_conceal(params: &str) -> Option<String> {
    if params.is_empty() {
        return Some(String::new());
    }
    let parts: Vec<&str> = params.split(';').collect();
    let mut kept: Vec<&str> = Vec::with_capacity(parts.len());
    let mut i = 0;
    while i < parts.len() {
        let part = parts[i];
        i += 1;
        let values: Option<Vec<u8>> = part.split(':').map(param_value).collect();
        let Some(values) = values else {
            continue;
        };
        if values.first() == Some(&8) {
            continue;
        }
        kept.push(part);
        if values.len() == 1 && matches!(values[0], 38 | 48 | 58) {
            let extra = match parts.get(i).and_then(|p| param_value(p)) {
                Some(5) => 2,
                Some(2) => 4,
                _ => 0,
            };
            for _ in 0..extra {
                match parts.get(i) {
                    Some(p) if param_value(p).is_some() => kept.push(p),
                    _ => break,
                }
                i += 1;
            }
        }
    }
    (!kept.is_empty()).then(|| kept.join(";"))
}

#[cfg(test)]
#[path = "sanitize_tests.rs"]
mod tests;
