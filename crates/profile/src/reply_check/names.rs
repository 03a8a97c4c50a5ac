//! File names a reply gives, and whether the prompt showed them: the
//! unseen-name check of [`super::SmallModelReplyCheck`].
//!
//! A word of the reply is a file name when its last path part is a stem
//! and a short extension that starts with a letter (`app.cfg`, `main.rs`,
//! `src/lib.rs` → `lib.rs`); quotes, brackets and end punctuation are not
//! part of it, and `e.g.`/`i.e.` are not names. It was shown when the
//! prompt or the prompt's tool text (`ReplyFacts::shown`) contains it.

/// Longest extension taken as one (`.proto`, `.ipynb` are longer and are
/// not checked).
const EXTENSION_MAX_CHARS: usize = 5;

/// Abbreviations that look like a file name.
const NOT_NAMES: [&str; 2] = ["e.g", "i.e"];

/// The first file name of `reply` that neither `prompt` nor `shown`
/// contains.
pub(super) fn unseen_file_name<'a>(reply: &'a str, prompt: &str, shown: &str) -> Option<&'a str> {
    prompt_words(reply)
        .filter_map(file_name)
        .find(|name| !prompt.contains(name) && !shown.contains(name))
}

/// Words (lowercase) of a prompt that asks for a second file beside the
/// first: writing one is what was asked.
const COPY_WORDS: [&str; 5] = ["copy", "backup", "duplicate", "clone", "save"];

/// Shortest stem of the prompt's file that another name must contain to
/// count as its copy.
const COPY_STEM_MIN_CHARS: usize = 3;

/// `(copy, original)` when the prompt names files, the calls wrote none
/// of them, and one written name contains the stem of one of the
/// prompt's (`steps_reversed.txt` for `steps.txt`). None when the prompt
/// asks for a copy or backup.
pub(super) fn copy_instead<'a>(
    prompt: &'a str,
    written: &'a [String],
) -> Option<(&'a str, &'a str)> {
    let words = prompt_words(prompt);
    if words
        .clone()
        .any(|w| COPY_WORDS.contains(&w.to_ascii_lowercase().as_str()))
    {
        return None;
    }
    let named: Vec<&str> = words.filter_map(file_name).collect();
    if named.is_empty() || written.iter().any(|w| named.contains(&w.as_str())) {
        return None;
    }
    written.iter().find_map(|copy| {
        named.iter().find_map(|original| {
            let stem = original.rsplit_once('.').map_or(*original, |(s, _)| s);
            (stem.chars().count() >= COPY_STEM_MIN_CHARS && copy.contains(stem))
                .then_some((copy.as_str(), *original))
        })
    })
}

/// The words of a text, without quotes, brackets and end punctuation.
fn prompt_words(text: &str) -> impl Iterator<Item = &str> + Clone {
    text.split(|c: char| c.is_whitespace() || "`'\"()[]{}<>,;*".contains(c))
        .map(|word| word.trim_end_matches(['.', ':', '!', '?']))
        .filter(|word| !word.is_empty())
}

/// Longest last line quoted back to the model, in chars.
const LAST_LINE_MAX_CHARS: usize = 200;

/// The last non-blank line of `shown` (the last result's), at most
/// [`LAST_LINE_MAX_CHARS`].
pub(super) fn last_line(shown: &str) -> &str {
    let line = shown
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    match line.char_indices().nth(LAST_LINE_MAX_CHARS) {
        Some((at, _)) => &line[..at],
        None => line,
    }
}

/// The file name `word` ends with, if it is one (see the module docs).
fn file_name(word: &str) -> Option<&str> {
    let name = word.rsplit('/').next()?;
    if NOT_NAMES.contains(&name.to_ascii_lowercase().as_str()) {
        return None;
    }
    let (stem, extension) = name.rsplit_once('.')?;
    let stem_ok = !stem.is_empty()
        && stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    let extension_ok = (1..=EXTENSION_MAX_CHARS).contains(&extension.len())
        && extension.starts_with(|c: char| c.is_ascii_alphabetic())
        && extension.chars().all(|c| c.is_ascii_alphanumeric());
    (stem_ok && extension_ok).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_a_reply() {
        let table: [(&str, Option<&str>); 12] = [
            ("The log level in app.cfg is debug.", Some("app.cfg")),
            ("See `src/lib.rs` (line 3).", Some("lib.rs")),
            ("It printed 'step 1 finished.'", None),
            ("The area is 12.57, e.g. for r=2.", None),
            ("Version 3.14.1 is set.", None),
            ("Updated notes.txt!", Some("notes.txt")),
            ("i.e. nothing changed", None),
            ("a.ipynb_checkpoints", None),
            ("It calls time.sleep(1).", Some("time.sleep")),
            ("Done.", None),
            ("Run ./build.sh, then check out/x.o", Some("build.sh")),
            ("...", None),
        ];
        for (reply, want) in table {
            assert_eq!(unseen_file_name(reply, "", ""), want, "{reply}");
        }
    }

    #[test]
    fn a_copy_written_instead_of_the_file() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        type Case<'a> = (&'a str, &'a [&'a str], Option<(&'a str, &'a str)>);
        let table: [Case<'_>; 7] = [
            (
                "Reverse the order of the lines in steps.txt.",
                &["steps_reversed.txt"],
                Some(("steps_reversed.txt", "steps.txt")),
            ),
            (
                "Sort names.txt in place.",
                &["names.txt.sorted"],
                Some(("names.txt.sorted", "names.txt")),
            ),
            // The file itself was written too, or nothing like a copy.
            ("Sort names.txt.", &["sorted_names.txt", "names.txt"], None),
            (
                "Fix the bug in calc.py.",
                &["test_calc.py.log"],
                Some(("test_calc.py.log", "calc.py")),
            ),
            ("Fix the bug so test_x.py passes.", &["lib.py"], None),
            // A copy or a backup was asked for.
            ("Make a backup of notes.txt.", &["notes.txt.bak"], None),
            ("Reverse the lines.", &["steps_reversed.txt"], None),
        ];
        for (prompt, written, want) in table {
            let written = names(written);
            assert_eq!(copy_instead(prompt, &written), want, "{prompt}");
        }
    }

    #[test]
    fn the_last_line_quoted() {
        assert_eq!(
            last_line("{\"c\":1}\nline 1\nstep 1 finished.\n\n"),
            "step 1 finished."
        );
        assert_eq!(last_line(""), "");
        assert_eq!(
            last_line(&"é".repeat(300)).chars().count(),
            LAST_LINE_MAX_CHARS
        );
    }

    #[test]
    fn a_name_the_prompt_or_a_tool_showed_is_seen() {
        let shown = "{\"command\":\"cat /tmp/x/notes.txt\"}\nalpha\n";
        assert_eq!(unseen_file_name("Updated notes.txt.", "", shown), None);
        assert_eq!(
            unseen_file_name("Created sum.py.", "Write sum.py", ""),
            None
        );
        assert_eq!(
            unseen_file_name("Read notes.txt and app.cfg", "", shown),
            Some("app.cfg")
        );
    }
}
