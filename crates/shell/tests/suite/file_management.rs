//! `Script::only_manages_files` (Bash's `file_management` fact, which
//! `acceptEdits` allows where the paths are in the workspace): the table of
//! what passes and what not — published bypasses of the sed and wrapper
//! checks included — and, for every command that passes, a real run by
//! bash in a scratch directory: each file it created, changed or removed
//! is one the analysis reported as written (or below one, or a parent
//! directory `mkdir -p` created for one).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use orbit_shell::parse;

/// (command, only manages files)
const TABLE: &[(&str, bool)] = &[
    ("mkdir -p build/out", true),
    ("mkdir build && touch build/.keep", true),
    ("touch a.txt", true),
    ("rm old.log", true),
    ("rm -f old.log", true),
    ("rmdir empty", true),
    ("mv draft.md final.md", true),
    ("cp a.txt backup.txt", true),
    ("cp -r src dst", true),
    ("sed -i 's/cat/dog/g' story.txt", true),
    (
        "sed -i 's/projcet/project/g; s/Projcet/Project/g' README.md",
        true,
    ),
    ("sed -i -e 's/a/b/' -e 's/c/d/' a.txt", true),
    ("sed -Ei 's/(a)/\\1b/' a.txt", true),
    ("cp a.txt b.txt; rm a.txt", true),
    // A whole tree, or paths the operands do not show.
    ("rm -r build", false),
    ("rm -rf .", false),
    ("rm -fr build", false),
    ("cp -t dst a.txt", false),
    ("mv -b a.txt b.txt", false),
    ("mv -S .bak a.txt b.txt", false),
    ("sed -i.bak 's/a/b/' a.txt", false),
    // sed programs that run commands or write other files.
    ("sed -i '1e touch PWNED' a.txt", false),
    ("sed -i 's/a/b/e' a.txt", false),
    ("sed -i 's/a/b/w PWNED' a.txt", false),
    ("sed -i 'w PWNED' a.txt", false),
    ("sed -i -f prog.sed a.txt", false),
    ("sed -n -i 's/a/b/' a.txt", false),
    ("sed 's/a/b/' a.txt", false),
    ("sed -i 's/a/b/'", false),
    // Not literal, not bare, or something else runs.
    ("rm $FILE", false),
    ("rm *.log", false),
    ("cp a.txt $(echo b)", false),
    ("rm `echo a`", false),
    ("./rm a.txt", false),
    ("/bin/rm a.txt", false),
    ("\\rm a.txt", false),
    ("env rm a.txt", false),
    ("sudo rm a.txt", false),
    ("X=1 rm a.txt", false),
    ("touch a.txt > PWNED", false),
    ("cp a.txt b.txt && echo done", false),
    ("mkdir x | sh", false),
    ("if true; then rm a.txt; fi", false),
    ("touch -r ref a.txt", false),
    ("touch -d tomorrow a.txt", false),
    ("mkdir -m 777 x", false),
    ("rm", false),
    ("ls", false),
    ("", false),
];

#[test]
fn only_managing_files_is_read_strictly() {
    for (command, expected) in TABLE {
        let got = parse(command).is_ok_and(|s| s.only_manages_files());
        assert_eq!(got, *expected, "{command:?}");
    }
}

/// Every regular file and directory under `root`, with its content.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            if path.is_dir() {
                out.insert(rel, None);
                stack.push(path);
            } else {
                out.insert(rel, std::fs::read(&path).ok());
            }
        }
    }
    out
}

#[test]
fn what_passes_touches_only_the_paths_it_reports() {
    for (command, expected) in TABLE {
        if !*expected {
            continue;
        }
        let Ok(script) = parse(command) else {
            panic!("{command:?} does not parse");
        };
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let root = dir.path();
        for (file, text) in [
            ("a.txt", "a c cat\n"),
            ("old.log", "x\n"),
            ("draft.md", "# d\n"),
            ("story.txt", "cat\n"),
            ("README.md", "Projcet projcet\n"),
            ("src/m.rs", "fn main() {}\n"),
        ] {
            let path = root.join(file);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
            }
            std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::create_dir_all(root.join("empty")).unwrap_or_else(|e| panic!("{e}"));
        let before = snapshot(root);
        let status = Command::new("bash")
            .args(["-c", command])
            .current_dir(root)
            .status()
            .unwrap_or_else(|e| panic!("bash: {e}"));
        assert!(status.success(), "{command:?} failed in the scratch dir");
        let after = snapshot(root);
        let writes: Vec<PathBuf> = script
            .file_access()
            .writes
            .iter()
            .map(PathBuf::from)
            .collect();
        let touched = before
            .keys()
            .chain(after.keys())
            .filter(|p| before.get(*p) != after.get(*p));
        for path in touched {
            assert!(
                // Below a reported path, or a parent `mkdir -p` made for it.
                writes
                    .iter()
                    .any(|w| path.starts_with(w) || w.starts_with(path)),
                "{command:?} touched {} but reported only {writes:?}",
                path.display()
            );
        }
    }
}
