//! The probe on real files: what it keeps, what it refuses to read, and
//! that a FIFO never blocks it.

use std::os::unix::fs::symlink;

use super::*;

/// A rewrite with the same bytes (sed -i renames a new file over the old
/// one) is no change; a real edit is one, with both contents kept.
#[test]
fn same_bytes_are_no_change_and_an_edit_keeps_both_sides() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let same = root.join("same.cfg");
    let edited = root.join("edited.cfg");
    let created = root.join("new.cfg");
    std::fs::write(&same, "level=info\n").unwrap();
    std::fs::write(&edited, "a\n").unwrap();
    let probe = Probe::keeping(&[same.clone(), edited.clone(), created.clone()], root);
    std::fs::remove_file(&same).unwrap();
    std::fs::write(&same, "level=info\n").unwrap();
    std::fs::write(&edited, "b\n").unwrap();
    std::fs::write(&created, "c\n").unwrap();
    let changes = probe.changes();
    assert_eq!(
        changes,
        [
            Change {
                path: edited.clone(),
                before: Content::Bytes(b"a\n".to_vec()),
                after: Content::Bytes(b"b\n".to_vec()),
            },
            Change {
                path: created.clone(),
                before: Content::Absent,
                after: Content::Bytes(b"c\n".to_vec()),
            },
        ]
    );
    assert_eq!(probe.changed(), [edited, created]);
}

/// A FIFO is stamped, never opened (the call returns at once); a link is
/// a link; a path whose directory links out of the project is not read,
/// one inside through an inner link is.
#[test]
fn hostile_paths_are_stamped_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    std::fs::create_dir(&root).unwrap();
    let fifo = root.join("pipe");
    orbit_test_support::files::mkfifo(&fifo);
    std::fs::write(outside.path().join("secret"), "key\n").unwrap();
    symlink(outside.path(), root.join("out")).unwrap();
    symlink(outside.path().join("secret"), root.join("link")).unwrap();
    std::fs::create_dir(root.join("real")).unwrap();
    std::fs::write(root.join("real/x"), "x\n").unwrap();
    symlink(root.join("real"), root.join("inner")).unwrap();
    let paths = [
        fifo.clone(),
        root.join("out/secret"),
        root.join("link"),
        root.join("inner/x"),
    ];
    let started = std::time::Instant::now();
    let probe = Probe::keeping(&paths, &root);
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    let kept: Vec<&Content> = probe.entries.iter().map(|e| &e.kept).collect();
    assert_eq!(
        kept,
        [
            &Content::NotKept(NotKept::NotRegular(StampKind::Special)),
            &Content::NotKept(NotKept::LinkOut),
            &Content::NotKept(NotKept::NotRegular(StampKind::Link)),
            &Content::Bytes(b"x\n".to_vec()),
        ]
    );
    assert!(probe.changes().is_empty());
}

/// A file over the keep cap is hashed but not kept; over the hash cap it
/// is compared by size and mtime only.
#[test]
fn large_files_are_not_kept() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.log");
    std::fs::write(&big, vec![b'a'; PROBE_KEEP_FILE_MAX_BYTES + 1]).unwrap();
    let probe = Probe::keeping(std::slice::from_ref(&big), dir.path());
    assert!(probe.entries[0].stamp.hash.is_some());
    assert_eq!(
        probe.entries[0].kept,
        Content::NotKept(NotKept::TooLarge(PROBE_KEEP_FILE_MAX_BYTES as u64 + 1))
    );
    let file = std::fs::OpenOptions::new().write(true).open(&big).unwrap();
    file.set_len(PROBE_HASH_MAX_BYTES + 1).unwrap();
    let huge = Probe::keeping(std::slice::from_ref(&big), dir.path());
    assert_eq!(huge.entries[0].stamp.hash, None);
    assert_eq!(
        huge.entries[0].kept,
        Content::NotKept(NotKept::TooLarge(PROBE_HASH_MAX_BYTES + 1))
    );
    assert!(huge.changed().is_empty());
}

/// A path outside the project is read when no link leads there, and not
/// when its directory is reached through one.
#[test]
fn outside_paths_are_read_only_without_links() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let plain = elsewhere.path().canonicalize().unwrap().join("app.cfg");
    std::fs::write(&plain, "v=1\n").unwrap();
    let via = dir.path().join("via");
    symlink(elsewhere.path(), &via).unwrap();
    let root = dir.path().join("proj");
    std::fs::create_dir(&root).unwrap();
    let probe = Probe::keeping(&[plain.clone(), via.join("app.cfg")], &root);
    assert_eq!(probe.entries[0].kept, Content::Bytes(b"v=1\n".to_vec()));
    assert_eq!(probe.entries[1].kept, Content::NotKept(NotKept::LinkOut));
}
