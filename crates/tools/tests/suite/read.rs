//! Read through the erased contract (parse → validate → call) on real
//! temp files.

use std::fs;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use orbit_protocol::{ImageSource, ToolResultContent, ToolResultContentBlock};
use orbit_tool::CallFacts;
use orbit_tools::builtin::read::{
    EMPTY_FILE_REMINDER, LINE_TRUNCATION_MARKER, MAX_IMAGE_BYTES, format_size,
};
use orbit_tools::file_state::{sha256_hex, state_key};
use orbit_tools::{ToolOutput, ToolUseContext};
use serde_json::{Value, json};
use tempfile::TempDir;

use super::harness::{builtin, facts, output, run, text};

fn session() -> (TempDir, ToolUseContext) {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    let ctx = ToolUseContext::new("s", root.clone(), root.join(".orbit"));
    (dir, ctx)
}

/// A session whose cwd holds the file `name` with `content`; its path.
fn session_with_file(name: &str, content: impl AsRef<[u8]>) -> (TempDir, ToolUseContext, PathBuf) {
    let (dir, ctx) = session();
    let path = ctx.cwd().join(name);
    fs::write(&path, content).unwrap();
    (dir, ctx, path)
}

/// Every Read outcome is an output (a missing file too), never a refusal.
async fn read(ctx: &ToolUseContext, input: Value) -> ToolOutput {
    output(run(&builtin("Read"), ctx, input).await)
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Reads of a text file: its bytes, the input beside `file_path`, and
/// what the model gets (`is_error`, text): numbered lines, long lines cut,
/// the empty-file and past-the-end reminders, binary files refused, bytes
/// that are not UTF-8 replaced and a CR before LF dropped.
#[tokio::test]
async fn text_reads() {
    let (_d, ctx) = session();
    let binary = |kind: &str| {
        format!(
            "This tool cannot read binary files. The file appears to be a binary {kind}. \
Please use appropriate tools for binary file analysis."
        )
    };
    let table: Vec<(&str, Vec<u8>, Value, bool, String)> = vec![
        (
            "a.txt",
            b"alpha\n  beta\n\ngamma\n".to_vec(),
            json!({}),
            false,
            "1\talpha\n2\t  beta\n3\t\n4\tgamma\n5\t".into(),
        ),
        (
            "wide.txt",
            format!("{}\nok\n", "y".repeat(5000)).into_bytes(),
            json!({}),
            false,
            format!("1\t{}… [truncated]\n2\tok\n3\t", "y".repeat(2000)),
        ),
        (
            "empty.txt",
            b"".to_vec(),
            json!({}),
            false,
            "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
                .into(),
        ),
        (
            "short.txt",
            b"a\nb\nc".to_vec(),
            json!({"offset": 10}),
            false,
            "<system-reminder>Warning: the file exists but is shorter than the provided offset (10). \
The file has 3 lines.</system-reminder>"
                .into(),
        ),
        ("blob.dat", b"abc\0def".to_vec(), json!({}), true, binary(".dat file")),
        ("archive.zip", b"PK\x03\x04 no nul here".to_vec(), json!({}), true, binary(".zip file")),
        ("noext", b"\0\0".to_vec(), json!({}), true, binary("file")),
        (
            "mixed.txt",
            b"caf\xe9\r\nok\r\n".to_vec(),
            json!({}),
            false,
            "1\tcaf\u{fffd}\n2\tok\n3\t".into(),
        ),
    ];
    for (name, bytes, mut input, is_error, expected) in table {
        let p = ctx.cwd().join(name);
        fs::write(&p, &bytes).unwrap();
        input["file_path"] = json!(path_str(&p));
        let out = read(&ctx, input).await;
        assert_eq!(out.is_error, is_error, "{name}");
        assert_eq!(text(&out), expected, "{name}");
    }
    assert_eq!(LINE_TRUNCATION_MARKER, "… [truncated]");
}

/// What is not a readable file is answered (is_error) with Claude Code's
/// texts; a device or FIFO is refused instead of blocking.
#[tokio::test]
async fn what_is_not_a_file() {
    let (_d, ctx) = session();
    let cwd = ctx.cwd();
    fs::create_dir(cwd.join("adir")).unwrap();
    orbit_test_support::files::mkfifo(&cwd.join("pipe"));
    let table = [
        (
            "nope.txt",
            format!(
                "File does not exist. Note: your current working directory is {}.",
                cwd.display()
            ),
        ),
        (
            "adir",
            format!(
                "EISDIR: illegal operation on a directory, read '{}'\nIt is an empty directory.",
                cwd.join("adir").display()
            ),
        ),
        (
            "/dev/zero",
            "Cannot read /dev/zero: it is a character device, not a regular file".into(),
        ),
        (
            "pipe",
            format!(
                "Cannot read {}: it is a FIFO, not a regular file",
                cwd.join("pipe").display()
            ),
        ),
    ];
    for (file_path, expected) in table {
        let out = read(&ctx, json!({ "file_path": file_path })).await;
        assert!(out.is_error, "{file_path}");
        assert_eq!(text(&out), expected, "{file_path}");
    }
}

/// A file's final newline shows as a numbered empty last line, in whole
/// reads and in windows that reach the end; the line count agrees.
#[tokio::test]
async fn final_newline_is_an_empty_numbered_line() {
    let (_d, ctx) = session();
    let with_nl = ctx.cwd().join("nl.txt");
    fs::write(&with_nl, "alpha\nbeta\ngamma\n").unwrap();
    let without_nl = ctx.cwd().join("no-nl.txt");
    fs::write(&without_nl, "alpha\nbeta\ngamma").unwrap();
    let past_end = |offset: u64, total: u64| {
        format!(
            "<system-reminder>Warning: the file exists but is shorter than the provided offset \
({offset}). The file has {total} lines.</system-reminder>"
        )
    };
    let table: Vec<(&Path, Value, String)> = vec![
        (
            &with_nl,
            json!({}),
            "1\talpha\n2\tbeta\n3\tgamma\n4\t".into(),
        ),
        (
            &with_nl,
            json!({"offset": 3, "limit": 5}),
            "3\tgamma\n4\t".into(),
        ),
        (&with_nl, json!({"offset": 4}), "4\t".into()),
        (
            &with_nl,
            json!({"offset": 2, "limit": 2}),
            "2\tbeta\n3\tgamma".into(),
        ),
        (&with_nl, json!({"offset": 5}), past_end(5, 4)),
        (&without_nl, json!({}), "1\talpha\n2\tbeta\n3\tgamma".into()),
        (
            &without_nl,
            json!({"offset": 3, "limit": 5}),
            "3\tgamma".into(),
        ),
        (&without_nl, json!({"offset": 4}), past_end(4, 3)),
    ];
    for (path, mut input, expected) in table {
        input["file_path"] = json!(path_str(path));
        let out = read(&ctx, input.clone()).await;
        assert!(!out.is_error, "{input}");
        assert_eq!(text(&out), expected, "{input}");
    }
}

#[tokio::test]
async fn relative_paths_resolve_against_the_cwd() {
    let (_d, ctx) = session();
    fs::create_dir(ctx.cwd().join("sub")).unwrap();
    fs::write(ctx.cwd().join("sub/b.txt"), "x").unwrap();
    let out = read(&ctx, json!({"file_path": "sub/b.txt"})).await;
    assert_eq!(text(&out), "1\tx");
    ctx.set_cwd(ctx.cwd().join("sub"));
    let out = read(&ctx, json!({"file_path": "b.txt"})).await;
    assert_eq!(text(&out), "1\tx");
}

/// `offset` and `limit` select a window of a 2,500-line file; without
/// `limit` a window is 2,000 lines; Claude Code reads offset 0 as the
/// first line.
#[tokio::test]
async fn offset_and_limit_select_a_window() {
    let body: String = (1..=2500).map(|i| format!("line {i}\n")).collect();
    let (_d, ctx, p) = session_with_file("n.txt", body);
    let numbered = |lines: std::ops::RangeInclusive<usize>| {
        lines
            .map(|i| format!("{i}\tline {i}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let table = [
        (json!({"offset": 4, "limit": 3}), numbered(4..=6)),
        (
            json!({"offset": 2499}),
            format!("{}\n2501\t", numbered(2499..=2500)),
        ),
        (json!({"limit": 1}), numbered(1..=1)),
        (json!({"offset": 0, "limit": 1}), numbered(1..=1)),
        (json!({}), numbered(1..=2000)),
        (json!({"offset": 300}), numbered(300..=2299)),
    ];
    for (mut input, expected) in table {
        input["file_path"] = json!(path_str(&p));
        let out = read(&ctx, input.clone()).await;
        assert!(!out.is_error, "{input}");
        assert!(text(&out) == expected, "{input}");
    }
}

#[tokio::test]
async fn too_large_for_one_read_points_to_offset_limit_and_grep() {
    let body: String = (0..30_000)
        .map(|i| format!("entry number {i:08}\n"))
        .collect();
    let (_d, ctx, p) = session_with_file("big.log", &body);
    let out = read(&ctx, json!({"file_path": path_str(&p)})).await;
    assert!(out.is_error);
    assert_eq!(
        text(&out),
        "File content (644.5KB) exceeds maximum allowed size (256KB). Please use offset and limit \
parameters to read specific portions of the file, or use the Grep tool to search for specific content."
    );
    // A window of the same file reads fine.
    let out = read(
        &ctx,
        json!({"file_path": path_str(&p), "offset": 20001, "limit": 2}),
    )
    .await;
    assert_eq!(
        text(&out),
        "20001\tentry number 00020000\n20002\tentry number 00020001"
    );
}

#[tokio::test]
async fn too_many_tokens_for_one_read_is_an_error() {
    // ~200 KB: under the byte limit, over 25,000 estimated tokens.
    let body: String = (0..1000)
        .map(|_| format!("{}\n", "z".repeat(199)))
        .collect();
    let (_d, ctx, p) = session_with_file("dense.txt", &body);
    let out = read(&ctx, json!({"file_path": path_str(&p)})).await;
    assert!(out.is_error);
    // 1000 numbered lines, then the empty line 1001 after the final newline.
    let tokens = ((0..1000)
        .map(|i: usize| format!("{}\t{}\n", i + 1, "z".repeat(199)).len())
        .sum::<usize>()
        + "1001\t".len())
        / 4;
    assert_eq!(
        text(&out),
        format!(
            "File content ({tokens} tokens) exceeds maximum allowed tokens (25000). Please use offset \
and limit parameters to read specific portions of the file, or use the Grep tool to search for specific content."
        )
    );
    // A refused read is not a read: Write/Edit still need one.
    assert!(ctx.file_state.get(&state_key(&p)).is_none());
}

#[tokio::test]
async fn a_window_of_a_10mb_file_is_read_without_loading_it() {
    let line = format!("{}\n", "q".repeat(99));
    let (_d, ctx, p) = session_with_file("huge.txt", line.repeat(100_000));
    let start = std::time::Instant::now();
    let out = read(
        &ctx,
        json!({"file_path": path_str(&p), "offset": 5, "limit": 2}),
    )
    .await;
    let elapsed = start.elapsed();
    assert_eq!(text(&out), format!("5\t{0}\n6\t{0}", "q".repeat(99)));
    // Stopping after the window keeps this far below a full 10 MB read+hash.
    assert!(
        elapsed < std::time::Duration::from_millis(200),
        "{elapsed:?}"
    );
    // Without the whole content seen, the state is recorded without a hash.
    let state = ctx.file_state.get(&state_key(&p)).unwrap();
    assert_eq!(state.size, 10_000_000);
    assert_eq!(state.hash, "");
}

/// A minimal valid 1x1 PNG.
const PNG_1X1: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

#[tokio::test]
async fn images_come_back_as_image_blocks() {
    // The extension does not matter: magic bytes decide.
    let (_d, ctx, p) = session_with_file("pixel.bin", PNG_1X1);
    let out = read(&ctx, json!({"file_path": path_str(&p)})).await;
    assert!(!out.is_error);
    assert_eq!(
        out.content,
        ToolResultContent::Blocks(vec![ToolResultContentBlock::Image {
            source: ImageSource::Base64 {
                media_type: "image/png".into(),
                data: base64::engine::general_purpose::STANDARD.encode(PNG_1X1),
            },
        }])
    );
    // An image read records the file's state too (whole bytes hashed).
    let state = ctx.file_state.get(&state_key(&p)).unwrap();
    assert_eq!(state.size, PNG_1X1.len() as u64);
    assert_eq!(state.hash, sha256_hex(PNG_1X1));
    assert_eq!(state.mtime, fs::metadata(&p).unwrap().modified().ok());
    let cases: [(&str, Vec<u8>, &str); 3] = [
        ("a.jpg", vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10], "image/jpeg"),
        ("a.gif", b"GIF89a\x01\x00\x01\x00".to_vec(), "image/gif"),
        ("a.webp", b"RIFF\x04\0\0\0WEBPVP8 ".to_vec(), "image/webp"),
    ];
    for (name, bytes, media) in cases {
        let p = ctx.cwd().join(name);
        fs::write(&p, &bytes).unwrap();
        let out = read(&ctx, json!({"file_path": path_str(&p)})).await;
        match &out.content {
            ToolResultContent::Blocks(b) => match &b[0] {
                ToolResultContentBlock::Image {
                    source: ImageSource::Base64 { media_type, .. },
                } => assert_eq!(media_type, media),
                other => panic!("{other:?}"),
            },
            other => panic!("{name}: {other:?}"),
        }
    }
}

/// An image over the API's byte limit is re-encoded within it (issue 35);
/// one over the 20 MB decode cap is refused unread.
#[tokio::test]
async fn oversized_images_are_scaled_down_or_refused() {
    let mut bytes = PNG_1X1.to_vec();
    bytes.resize(5 * 1024 * 1024, 0);
    let (_d, ctx, p) = session_with_file("big.png", &bytes);
    let out = read(&ctx, json!({"file_path": path_str(&p)})).await;
    assert!(!out.is_error, "{:?}", out.content);
    assert_eq!(format_size(MAX_IMAGE_BYTES), "3.8MB");
    match &out.content {
        ToolResultContent::Blocks(b) => match &b[0] {
            ToolResultContentBlock::Image {
                source: ImageSource::Base64 { media_type, data },
            } => {
                assert_eq!(media_type, "image/png");
                assert!(data.len() < 1024, "{}", data.len());
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    bytes.resize(21 * 1024 * 1024, 0);
    fs::write(&p, &bytes).unwrap();
    let out = read(&ctx, json!({"file_path": path_str(&p)})).await;
    assert!(out.is_error);
    assert_eq!(
        text(&out),
        "Image is too large (21MB); the maximum is 20MB. Resize or compress it before reading."
    );
}

#[tokio::test]
async fn every_read_records_the_file_state() {
    let (_d, ctx, p) = session_with_file("s.txt", "hello\n");
    read(&ctx, json!({"file_path": "./s.txt"})).await;
    let state = ctx.file_state.get(&state_key(&p)).unwrap();
    assert_eq!(state.size, 6);
    assert_eq!(state.hash, sha256_hex(b"hello\n"));
    assert_eq!(state.mtime, fs::metadata(&p).unwrap().modified().ok());
    // An empty file, answered with a reminder, counts as read too.
    let empty = ctx.cwd().join("empty.txt");
    fs::write(&empty, "").unwrap();
    let out = read(&ctx, json!({"file_path": "empty.txt"})).await;
    assert_eq!(text(&out), EMPTY_FILE_REMINDER);
    assert!(ctx.file_state.get(&state_key(&empty)).is_some());
    // Any spelling of the path, and a symlink to it, name the same entry.
    fs::create_dir(ctx.cwd().join("x")).unwrap();
    std::os::unix::fs::symlink(&p, ctx.cwd().join("link")).unwrap();
    let key: PathBuf = state_key(&ctx.cwd().join("x/../s.txt"));
    assert_eq!(key, state_key(&p));
    assert_eq!(state_key(&ctx.cwd().join("link")), state_key(&p));
}

/// T1: what Read declares about itself and about a call is true.
#[test]
fn read_declares_itself_honestly() {
    let (_d, ctx) = session();
    let tool = builtin("Read");
    assert_eq!(
        facts(&tool, &ctx, &json!({"file_path": "src/a.rs"})),
        CallFacts {
            read_only: true,
            concurrency_safe: true,
            reads: vec![ctx.cwd().join("src/a.rs")],
            subject: "src/a.rs".into(),
            ..CallFacts::default()
        }
    );
}
