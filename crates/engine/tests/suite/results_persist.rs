//! R1: large results persisted to disk and replaced by `<persisted-output>`;
//! the storage layout, the size and preview formats, and write failures.

use std::path::{Path, PathBuf};

use super::store::{as_bash, store, unwritable_store};
use orbit_engine::{
    ToolResultStorage, format_file_size, generate_preview, process_tool_result, project_slug,
};
use orbit_protocol::{ImageSource, ToolResultBlock, ToolResultContent, ToolResultContentBlock};
use orbit_tools::ToolOutput;

/// Exactly what `seq 1 N` prints.
pub fn seq_output(n: u32) -> String {
    (1..=n).map(|i| format!("{i}\n")).collect()
}

/// The exact `<persisted-output>` text for `seq 1 40000` saved at `path`.
pub fn seq_40000_message(path: &Path) -> String {
    let preview = (1..=527)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "<persisted-output>\nOutput too large (223.5KB). Full output saved to: {}\n\nPreview (first 2KB):\n{preview}\n...\n</persisted-output>",
        path.display()
    )
}

fn text_of(block: &ToolResultBlock) -> &str {
    match &block.content {
        ToolResultContent::Text(t) => t,
        other => panic!("expected text content, got {other:?}"),
    }
}

#[tokio::test]
async fn seq_1_40000_is_persisted_with_the_exact_message() {
    let storage = store();
    let output = seq_output(40_000);
    assert_eq!(output.len(), 228_894);

    let block = as_bash(&storage, "toolu_seq", ToolOutput::text(output.clone())).await;

    let path = storage.dir().join("toolu_seq.txt");
    assert_eq!(text_of(&block), seq_40000_message(&path));
    assert!(text_of(&block).ends_with("526\n527\n...\n</persisted-output>"));
    assert_eq!(block.is_error, None);
    assert_eq!(block.tool_use_id, "toolu_seq");
    let saved = std::fs::read(&path).unwrap();
    assert_eq!(saved.len(), 228_894);
    assert_eq!(saved, output.as_bytes());
}

#[tokio::test]
async fn storage_layout_follows_data_dir_slug_and_session() {
    let storage = ToolResultStorage::new(
        Path::new("/data/orbit"),
        Path::new("/home/me/my.proj_x"),
        "0b6f-session",
    );
    assert_eq!(
        storage.dir(),
        Path::new("/data/orbit/projects/-home-me-my-proj-x/0b6f-session/tool-results")
    );
    assert_eq!(
        storage.path_for("toolu_01AB"),
        PathBuf::from(
            "/data/orbit/projects/-home-me-my-proj-x/0b6f-session/tool-results/toolu_01AB.txt"
        )
    );
    // An id can never leave the directory.
    assert_eq!(
        storage.path_for("../../etc/passwd").parent(),
        Some(storage.dir())
    );
    assert_eq!(project_slug(Path::new("/tmp/ä b")), "-tmp---b");
}

