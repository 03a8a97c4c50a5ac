//! The writer: records land in order, `sync` reports failures, an existing
//! transcript is never overwritten.

use orbit_session::TranscriptWriter;

use super::support::*;

#[tokio::test]
async fn records_land_in_order_and_the_file_is_private() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep/er/s.jsonl");
    let records: Vec<_> = (0..50).map(|i| prompt(&format!("p{i}"))).collect();
    let mut writer = TranscriptWriter::create(path.clone());
    writer.append(&header("s"));
    for (i, r) in records.iter().enumerate() {
        writer.append(r);
        if i % 7 == 0 {
            writer.sync().await.unwrap();
        }
    }
    writer.sync().await.unwrap();
    let loaded = load(&path).unwrap();
    let texts: Vec<String> = loaded.messages[0]
        .content
        .iter()
        .map(|b| match b {
            orbit_protocol::ContentBlock::Text { text, .. } => text.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(texts, (0..50).map(|i| format!("p{i}")).collect::<Vec<_>>());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[tokio::test]
async fn an_existing_transcript_is_never_overwritten_and_the_error_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = path_in(dir.path(), "s");
    std::fs::write(&path, "precious\n").unwrap();
    let mut writer = TranscriptWriter::create(path.clone());
    // Nothing appended yet: nothing to sync, nothing to fail.
    writer.sync().await.unwrap();
    writer.append(&header("s"));
    let err = writer.sync().await.unwrap_err().to_string();
    assert!(
        err.starts_with(&format!(
            "cannot write session transcript {}: cannot open:",
            path.display()
        )),
        "{err}"
    );
    // Reported again on the next sync; the file is untouched.
    writer.append(&prompt("x"));
    assert!(writer.sync().await.is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious\n");
}
