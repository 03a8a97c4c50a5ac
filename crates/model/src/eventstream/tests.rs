#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

/// A frame with string headers, as AWS writes it.
fn encode(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut block = Vec::new();
    for (name, value) in headers {
        block.push(name.len() as u8);
        block.extend_from_slice(name.as_bytes());
        block.push(7);
        block.extend_from_slice(&(value.len() as u16).to_be_bytes());
        block.extend_from_slice(value.as_bytes());
    }
    let total = PRELUDE_BYTES + block.len() + payload.len() + MESSAGE_CRC_BYTES;
    let mut out = Vec::new();
    out.extend_from_slice(&(total as u32).to_be_bytes());
    out.extend_from_slice(&(block.len() as u32).to_be_bytes());
    let prelude_crc = crc32fast::hash(&out);
    out.extend_from_slice(&prelude_crc.to_be_bytes());
    out.extend_from_slice(&block);
    out.extend_from_slice(payload);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out
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