#[test]
fn long_cwd_slugs_are_cut_and_hashed_distinctly() {
    let base = "/x".repeat(150);
    let a = project_slug(Path::new(&format!("{base}/alpha")));
    let b = project_slug(Path::new(&format!("{base}/beta")));
    assert_ne!(a, b);
    assert!(a.starts_with(&"-x".repeat(100)));
    assert!(a.len() < 255, "{}", a.len());
    assert!(a.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
}

#[tokio::test]
async fn threshold_boundary_29_999_and_30_000_inline_30_001_persisted() {
    let storage = store();
    for n in [29_999usize, 30_000] {
        let text = "x".repeat(n);
        let block = as_bash(&storage, "toolu_in", ToolOutput::text(text.clone())).await;
        assert_eq!(block, ToolResultBlock::text("toolu_in", text, false));
    }
    assert!(
        !storage.dir().exists(),
        "nothing may be written for inline results"
    );

    let text = "x".repeat(30_001);
    let block = as_bash(&storage, "toolu_big", ToolOutput::text(text.clone())).await;
    let path = storage.path_for("toolu_big");
    // A single long line: the preview is cut at exactly 2,000 chars.
    let expected = format!(
        "<persisted-output>\nOutput too large (29.3KB). Full output saved to: {}\n\nPreview (first 2KB):\n{}\n...\n</persisted-output>",
        path.display(),
        "x".repeat(2_000)
    );
    assert_eq!(text_of(&block), expected);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    // The atomic write leaves no temp file behind.
    let entries: Vec<_> = std::fs::read_dir(storage.dir()).unwrap().collect();
    assert_eq!(entries.len(), 1);
}

#[test]
fn file_sizes_format_like_claude_code() {
    let cases = [
        (0, "0 bytes"),
        (1_023, "1023 bytes"),
        (1_024, "1KB"),
        (1_280, "1.3KB"), // 1.25 rounds half up, as toFixed does
        (2_000, "2KB"),
        (30_001, "29.3KB"),
        (228_894, "223.5KB"),
        (1_048_575, "1024KB"),
        (1_048_576, "1MB"),
        (5_347_738, "5.1MB"),
        (1_073_741_824, "1GB"),
    ];
    for (bytes, want) in cases {
        assert_eq!(format_file_size(bytes), want, "{bytes} bytes");
    }
}

#[test]
fn preview_cuts_back_to_a_newline_only_past_char_1000() {
    // Newline at char index 1000: not past 1,000, so cut at 2,000 chars.
    let at_1000 = format!("{}\n{}", "a".repeat(1_000), "b".repeat(1_500));
    let (p, more) = generate_preview(&at_1000, 2_000);
    assert!(more);
    assert_eq!(p, &at_1000[..2_000]);
    // Newline at char index 1001: cut there, newline dropped.
    let at_1001 = format!("{}\n{}", "a".repeat(1_001), "b".repeat(1_500));
    assert_eq!(
        generate_preview(&at_1001, 2_000),
        ("a".repeat(1_001).as_str(), true)
    );
    // Newline as char 2,001 (index 2000) is outside the first 2,000 chars.
    let after = format!("{}\n{}", "a".repeat(2_000), "b".repeat(10));
    assert_eq!(
        generate_preview(&after, 2_000),
        ("a".repeat(2_000).as_str(), true)
    );
    // Short content is the whole preview.
    assert_eq!(generate_preview("one\ntwo\n", 2_000), ("one\ntwo\n", false));
    // Chars, not bytes.
    let wide = "é".repeat(3_000);
    assert_eq!(
        generate_preview(&wide, 2_000),
        ("é".repeat(2_000).as_str(), true)
    );
}

#[tokio::test]
async fn multibyte_output_counts_chars_for_threshold_and_bytes_for_size() {
    let storage = store();
    // 20,000 chars = 40,000 bytes: under a 30,000-char threshold.
    let under = "é".repeat(20_000);
    let block = as_bash(&storage, "t1", ToolOutput::text(under.clone())).await;
    assert_eq!(text_of(&block), under);

    let over = "é".repeat(30_001); // 60,002 bytes
    let block = as_bash(&storage, "t2", ToolOutput::text(over.clone())).await;
    let expected = format!(
        "<persisted-output>\nOutput too large (58.6KB). Full output saved to: {}\n\nPreview (first 2KB):\n{}\n...\n</persisted-output>",
        storage.path_for("t2").display(),
        "é".repeat(2_000)
    );
    assert_eq!(text_of(&block), expected);
    assert_eq!(
        std::fs::read(storage.path_for("t2")).unwrap(),
        over.as_bytes()
    );
}

#[tokio::test]
async fn small_persisted_result_has_no_ellipsis_line() {
    let storage = store();
    let block =
        process_tool_result(&storage, "Tiny", 10, "t", ToolOutput::text("hello\nworld!")).await;
    let expected = format!(
        "<persisted-output>\nOutput too large (12 bytes). Full output saved to: {}\n\nPreview (first 2KB):\nhello\nworld!\n</persisted-output>",
        storage.path_for("t").display()
    );
    assert_eq!(text_of(&block), expected);
}

/// Collects the fields of WARN events on the current thread.
#[derive(Default)]
struct WarnCollector {
    warnings: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl tracing::Subscriber for WarnCollector {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Fields(String);
        impl tracing::field::Visit for Fields {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.push_str(&format!("{}={:?} ", field.name(), value));
            }
        }
        if *event.metadata().level() == tracing::Level::WARN {
            let mut f = Fields(String::new());
            event.record(&mut f);
            self.warnings.lock().unwrap().push(f.0);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[tokio::test]
async fn unwritable_data_dir_keeps_the_original_result_and_warns() {
    let storage = unwritable_store();
    let output = seq_output(40_000);

    let collector = WarnCollector::default();
    let warnings = collector.warnings.clone();
    // tokio::test runs on one thread, so a thread-local default sees the call.
    let guard = tracing::subscriber::set_default(collector);
    let block = as_bash(&storage, "toolu_ro", ToolOutput::text(output.clone())).await;
    drop(guard);

    assert_eq!(block, ToolResultBlock::text("toolu_ro", output, false));
    let warnings = warnings.lock().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("toolu_ro"), "{}", warnings[0]);
    assert!(warnings[0].contains("could not persist"), "{}", warnings[0]);
}

#[tokio::test]
async fn images_are_never_persisted_and_text_blocks_are_joined() {
    let storage = store();
    let image = ToolResultContentBlock::Image {
        source: ImageSource::Base64 {
            media_type: "image/png".into(),
            data: "iVBORw0KGgo=".into(),
        },
    };
    let mixed = ToolOutput::blocks(vec![
        ToolResultContentBlock::Text {
            text: "x".repeat(50),
        },
        image,
    ]);
    let block = process_tool_result(&storage, "Read", 10, "img", mixed.clone()).await;
    assert_eq!(block.content, mixed.content);
    assert!(!storage.path_for("img").exists());

    let texts = ToolOutput::blocks(vec![
        ToolResultContentBlock::Text {
            text: "a".repeat(20),
        },
        ToolResultContentBlock::Text {
            text: "b".repeat(20),
        },
    ]);
    let block = process_tool_result(&storage, "Mcp", 30, "txt", texts).await;
    let joined = format!("{}\n{}", "a".repeat(20), "b".repeat(20));
    assert_eq!(
        std::fs::read_to_string(storage.path_for("txt")).unwrap(),
        joined
    );
    assert!(text_of(&block).starts_with("<persisted-output>\nOutput too large (41 bytes)."));
}

#[tokio::test]
async fn usize_max_threshold_never_persists() {
    let storage = store();
    let text = "line\n".repeat(100_000);
    let block = process_tool_result(
        &storage,
        "Read",
        usize::MAX,
        "r",
        ToolOutput::text(text.clone()),
    )
    .await;
    assert_eq!(text_of(&block), text);
}

#[tokio::test]
async fn persisted_file_is_private_to_the_user() {
    use std::os::unix::fs::PermissionsExt;
    let storage = store();
    process_tool_result(&storage, "Bash", 5, "p", ToolOutput::text("secret output")).await;
    let mode = std::fs::metadata(storage.path_for("p"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
}
