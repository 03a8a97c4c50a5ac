//! The files a plain glob a command writes (`sed -i … *.py`, from
//! `orbit_shell::Script::written_globs`) names, found as bash would find
//! them before the run, so `changes` can probe the files themselves
//! rather than the directory the analysis reports in their place.
//!
//! Pattern: `/`-separated; in each component `*`, `?` and `[…]` (with `!`
//! or `^` to negate, `a-z` ranges) are special; a name starting with `.`
//! matches only a component that starts with `.`. Results are sorted by
//! path, as bash sorts them. Directory listings only: nothing is opened
//! but directories, and at most [`GLOB_MAX_ENTRIES_SCANNED`] entries are
//! looked at; more, or more matches than asked: `None` (not watched).

use std::path::{Path, PathBuf};

/// Most directory entries one expansion looks at.
pub(crate) const GLOB_MAX_ENTRIES_SCANNED: usize = 10_000;

/// The existing paths `pattern` names from `cwd` (empty: no match, bash
/// then passes the word as it is); `None` when more than `max` match or
/// the scan is over its cap.
pub(crate) fn expand(cwd: &Path, pattern: &str, max: usize) -> Option<Vec<PathBuf>> {
    let base = if pattern.starts_with('/') {
        PathBuf::from("/")
    } else {
        cwd.to_path_buf()
    };
    let mut current = vec![base];
    let mut scanned = 0;
    for component in pattern.split('/').filter(|c| !c.is_empty() && *c != ".") {
        let mut next = Vec::new();
        if !component.contains(['*', '?', '[']) {
            next.extend(current.iter().map(|dir| dir.join(component)));
        } else {
            let pattern: Vec<char> = component.chars().collect();
            for dir in &current {
                let Ok(entries) = std::fs::read_dir(dir) else {
                    continue;
                };
                for entry in entries.flatten() {
                    scanned += 1;
                    if scanned > GLOB_MAX_ENTRIES_SCANNED {
                        return None;
                    }
                    let name = entry.file_name();
                    let Some(name) = name.to_str() else {
                        continue;
                    };
                    if name.starts_with('.') && !component.starts_with('.') {
                        continue;
                    }
                    if matches(&pattern, &name.chars().collect::<Vec<_>>()) {
                        next.push(dir.join(name));
                    }
                }
            }
        }
        if next.len() > max {
            return None;
        }
        current = next;
    }
    current.retain(|p| std::fs::symlink_metadata(p).is_ok());
    current.sort();
    Some(current)
}

/// Whether `name` matches the glob component `pattern`.
fn matches(pattern: &[char], name: &[char]) -> bool {
    let (mut p, mut n) = (0, 0);
    // The last `*` seen and the name position it was tried at.
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        let step = match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
                continue;
            }
            Some('?') => Some(p + 1),
            Some('[') => class(pattern, p, name[n]),
            Some(c) if *c == name[n] => Some(p + 1),
            _ => None,
        };
        match (step, star) {
            (Some(next), _) => {
                p = next;
                n += 1;
            }
            (None, Some((star_p, star_n))) => {
                p = star_p + 1;
                n = star_n + 1;
                star = Some((star_p, star_n + 1));
            }
            (None, None) => return false,
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

/// A `[…]` class at `pattern[open]` against `c`: the index after it when
/// `c` is in it; `None` when not (an unclosed `[` is a literal `[`).
fn class(pattern: &[char], open: usize, c: char) -> Option<usize> {
    let mut i = open + 1;
    let negate = matches!(pattern.get(i), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut found = false;
    let mut first = true;
    while let Some(&pc) = pattern.get(i) {
        if pc == ']' && !first {
            return (found != negate).then_some(i + 1);
        }
        first = false;
        if pattern.get(i + 1) == Some(&'-') && pattern.get(i + 2).is_some_and(|e| *e != ']') {
            found |= (pc..=pattern[i + 2]).contains(&c);
            i += 3;
        } else {
            found |= pc == c;
            i += 1;
        }
    }
    // No closing bracket: `[` is itself.
    (c == '[').then_some(open + 1)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn glob(pattern: &str, name: &str) -> bool {
        let p: Vec<char> = pattern.chars().collect();
        matches(&p, &name.chars().collect::<Vec<_>>())
    }

    #[test]
    fn patterns_match_as_bash_does() {
        for (pattern, name, want) in [
            ("*.py", "app.py", true),
            ("*.py", "app.pyc", false),
            ("a*b*c", "aXbYbZc", true),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("[ab]x", "bx", true),
            ("[!ab]x", "bx", false),
            ("[a-c]1", "b1", true),
            ("[a-c]1", "d1", false),
            ("*", "", true),
            ("x[", "x[", true),
        ] {
            assert_eq!(glob(pattern, name), want, "{pattern} {name}");
        }
    }

    /// Files in order, hidden ones only for a dotted pattern, a nested
    /// pattern, a cap.
    #[test]
    fn expansion_lists_existing_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("src")).unwrap();
        for name in ["b.py", "a.py", ".h.py", "c.txt", "src/m.py"] {
            std::fs::write(root.join(name), "").unwrap();
        }
        let names = |pattern: &str| -> Vec<String> {
            expand(root, pattern, 10)
                .unwrap()
                .iter()
                .map(|p| p.strip_prefix(root).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(names("*.py"), ["a.py", "b.py"]);
        assert_eq!(names(".*.py"), [".h.py"]);
        assert_eq!(names("*/*.py"), ["src/m.py"]);
        assert_eq!(names("./src/*.py"), ["src/m.py"]);
        assert!(names("*.rs").is_empty());
        assert_eq!(expand(root, "*", 2), None);
    }
}
