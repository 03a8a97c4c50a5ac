//! Commands that take a program as an argument: `sed` and `awk`. Their
//! programs can write files (`sed 'w f'`, `s///w f`, awk's `print > f`) or
//! run commands (`sed 'e'`, `s///e`, awk's `system()`, `"cmd" | getline`),
//! so a call is read-only only when its options are known, the program is
//! a literal argument (never `-f FILE`), and a conservative reading of the
//! program finds none of those. "Conservative" means a harmless program may
//! be refused (`sed 'a\ text with w'`); a harmful one never passes.

use crate::words::Arg;

/// `sed [-n] [-E] [-s] [-u] [-z] [-e SCRIPT]… [SCRIPT] [FILE]…` without
/// `-i`, `-f`, or a script that writes or executes.
pub(crate) fn sed_is_read_only(args: &[Arg]) -> bool {
    literal_args(args)
        .and_then(|args| sed_call(&args))
        .is_some_and(|call| !call.in_place && call.scripts_are_inert())
}

/// A sed call with known options: its scripts and operands.
pub(super) struct SedCall<'a> {
    /// `-i` / `--in-place` (never with a backup suffix: `sed_call` refuses it).
    pub(super) in_place: bool,
    /// `-n` / `--quiet` / `--silent`.
    pub(super) quiet: bool,
    /// The programs (`-e`, or the first operand).
    pub(super) scripts: Vec<&'a str>,
    /// The files.
    pub(super) operands: Vec<&'a str>,
}

impl SedCall<'_> {
    /// Every program is inert ([`sed_script_is_inert`]).
    pub(super) fn scripts_are_inert(&self) -> bool {
        self.scripts.iter().all(|s| sed_script_is_inert(s))
    }
}

/// Reads `sed [OPTIONS] [-e SCRIPT]… [SCRIPT] [FILE]…` when every option
/// is a harmless one (`-n -E -r -s -u -z --posix --debug --sandbox`), `-e`
/// or a plain `-i` / `--in-place` (a short cluster may end in `i`: `-Ei`;
/// in `-iE` the `E` would be a backup suffix); `None` for anything else
/// (`-f`, `-i.bak`, an unknown option) or when there is no program.
pub(super) fn sed_call<'a>(args: &[&'a str]) -> Option<SedCall<'a>> {
    let mut call = SedCall {
        in_place: false,
        quiet: false,
        scripts: Vec::new(),
        operands: Vec::new(),
    };
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        match *a {
            "-n" | "--quiet" | "--silent" => call.quiet = true,
            "-i" | "--in-place" => call.in_place = true,
            "-E" | "-r" | "--regexp-extended" | "-s" | "--separate" | "-u" | "--unbuffered"
            | "-z" | "--null-data" | "--posix" | "--debug" | "--sandbox" => {}
            "-e" | "--expression" => call.scripts.push(iter.next()?),
            a if a.starts_with("--expression=") => call.scripts.push(&a["--expression=".len()..]),
            "--" => call.operands.extend(iter.by_ref().copied()),
            a if a.starts_with('-') && a.len() > 1 => {
                // Clusters of the harmless short flags (`-nE`), `i` last.
                let letters = &a[1..];
                let flags = letters.strip_suffix('i').unwrap_or(letters);
                if !flags
                    .chars()
                    .all(|c| matches!(c, 'n' | 'E' | 'r' | 's' | 'u' | 'z'))
                {
                    return None;
                }
                call.in_place |= flags.len() < letters.len();
                call.quiet |= flags.contains('n');
            }
            a => call.operands.push(a),
        }
    }
    if call.scripts.is_empty() {
        if call.operands.is_empty() {
            return None;
        }
        call.scripts.push(call.operands.remove(0));
    }
    Some(call)
}

/// The literal values of `args`, or `None` when one is opaque.
fn literal_args(args: &[Arg]) -> Option<Vec<&str>> {
    args.iter().map(Arg::literal).collect()
}

