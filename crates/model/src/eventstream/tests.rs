#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

/// A frame with string headers, as AWS writes it (test-support's writer).
fn encode(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    orbit_test_support::bedrock::frame(headers, payload)
}

fn chunk(payload: &str) -> Vec<u8> {
    encode(
        &[
            (":event-type", "chunk"),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        payload.as_bytes(),
    )
}

#[test]
fn frames_split_at_every_byte_are_read_whole() {
    let mut wire = chunk(r#"{"bytes":"eyJ0eXBlIjoicGluZyJ9"}"#);
    wire.extend(chunk(r#"{"bytes":"e30="}"#));
    for split in 0..wire.len() {
        let mut reader = FrameReader::default();
        let mut frames = Vec::new();
        for piece in [&wire[..split], &wire[split..]] {
            reader.push(piece);
            while let Some(frame) = reader.next_frame().unwrap() {
                frames.push(frame);
            }
        }
        assert_eq!(frames.len(), 2, "split at {split}");
        assert!(!reader.has_partial());
        let event = frame_event(&frames[0]);
        assert_eq!(event.event, "chunk");
        assert_eq!(event.data, r#"{"bytes":"eyJ0eXBlIjoicGluZyJ9"}"#);
    }
}

#[test]
fn both_crcs_are_checked() {
    let good = chunk(r#"{"bytes":"e30="}"#);
    let mut prelude = good.clone();
    prelude[9] ^= 1;
    let mut reader = FrameReader::default();
    reader.push(&prelude);
    assert_eq!(reader.next_frame(), Err(FrameError::PreludeCrc));

    let mut payload = good.clone();
    let at = payload.len() - 6;
    payload[at] ^= 1;
    let mut reader = FrameReader::default();
    reader.push(&payload);
    assert_eq!(reader.next_frame(), Err(FrameError::MessageCrc));
}

#[test]
fn exceptions_become_named_events() {
    let wire = encode(
        &[
            (":exception-type", "throttlingException"),
            (":content-type", "application/json"),
            (":message-type", "exception"),
        ],
        br#"{"message":"Too many requests"}"#,
    );
    let mut reader = FrameReader::default();
    reader.push(&wire);
    let frame = reader.next_frame().unwrap().unwrap();
    let event = frame_event(&frame);
    assert_eq!(event.event, "exception/throttlingException");
    assert_eq!(event.data, r#"{"message":"Too many requests"}"#);
}

#[test]
fn impossible_lengths_are_refused() {
    let mut wire = Vec::new();
    wire.extend_from_slice(&8u32.to_be_bytes());
    wire.extend_from_slice(&0u32.to_be_bytes());
    let crc = crc32fast::hash(&wire);
    wire.extend_from_slice(&crc.to_be_bytes());
    let mut reader = FrameReader::default();
    reader.push(&wire);
    assert_eq!(reader.next_frame(), Err(FrameError::Length(8)));
}
