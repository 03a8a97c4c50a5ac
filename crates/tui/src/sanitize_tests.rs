use proptest::prelude::*;

use super::*;

/// Whole-text cases (input, Terminal output, Cells output), in groups by
/// what they try; kept as data in `sanitize_cases.json`.
const CASES_JSON: &str = include_str!("sanitize_cases.json");

/// Every case of [`CASES_JSON`] (each group's `about` says what its
/// cases try).
#[allow(clippy::unwrap_used)]
fn cases() -> Vec<(String, String, String)> {
    let groups: Vec<serde_json::Value> = serde_json::from_str(CASES_JSON).unwrap();
    groups
        .iter()
        .flat_map(|group| group["cases"].as_array().unwrap().clone())
        .map(|case| serde_json::from_value(case).unwrap())
        .collect()
}

#[test]
fn whole_text_table() {
    let cases = cases();
    assert!(cases.len() >= 36, "the table lost cases: {}", cases.len());
    let mut failures = Vec::new();
    for (input, terminal, cells) in &cases {
        for (mode, want) in [(Mode::Terminal, terminal), (Mode::Cells, cells)] {
            let got = sanitize(input, mode);
            if got != *want {
                failures.push(format!("{input:?} {mode:?}: got {got:?}, want {want:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `pieces` through one [`Sanitizer`].
fn streamed(pieces: &[&str], mode: Mode) -> String {
    let mut sanitizer = Sanitizer::new(mode);
    let mut out = String::new();
    for piece in pieces {
        sanitizer.push(piece, &mut out);
    }
    sanitizer.finish(&mut out);
    out
}

#[test]
fn every_split_of_every_case_gives_the_whole_text_result() {
    let mut failures = Vec::new();
    for (input, _, _) in &cases() {
        let cuts: Vec<usize> = (0..=input.len())
            .filter(|i| input.is_char_boundary(*i))
            .collect();
        for &a in &cuts {
            for &b in cuts.iter().filter(|b| **b >= a) {
                let pieces = [&input[..a], &input[a..b], &input[b..]];
                for mode in [Mode::Terminal, Mode::Cells] {
                    let got = streamed(&pieces, mode);
                    let want = sanitize(input, mode);
                    if got != want {
                        failures.push(format!("{pieces:?} {mode:?}: {got:?} != {want:?}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_split_osc_is_shown_not_obeyed() {
    let out = streamed(&["title: \x1b", "]0;pwned", "\x07 done"], Mode::Terminal);
    assert_eq!(out, "title: ␛]0;pwned␇ done");
    let out = streamed(&["\x1b[3", "1mred\x1b[", "2J"], Mode::Terminal);
    assert_eq!(out, "\x1b[31mred␛[2J\x1b[0m");
}

#[test]
fn an_unfinished_candidate_waits_for_the_next_piece() {
    let mut sanitizer = Sanitizer::new(Mode::Terminal);
    let mut out = String::new();
    sanitizer.push("ab\x1b[3", &mut out);
    assert_eq!(out, "ab");
    sanitizer.push("1m", &mut out);
    assert_eq!(out, "ab\x1b[31m");
    sanitizer.push("x\r", &mut out);
    assert_eq!(out, "ab\x1b[31mx");
    sanitizer.push("\n", &mut out);
    assert_eq!(out, "ab\x1b[31mx\r\n");
}

#[test]
fn an_overlong_sgr_is_shown() {
    let params = "1;".repeat(SGR_MAX_BYTES);
    let input = format!("\x1b[{params}m");
    let out = sanitize(&input, Mode::Terminal);
    assert!(out.starts_with("␛["), "{out:?}");
    assert!(!out.contains(ESC), "{out:?}");
}

#[test]
fn clean_text_is_borrowed() {
    let text = "fn main() {\n\tprintln!(\"héllo\");\n}\n";
    assert!(matches!(sanitize(text, Mode::Terminal), Cow::Borrowed(_)));
    assert!(matches!(sanitize(text, Mode::Cells), Cow::Borrowed(_)));
}

/// What the property tests check: every ESC starts a kept SGR sequence
/// without conceal (Terminal) or there is none (Cells); no other C0 but
/// `\n`, `\t` (and `\r` only before `\n`), no DEL, no C1.
fn check_safe(out: &str, mode: Mode) -> Result<(), String> {
    let chars: Vec<char> = out.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == ESC {
            if mode == Mode::Cells {
                return Err(format!("ESC at {i} in {out:?}"));
            }
            let mut j = i + 1;
            if chars.get(j) != Some(&'[') {
                return Err(format!("non-CSI ESC at {i} in {out:?}"));
            }
            j += 1;
            let start = j;
            while chars
                .get(j)
                .is_some_and(|c| c.is_ascii_digit() || *c == ';' || *c == ':')
            {
                j += 1;
            }
            if chars.get(j) != Some(&'m') {
                return Err(format!("non-SGR CSI at {i} in {out:?}"));
            }
            let params: String = chars[start..j].iter().collect();
            if conceals(&params) {
                return Err(format!("conceal kept at {i} in {out:?}"));
            }
            i = j + 1;
            continue;
        }
        if c == '\r' {
            if mode == Mode::Cells || chars.get(i + 1) != Some(&'\n') {
                return Err(format!("lone CR at {i} in {out:?}"));
            }
        } else if c.is_control() && c != '\n' && c != '\t' {
            return Err(format!("{c:?} at {i} in {out:?}"));
        }
        i += 1;
    }
    Ok(())
}

/// Whether a terminal reading SGR `params` would turn conceal on (or
/// could read a number over 255 as one).
fn conceals(params: &str) -> bool {
    let parts: Vec<&str> = params.split(';').collect();
    let value = |p: &str| p.trim_start_matches('0').parse::<u8>().ok();
    let mut i = 0;
    while i < parts.len() {
        let part = parts[i];
        if part
            .split(':')
            .any(|v| !v.trim_start_matches('0').is_empty() && value(v).is_none())
        {
            return true;
        }
        let first = part.split(':').next().and_then(value);
        if !part.contains(':') && matches!(first, Some(38 | 48 | 58)) {
            i += match parts.get(i + 1).and_then(|p| value(p)) {
                Some(5) => 3,
                Some(2) => 5,
                _ => 1,
            };
            continue;
        }
        if first == Some(8) {
            return true;
        }
        i += 1;
    }
    false
}

/// Text rich in controls and sequence pieces.
fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("\x1b".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just(";".to_string()),
        Just("8".to_string()),
        Just("m".to_string()),
        Just("\r".to_string()),
        Just("\n".to_string()),
        Just("\x07".to_string()),
        Just("\u{9b}".to_string()),
        "[0-9;:]{0,4}".prop_map(String::from),
        any::<char>().prop_map(String::from),
        "[a-zé]{0,3}".prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|p| p.concat())
}

proptest! {
    #[test]
    fn output_never_carries_a_raw_control(text in hostile_text(), cut_a in 0usize..200, cut_b in 0usize..200) {
        let mut cuts = [cut_a.min(text.len()), cut_b.min(text.len())];
        cuts.sort_unstable();
        while !text.is_char_boundary(cuts[0]) { cuts[0] -= 1; }
        while !text.is_char_boundary(cuts[1]) { cuts[1] -= 1; }
        let pieces = [&text[..cuts[0]], &text[cuts[0]..cuts[1]], &text[cuts[1]..]];
        for mode in [Mode::Terminal, Mode::Cells] {
            let whole = sanitize(&text, mode);
            prop_assert!(check_safe(&whole, mode).is_ok(), "{:?}", check_safe(&whole, mode));
            prop_assert_eq!(streamed(&pieces, mode), whole.into_owned());
        }
    }

    #[test]
    fn text_without_controls_is_unchanged(text in "[^\\p{Cc}]{0,80}") {
        prop_assert_eq!(sanitize(&text, Mode::Terminal), text.as_str());
    }
}
