//! Property tests of the shell analysis: random bash-ish strings and
//! mutations of known bypasses never panic any question, anything that
//! does not parse is not read-only, and a mutation the analysis calls
//! read-only really is: run by bash in a scratch directory it creates no
//! file.

use std::process::{Command, Stdio};

use orbit_shell::{CommandPattern, parse};
use proptest::prelude::*;

/// Known bypasses; mutations of them probe the edges of each check.
const SEEDS: &[&str] = &[
    "test -v 'a[$(touch PWNED)]'",
    "printf -v 'a[$(touch PWNED)]' x",
    "[[ 'a[$(touch PWNED)]' -eq 1 ]]",
    "printf -v PATH . ; ls",
    "ls; touch PWNED",
    "echo $(touch PWNED)",
    "echo `touch PWNED`",
    "cat <(touch PWNED)",
    "echo x > PWNED",
    "env touch PWNED",
    "find . -exec touch PWNED \\;",
    "sort -o PWNED f",
    "sed 's/a/b/w PWNED' f",
    "sed '1e touch PWNED' f",
    "awk 'BEGIN{system(\"touch PWNED\")}'",
    "git diff --output=PWNED",
    "echo ${x:'a[$(touch PWNED)]'}",
    "cat <<EOF > PWNED\nx\nEOF",
    "timeout 5 touch PWNED",
    "echo 'touch PWNED' | sh",
];

/// Characters bash gives meaning to, plus letters of the seeds.
const ALPHABET: &[char] = &[
    ' ', ';', '&', '|', '>', '<', '(', ')', '{', '}', '[', ']', '$', '`', '\'', '"', '\\', '\n',
    '#', '=', '-', '*', '?', '!', '~', ':', ',', '.', '/', 'a', 'e', 'v', 'w', 'x', 'P', '1',
];

/// Asks every question; none may panic.
fn ask_everything(src: &str) {
    let read_only = orbit_shell::is_read_only(src);
    let _ = orbit_shell::is_destructive(src);
    match parse(src) {
        Ok(script) => {
            let access = script.file_access();
            let _ = script.simple_commands();
            let _ = script.last_command_name();
            let _ = script.git_directories();
            if read_only {
                assert!(access.complete, "read-only with unknown paths: {src:?}");
                assert!(!script.has_substitution(), "{src:?}");
            }
        }
        Err(_) => assert!(!read_only, "unparsable but read-only: {src:?}"),
    }
    for spec in ["ls *", "git log:*", "* --version", "echo"] {
        if let Some(p) = CommandPattern::parse(spec) {
            let _ = p.matches(src);
        }
    }
}

/// A seed with up to 4 edits (insert, delete or replace a character).
fn mutated() -> impl Strategy<Value = String> {
    let edit = (any::<usize>(), 0..3u8, prop::sample::select(ALPHABET));
    (
        prop::sample::select(SEEDS),
        prop::collection::vec(edit, 0..4),
    )
        .prop_map(|(seed, edits)| {
            let mut chars: Vec<char> = seed.chars().collect();
            for (at, kind, c) in edits {
                let i = at % (chars.len() + 1);
                match kind {
                    0 => chars.insert(i, c),
                    1 if i < chars.len() => {
                        chars.remove(i);
                    }
                    _ if i < chars.len() => chars[i] = c,
                    _ => chars.push(c),
                }
            }
            chars.into_iter().collect()
        })
}

/// Runs `src` with bash in a fresh directory (stdin closed, 2 s limit) and
/// says whether it created any file there.
fn creates_a_file(src: &str) -> bool {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    std::fs::write(dir.path().join("f"), "a\n").unwrap_or_else(|e| panic!("{e}"));
    let _ = Command::new("timeout")
        .args(["2", "bash", "-c", src])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    std::fs::read_dir(dir.path())
        .map(|entries| entries.count() != 1)
        .unwrap_or(true)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_strings_never_panic(src in prop::collection::vec(prop::sample::select(ALPHABET), 0..40)
        .prop_map(|cs| cs.into_iter().collect::<String>())) {
        ask_everything(&src);
    }

    #[test]
    fn arbitrary_unicode_never_panics(src in "\\PC{0,60}") {
        ask_everything(&src);
    }

    #[test]
    fn mutated_bypasses_that_pass_really_only_read(src in mutated()) {
        ask_everything(&src);
        if orbit_shell::is_read_only(&src) {
            prop_assert!(!creates_a_file(&src), "read-only but wrote: {:?}", src);
        }
    }
}

#[test]
fn the_seeds_themselves_are_not_read_only() {
    for seed in SEEDS {
        assert!(!orbit_shell::is_read_only(seed), "{seed:?}");
    }
}

/// tree-sitter-bash 0.25.1's scanner reads `isdigit(c)` for the character
/// after `{` (and after `{1..`): a code point past 255 indexes outside the
/// C library's table and crashed the process on Linux (tree-sitter-bash
/// #337; this suite's random Unicode hit it). Every such character, after
/// every such prefix, is analysed without a crash, and the analysis still
/// sees the command.
#[test]
fn non_ascii_after_a_brace_never_crashes() {
    let mut parsed = 0;
    for code in (0x80..=0x10_FFFF).step_by(0x1F7) {
        let Some(c) = char::from_u32(code) else {
            continue;
        };
        for prefix in ["{", "{1", "{1..", "echo {", "echo {1..2}{"] {
            let src = format!("{prefix}{c}");
            ask_everything(&src);
            parsed += 1;
        }
    }
    assert!(parsed > 10_000, "{parsed}");
    // A non-ASCII word is still a word of the command it is in.
    let Ok(script) = parse("cat {é,ü}.txt") else {
        panic!("a non-ASCII brace expansion is valid bash");
    };
    assert_eq!(script.last_command_name().as_deref(), Some("cat"));
    assert!(orbit_shell::is_read_only("cat 'café.txt'"));
    assert!(!orbit_shell::is_read_only("é=1"));
}
