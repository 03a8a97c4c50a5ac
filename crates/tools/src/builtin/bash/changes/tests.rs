//! Watches around real commands run by `bash -c` in a scratch directory.

use super::*;

/// Runs `command` in `dir` between [`watch`] and [`Watch::finish`].
fn around(dir: &Path, command: &str) -> Option<Outcome> {
    let watch = watch(command, dir, dir);
    let status = std::process::Command::new("bash")
        .args(["-c", command])
        .current_dir(dir)
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    let _ = status;
    watch.map(Watch::finish)
}

/// The change of the file named `name`.
fn of<'a>(outcome: &'a Outcome, name: &str) -> &'a FileChange {
    let found = outcome.changes.iter().find(|c| c.file.ends_with(name));
    found.unwrap_or_else(|| panic!("{name} not in {outcome:?}"))
}

fn scratch(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// `sed -i` whose pattern matches nothing: the note; a program that may
/// write elsewhere: the weaker note; `cd` first: nothing claimed.
#[test]
fn unchanged_files_get_one_note() {
    let dir = scratch(&[("app.cfg", "level=info\n"), ("b.cfg", "x\n")]);
    let note = |command: &str| around(dir.path(), command).unwrap().note;
    assert_eq!(
        note("sed -i 's/debug/trace/' app.cfg").as_deref(),
        Some("Note: this command changed no file (app.cfg unchanged).")
    );
    assert_eq!(
        note("sed -i 's/q/r/' app.cfg b.cfg missing.cfg && echo done").as_deref(),
        Some("Note: this command changed no file (app.cfg, b.cfg unchanged).")
    );
    assert_eq!(
        note("sed -i 's/q/r/' app.cfg && true > /dev/null; bash -c true").as_deref(),
        Some("Note: this command left app.cfg unchanged.")
    );
    assert_eq!(note("cd . && sed -i 's/q/r/' app.cfg"), None);
    // Only the whole-command note tells the engine that nothing changed.
    let nothing = |command: &str| around(dir.path(), command).unwrap().changed_no_file;
    assert!(nothing("sed -i 's/debug/trace/' app.cfg"));
    assert!(!nothing(
        "sed -i 's/q/r/' app.cfg && true > /dev/null; bash -c true"
    ));
    assert!(!nothing("cd . && sed -i 's/q/r/' app.cfg"));
    assert!(!nothing("sed -i 's/level/lvl/' b.cfg app.cfg"));
    assert_eq!(note("touch app.cfg"), None);
    assert_eq!(note("chmod 644 app.cfg"), None);
    // Only missing paths: nothing to say.
    assert_eq!(note("sed -i 's/q/r/' missing.cfg"), None);
    std::fs::create_dir(dir.path().join("d")).unwrap();
    assert_eq!(note("cp app.cfg d"), None);
}

/// A command that only prints names no written path: no watch at all.
#[test]
fn printing_commands_are_not_watched() {
    let dir = scratch(&[("app.cfg", "level=info\n")]);
    for command in ["sed 's/info/debug/' app.cfg", "sort app.cfg", "echo hi"] {
        assert!(
            watch(command, dir.path(), dir.path()).is_none(),
            "{command}"
        );
    }
}

/// Changed, created and removed files: hunks in Edit's shape, a create
/// all added, a removal unshown.
#[test]
fn changes_carry_hunks() {
    let dir = scratch(&[
        ("app.py", "def old():\n    pass\n\nold()\n"),
        ("gone", "x\n"),
    ]);
    let outcome = around(
        dir.path(),
        "sed -i 's/old/new/g' app.py && echo hi > made.txt && rm gone",
    )
    .unwrap();
    assert_eq!(outcome.note, None, "{outcome:?}");
    assert_eq!(outcome.changes.len(), 2, "{outcome:?}");
    let app = of(&outcome, "app.py");
    assert_eq!(app.kind, ChangeKind::Update);
    assert_eq!(app.file, dir.path().join("app.py"));
    assert_eq!(
        app.structured_patch[0].lines,
        [
            "-def old():",
            "+def new():",
            "     pass",
            " ",
            "-old()",
            "+new()"
        ]
    );
    let made = of(&outcome, "made.txt");
    assert_eq!(made.kind, ChangeKind::Create);
    assert_eq!(made.structured_patch[0].lines, ["+hi"]);
    assert_eq!(
        outcome.unshown,
        [UnshownChange {
            file: dir.path().join("gone"),
            reason: "removed".into()
        }]
    );
}

/// Hunks are cut to the line cap, lines to the char cap; a binary file
/// is unshown as not text.
#[test]
fn details_are_bounded() {
    let long: String = (0..1000).map(|n| format!("line {n}\n")).collect();
    let dir = scratch(&[("long.txt", &long), ("one.txt", "a\n")]);
    std::fs::write(dir.path().join("bin"), b"\xff\xfe\n").unwrap();
    let outcome = around(
        dir.path(),
        &format!(
            "sed -i 's/line/LINE/' long.txt && printf '%0{}d\\n' 0 > one.txt && printf '\\xff\\n' > bin",
            PATCH_LINE_MAX_CHARS * 2
        ),
    )
    .unwrap();
    let lines: usize = of(&outcome, "long.txt")
        .structured_patch
        .iter()
        .map(|h| h.lines.len())
        .sum();
    assert_eq!(lines, CHANGE_MAX_PATCH_LINES);
    let one = &of(&outcome, "one.txt").structured_patch[0].lines[1];
    assert_eq!(one.chars().count(), PATCH_LINE_MAX_CHARS + 1, "{one}");
    assert!(one.ends_with('…'));
    assert_eq!(outcome.unshown[0].reason, "not text");
}

/// A glob's files are probed themselves: the note names them, a rename
/// across them shows each file's hunks.
#[test]
fn globbed_files_are_watched() {
    let dir = scratch(&[
        ("a.py", "old()\n"),
        ("b.py", "x = old\n"),
        ("c.txt", "old\n"),
    ]);
    let outcome = around(dir.path(), "sed -i 's/zzz/y/' *.py").unwrap();
    assert_eq!(
        outcome.note.as_deref(),
        Some("Note: this command changed no file (a.py, b.py unchanged).")
    );
    let outcome = around(dir.path(), "sed -i 's/old/new/' *.py").unwrap();
    assert_eq!(outcome.note, None);
    assert_eq!(
        of(&outcome, "a.py").structured_patch[0].lines,
        ["-old()", "+new()"]
    );
    assert_eq!(
        of(&outcome, "b.py").structured_patch[0].lines,
        ["-x = old", "+x = new"]
    );
    assert_eq!(outcome.changes.len(), 2);
}