/// Parses a sed script with a strict grammar: commands separated by `;`
/// or newlines, each `[ADDR[,ADDR]][!]CMD` where an address is a line
/// number (`N`, `N~S`, `+N`), `$` or a regex (`/re/`, `\cREc`, flags `I`
/// `M`), and CMD one of `p P d D = l n N g G h H x z { }`, `q`/`Q` with an
/// exit code, `s/re/repl/FLAGS` with flags from `g p i I m M` and digits,
/// or `y/src/dst/`; `#` starts a comment. Anything else (`w`, `W`, `e`,
/// `r`, `R`, `a`, `i`, `c`, labels and branches, the `w`/`e` flags of `s`)
/// refuses: text commands and labels are where a loose reading could miss
/// a command.
fn sed_script_is_inert(script: &str) -> bool {
    let c: Vec<char> = script.chars().collect();
    let mut i = 0;
    loop {
        while c.get(i).is_some_and(|ch| ch.is_whitespace() || *ch == ';') {
            i += 1;
        }
        let Some(&first) = c.get(i) else {
            return true;
        };
        if first == '#' {
            while c.get(i).is_some_and(|ch| *ch != '\n') {
                i += 1;
            }
            continue;
        }
        let Some(next) = sed_address(&c, i) else {
            return false;
        };
        i = next;
        if c.get(i) == Some(&',') {
            let Some(next) = sed_address(&c, i + 1) else {
                return false;
            };
            i = next;
        }
        while c.get(i).is_some_and(|ch| *ch == ' ' || *ch == '!') {
            i += 1;
        }
        let Some(&cmd) = c.get(i) else {
            return false;
        };
        i += 1;
        match cmd {
            'p' | 'P' | 'd' | 'D' | '=' | 'l' | 'n' | 'N' | 'g' | 'G' | 'h' | 'H' | 'x' | 'z'
            | '{' | '}' => {}
            'q' | 'Q' => {
                while c.get(i).is_some_and(|ch| *ch == ' ' || ch.is_ascii_digit()) {
                    i += 1;
                }
            }
            's' | 'y' => {
                let Some(&delim) = c.get(i) else {
                    return false;
                };
                if delim == '\\' || delim == '\n' || delim == ' ' {
                    return false;
                }
                i = skip_delimited(&c, i + 1, delim);
                i = skip_delimited(&c, i, delim);
                if i > c.len() {
                    return false;
                }
                while let Some(&flag) = c.get(i) {
                    if cmd == 'y' || !(flag.is_ascii_alphanumeric()) {
                        break;
                    }
                    if !matches!(flag, 'g' | 'p' | 'i' | 'I' | 'm' | 'M') && !flag.is_ascii_digit()
                    {
                        return false;
                    }
                    i += 1;
                }
            }
            _ => return false,
        }
        while c.get(i).is_some_and(|ch| *ch == ' ' || *ch == '\t') {
            i += 1;
        }
        if !matches!(c.get(i), None | Some(';' | '\n' | '}' | '#')) {
            return false;
        }
    }
}

/// The end of an optional sed address starting at `i`; `None` when it is
/// malformed (an unterminated regex).
fn sed_address(c: &[char], mut i: usize) -> Option<usize> {
    match c.get(i) {
        Some('/') => i = skip_delimited(c, i + 1, '/'),
        Some('\\') => {
            let delim = *c.get(i + 1)?;
            if delim == '\n' || delim == '\\' {
                return None;
            }
            i = skip_delimited(c, i + 2, delim);
        }
        Some('$') => i += 1,
        Some(ch) if ch.is_ascii_digit() || *ch == '+' || *ch == '~' => {
            while c
                .get(i)
                .is_some_and(|ch| ch.is_ascii_digit() || *ch == '+' || *ch == '~')
            {
                i += 1;
            }
            return Some(i);
        }
        _ => return Some(i),
    }
    if i > c.len() {
        return None;
    }
    while c.get(i).is_some_and(|ch| matches!(ch, 'I' | 'M')) {
        i += 1;
    }
    Some(i)
}

/// The index after the closing unescaped `delim` at or after `from`
/// (past the end when there is none, which the caller treats as refusal).
fn skip_delimited(chars: &[char], from: usize, delim: char) -> usize {
    let mut i = from;
    while let Some(&c) = chars.get(i) {
        if c == '\\' {
            i += 2;
            continue;
        }
        if c == delim {
            return i + 1;
        }
        i += 1;
    }
    chars.len() + 1
}

/// `awk [-F SEP] [-v NAME=VALUE]… [--] 'PROGRAM' [FILE | NAME=VALUE]…`
/// whose program has no `system`, pipe, output redirection, `@` directive
/// (gawk's `@load`/`@include`), and never `-f`/`-i`/`-l`/`-e`.
pub(crate) fn awk_is_read_only(args: &[Arg]) -> bool {
    let Some(args) = literal_args(args) else {
        return false;
    };
    let mut iter = args.iter();
    let program = loop {
        match iter.next() {
            Some(&("-F" | "-v")) => {
                if iter.next().is_none() {
                    return false;
                }
            }
            Some(a) if a.starts_with("-F") || a.starts_with("-v") => {}
            Some(&"--") => break iter.next(),
            Some(a) if a.starts_with('-') && a.len() > 1 => return false,
            other => break other,
        }
    };
    program.is_some_and(|p| awk_program_is_inert(p))
}

fn awk_program_is_inert(program: &str) -> bool {
    !program.contains(['|', '>', '@'])
        && ![
            "system", "getline", "close", "fflush", "ENVIRON", "PROCINFO",
        ]
        .iter()
        .any(|word| program.contains(word))
}
