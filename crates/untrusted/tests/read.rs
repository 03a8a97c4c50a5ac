//! `read_untrusted` on real files: FIFOs, devices, links in and out of a
//! project, deny predicates, the cap.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use orbit_untrusted::{ReadOpts, UntrustedError, read_untrusted};

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn a_fifo_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("CLAUDE.md");
    mkfifo(&fifo);
    let started = Instant::now();
    let err = read_untrusted(&fifo, &ReadOpts::in_project(dir.path(), 1024)).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(1));
    assert!(
        matches!(err, UntrustedError::NotRegular { kind: "a FIFO" }),
        "{err}"
    );
    assert_eq!(err.to_string(), "a FIFO, not a regular file");
}

#[test]
fn devices_and_directories_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero")).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    // A device reached by a link out: with links out followed, the type
    // check still refuses it.
    let opts = ReadOpts::in_project(dir.path(), 1024).follow_links_out(true);
    let err = read_untrusted(&dir.path().join("zero"), &opts).unwrap_err();
    assert_eq!(err.to_string(), "a character device, not a regular file");
    let err = read_untrusted(&dir.path().join("sub"), &opts).unwrap_err();
    assert!(matches!(err, UntrustedError::Directory), "{err}");
    let err = read_untrusted(Path::new("/dev/zero"), &ReadOpts::user_file(1024)).unwrap_err();
    assert!(matches!(err, UntrustedError::NotRegular { .. }));
}

#[test]
fn links_stay_inside_the_project_unless_trusted() {
    let outside = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "KEY").unwrap();
    std::fs::write(project.path().join("AGENTS.md"), "rules").unwrap();
    std::os::unix::fs::symlink("AGENTS.md", project.path().join("CLAUDE.md")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret"), project.path().join("out.md"))
        .unwrap();
    // A directory link out counts too.
    std::os::unix::fs::symlink(outside.path(), project.path().join(".claude")).unwrap();

    let opts = ReadOpts::in_project(project.path(), 1024);
    let inside = read_untrusted(&project.path().join("CLAUDE.md"), &opts).unwrap();
    assert_eq!(inside.bytes, b"rules");
    for name in ["out.md", ".claude/secret"] {
        let err = read_untrusted(&project.path().join(name), &opts).unwrap_err();
        assert!(
            matches!(err, UntrustedError::LinkOut { .. }),
            "{name}: {err}"
        );
        assert!(err.to_string().contains("outside the project"), "{err}");
    }
    let trusted = opts.follow_links_out(true);
    let out = read_untrusted(&project.path().join("out.md"), &trusted).unwrap();
    assert_eq!(out.bytes, b"KEY");
}

#[test]
fn the_deny_predicate_sees_the_final_target() {
    let outside = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir(outside.path().join(".ssh")).unwrap();
    std::fs::write(outside.path().join(".ssh/id_rsa"), "KEY").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join(".ssh/id_rsa"),
        project.path().join("CLAUDE.md"),
    )
    .unwrap();
    let ssh = outside.path().canonicalize().unwrap().join(".ssh");
    let deny = |p: &Path| p.starts_with(&ssh);
    let opts = ReadOpts::in_project(project.path(), 1024)
        .follow_links_out(true)
        .deny(&deny);
    let err = read_untrusted(&project.path().join("CLAUDE.md"), &opts).unwrap_err();
    assert!(matches!(err, UntrustedError::Denied { .. }), "{err}");
}

#[test]
fn reads_stop_at_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len(100 * 1024 * 1024).unwrap();
    let read = read_untrusted(&big, &ReadOpts::in_project(dir.path(), 10)).unwrap();
    assert_eq!((read.bytes.len(), read.truncated), (10, true));
    assert_eq!(read.size, 100 * 1024 * 1024);
    let err = read_untrusted(
        &big,
        &ReadOpts::in_project(dir.path(), 1024 * 1024).refuse_over_cap(),
    )
    .unwrap_err();
    assert_eq!(err.to_string(), "104857600 bytes, over the 1 MiB cap");

    std::fs::write(&big, "héllo").unwrap();
    let cut = read_untrusted(&big, &ReadOpts::in_project(dir.path(), 2)).unwrap();
    assert_eq!(cut.text(), "h");
    let whole = read_untrusted(&big, &ReadOpts::in_project(dir.path(), 6)).unwrap();
    assert_eq!((whole.text().as_str(), whole.truncated), ("héllo", false));
}

#[test]
fn missing_files_are_not_found() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("nowhere", dir.path().join("dangling")).unwrap();
    std::fs::write(dir.path().join("file"), "x").unwrap();
    let opts = ReadOpts::in_project(dir.path(), 10);
    for name in ["absent", "dangling", "file/below"] {
        let err = read_untrusted(&dir.path().join(name), &opts).unwrap_err();
        assert!(err.is_not_found(), "{name}: {err}");
    }
}

#[test]
fn a_user_named_pipe_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, "{\"a\": 1}").unwrap())
    };
    let read = read_untrusted(&fifo, &ReadOpts::user_named(1024)).unwrap();
    writer.join().unwrap();
    assert_eq!(read.bytes, b"{\"a\": 1}");
}
