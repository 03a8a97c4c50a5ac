//! The lines orbit prints itself (warnings, errors, `orbit mcp list`,
//! `orbit hooks list`) carry text a project, a model or a server chose: an
//! MCP server's name or command from `.mcp.json`, an error a server sent, a
//! path, a hook's command. Each such line passes through here once, and
//! [`orbit_tui::sanitize`] ([`Mode::Terminal`]) shows every control
//! sequence but colour visibly (`␛]52;…␇`), so a server named with an OSC
//! 52 clipboard write or a screen clear prints as text.
//!
//! Use [`eprintln_safe!`] / [`println_safe!`] where `eprintln!` /
//! `println!` would print such text; they format the line as those do,
//! sanitise it and write it with its newline (a closed stdout is ignored,
//! as a listing piped to `head` should be).

use std::io::Write;

use orbit_tui::sanitize::{Mode, sanitize};

/// `line` as it may reach a terminal.
pub fn safe_line(line: &str) -> std::borrow::Cow<'_, str> {
    sanitize(line, Mode::Terminal)
}

/// Writes `line`, terminal-safe, and a newline to `out`; best effort.
pub fn write_line(out: &mut impl Write, line: &str) {
    let _ = writeln!(out, "{}", safe_line(line));
}

/// `eprintln!`, with the line made terminal-safe first.
macro_rules! eprintln_safe {
    ($($arg:tt)*) => {
        $crate::term_safe::write_line(&mut ::std::io::stderr().lock(), &format!($($arg)*))
    };
}

/// `println!`, with the line made terminal-safe first.
macro_rules! println_safe {
    ($($arg:tt)*) => {
        $crate::term_safe::write_line(&mut ::std::io::stdout().lock(), &format!($($arg)*))
    };
}

pub(crate) use {eprintln_safe, println_safe};

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The warning a `.mcp.json` server named with an OSC 52 clipboard
    /// write and a title change produces prints them as text.
    #[test]
    fn a_warning_naming_a_hostile_server_prints_escaped() {
        let name = "evil\x1b]52;c;aGk=\x07\x1b]0;PWNED\x07\u{9b}2J";
        let mut out = Vec::new();
        write_line(
            &mut out,
            &crate::mcp::unset_variables_warning(name, &["TOKEN".to_string()]),
        );
        let printed = String::from_utf8(out).unwrap();
        assert_eq!(
            printed,
            "orbit: warning: MCP server \"evil␛]52;c;aGk=␇␛]0;PWNED␇␛[2J\": \
             unset variables TOKEN (no default)\n"
        );
    }

    /// Colour and plain text pass unchanged.
    #[test]
    fn plain_lines_and_colour_are_unchanged() {
        let mut out = Vec::new();
        write_line(&mut out, "orbit: warning: \x1b[1mbold\x1b[0m\tok");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "orbit: warning: \x1b[1mbold\x1b[0m\tok\n"
        );
    }
}
