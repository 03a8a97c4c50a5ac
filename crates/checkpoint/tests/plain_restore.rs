//! The plain-folder backend through the public API: a checkpoint, changes
//! of every kind (content, exec bit, a link, a new file in a new
//! directory), then `rewind_code` brings the folder back; `undo` returns.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;

use orbit_checkpoint::{Kind, Store, rewind_code, undo};

#[test]
fn a_plain_folder_comes_back_with_modes_and_links() {
    let project = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let root = project.path().canonicalize().unwrap();
    std::fs::write(root.join("plain.txt"), "one\n").unwrap();
    std::fs::write(root.join("run.sh"), "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(root.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("plain.txt", root.join("link")).unwrap();

    let mut store = Store::open(data.path(), &root, "s");
    assert!(!store.is_git());
    let snap = store.snapshot().unwrap();
    store.record(1, Kind::Before, &snap).unwrap();

    std::fs::write(root.join("plain.txt"), "two\n").unwrap();
    std::fs::set_permissions(root.join("run.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::remove_file(root.join("link")).unwrap();
    std::fs::create_dir(root.join("new")).unwrap();
    std::fs::write(root.join("new/file.txt"), "x\n").unwrap();
    // What orbit left when the prompt ended: none of it was someone else's.
    let snap = store.snapshot().unwrap();
    store.record(1, Kind::After, &snap).unwrap();

    let report = rewind_code(&mut store, 1, false).unwrap();
    assert!(report.undo_checkpoint.is_some());
    assert_eq!(
        std::fs::read_to_string(root.join("plain.txt")).unwrap(),
        "one\n"
    );
    let mode = std::fs::metadata(root.join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111);
    assert_eq!(
        std::fs::read_link(root.join("link")).unwrap().to_str(),
        Some("plain.txt")
    );
    assert!(
        !root.join("new").exists(),
        "an emptied new directory goes too"
    );

    undo(&mut store, false).unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("plain.txt")).unwrap(),
        "two\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("new/file.txt")).unwrap(),
        "x\n"
    );
    assert!(!root.join("link").exists());
}
