//! R3 (empty output placeholder) and R4 (error formatting) through the
//! pipeline entry point, with exact texts and the 10,000-char boundary.

use super::store::{as_bash, store};
use orbit_engine::{format_error, process_tool_result};
use orbit_protocol::{ImageSource, ToolResultBlock, ToolResultContent, ToolResultContentBlock};
use orbit_tools::ToolOutput;

/// A text of `n` chars where every position is distinguishable.
fn numbered(n: usize) -> String {
    (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect()
}

#[tokio::test]
async fn empty_and_whitespace_output_get_the_placeholder() {
    let st = store();
    let cases = [
        ToolOutput::text(""),
        ToolOutput::text("  \n\t \n"),
        ToolOutput::blocks(vec![]),
        ToolOutput::blocks(vec![ToolResultContentBlock::Text { text: " \n".into() }]),
    ];
    for output in cases {
        let block = as_bash(&st, "t", output).await;
        assert_eq!(
            block,
            ToolResultBlock::text("t", "(Bash completed with no output)", false)
        );
        // No is_error key at all on the wire.
        assert_eq!(
            serde_json::to_string(&block).unwrap(),
            r#"{"tool_use_id":"t","content":"(Bash completed with no output)"}"#
        );
    }
}

#[tokio::test]
async fn an_image_only_result_is_not_empty() {
    let st = store();
    let image = ToolOutput::blocks(vec![ToolResultContentBlock::Image {
        source: ImageSource::Base64 {
            media_type: "image/png".into(),
            data: "AAAA".into(),
        },
    }]);
    let block = process_tool_result(&st, "Read", 1, "t", image.clone()).await;
    assert_eq!(block.content, image.content);
}

#[tokio::test]
async fn errors_are_flagged_and_empty_errors_get_r4_text() {
    let st = store();
    for text in ["", "   \n"] {
        let block = as_bash(&st, "e", ToolOutput::error(text)).await;
        assert_eq!(
            block,
            ToolResultBlock::text("e", "Command failed with no output", true)
        );
        assert_eq!(
            serde_json::to_string(&block).unwrap(),
            r#"{"tool_use_id":"e","content":"Command failed with no output","is_error":true}"#
        );
    }
    let block = as_bash(&st, "e", ToolOutput::error("Exit code 2\nno such file\n")).await;
    assert_eq!(
        block,
        ToolResultBlock::text("e", "Exit code 2\nno such file", true)
    );
}

#[test]
fn error_of_exactly_10_000_chars_is_kept_whole() {
    let text = numbered(10_000);
    assert_eq!(format_error(&text), text);
}

#[test]
fn error_of_10_001_chars_keeps_first_and_last_5_000() {
    let text = numbered(10_001);
    let expected = format!(
        "{}\n\n... [1 characters truncated] ...\n\n{}",
        &text[..5_000],
        &text[5_001..]
    );
    assert_eq!(format_error(&text), expected);
}

#[test]
fn long_errors_count_chars_not_bytes() {
    let text: String = std::iter::repeat_n('é', 6_000)
        .chain(std::iter::repeat_n('ß', 6_000))
        .collect();
    let expected = format!(
        "{}\n\n... [2000 characters truncated] ...\n\n{}",
        "é".repeat(5_000),
        "ß".repeat(5_000)
    );
    assert_eq!(format_error(&text), expected);
}

#[tokio::test]
async fn large_errors_are_truncated_not_persisted() {
    let st = store();
    let text = numbered(50_000);
    let block = as_bash(&st, "big_err", ToolOutput::error(text.clone())).await;
    let expected = format!(
        "{}\n\n... [40000 characters truncated] ...\n\n{}",
        &text[..5_000],
        &text[45_000..]
    );
    assert_eq!(block.content, ToolResultContent::Text(expected));
    assert!(block.is_error());
    assert!(!st.path_for("big_err").exists());
}
