//! AWS event-stream framing (`application/vnd.amazon.eventstream`), the
//! layer below the one driver's `WireDecoder` for Bedrock's
//! `invoke-with-response-stream`.
//!
//! Data flow: response bytes arrive in arbitrary pieces → [`FrameReader`]
//! buffers them and cuts whole frames: a 12-byte prelude (total length,
//! headers length, CRC32 of those 8 bytes), the headers, the payload, and
//! a CRC32 of everything before it. Both CRCs are checked; a bad one, a
//! length out of bounds or a header that does not parse is an error
//! ([`FrameError`]) that ends the body (the driver retries it as a
//! malformed stream). Each [`Frame`] then becomes one SSE-like event
//! (`frame_event`): a `chunk` event's name and JSON payload, or for an
//! exception frame the name `exception/<:exception-type>` (an `error`
//! message: `exception/<:error-code>`), so the same driver loop reads both
//! wire formats and the Bedrock decoder only maps names and payloads.

use bytes::{Buf, BytesMut};
use eventsource_stream::Event;

/// Bytes of the prelude: total length, headers length, prelude CRC.
const PRELUDE_BYTES: usize = 12;
/// Bytes of the trailing message CRC.
const MESSAGE_CRC_BYTES: usize = 4;
/// Largest frame accepted (AWS caps a message at 16 MiB), in bytes.
pub(crate) const MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;

/// Why a frame could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FrameError {
    /// The prelude's CRC32 did not match.
    #[error("event-stream prelude CRC mismatch")]
    PreludeCrc,
    /// The message's CRC32 did not match.
    #[error("event-stream message CRC mismatch")]
    MessageCrc,
    /// A length in the prelude is impossible.
    #[error("event-stream frame length {0} out of bounds")]
    Length(usize),
    /// A header could not be parsed.
    #[error("event-stream header malformed: {0}")]
    Header(&'static str),
}

/// One decoded frame: its string headers and its payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Frame {
    /// Headers whose value is a string (`:event-type`, …); others skipped.
    pub(crate) headers: Vec<(String, String)>,
    /// The payload bytes.
    pub(crate) payload: Vec<u8>,
}

impl Frame {
    /// The value of a string header.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Cuts whole frames out of a byte stream fed in pieces.
#[derive(Debug, Default)]
pub(crate) struct FrameReader {
    buffer: BytesMut,
}

impl FrameReader {
    /// Appends received bytes.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    /// Whether bytes of an unfinished frame are buffered.
    pub(crate) fn has_partial(&self) -> bool {
        !self.buffer.is_empty()
    }

    /// The next whole frame, None until one is buffered.
    pub(crate) fn next_frame(&mut self) -> Result<Option<Frame>, FrameError> {
        if self.buffer.len() < PRELUDE_BYTES {
            return Ok(None);
        }
        let be = |at: usize| {
            let mut word = [0u8; 4];
            word.copy_from_slice(&self.buffer[at..at + 4]);
            u32::from_be_bytes(word)
        };
        let total = be(0) as usize;
        let headers_len = be(4) as usize;
        if crc32fast::hash(&self.buffer[..8]) != be(8) {
            return Err(FrameError::PreludeCrc);
        }
        if total < PRELUDE_BYTES + MESSAGE_CRC_BYTES + headers_len || total > MAX_FRAME_BYTES {
            return Err(FrameError::Length(total));
        }
        if self.buffer.len() < total {
            return Ok(None);
        }
        let frame = self.buffer.split_to(total);
        let crc_at = total - MESSAGE_CRC_BYTES;
        let mut crc = [0u8; 4];
        crc.copy_from_slice(&frame[crc_at..]);
        if crc32fast::hash(&frame[..crc_at]) != u32::from_be_bytes(crc) {
            return Err(FrameError::MessageCrc);
        }
        let headers_end = PRELUDE_BYTES + headers_len;
        Ok(Some(Frame {
            headers: parse_headers(&frame[PRELUDE_BYTES..headers_end])?,
            payload: frame[headers_end..crc_at].to_vec(),
        }))
    }
}

/// The headers block: name length (1 byte), name, value type (1 byte),
/// value. Strings (type 7) are kept; other types are skipped by size.
fn parse_headers(mut block: &[u8]) -> Result<Vec<(String, String)>, FrameError> {
    let mut headers = Vec::new();
    while block.has_remaining() {
        let name_len = usize::from(block.get_u8());
        if block.remaining() < name_len + 1 {
            return Err(FrameError::Header("name past the end"));
        }
        let name = String::from_utf8_lossy(&block[..name_len]).into_owned();
        block.advance(name_len);
        let kind = block.get_u8();
        let fixed = match kind {
            0 | 1 => 0,
            2 => 1,
            3 => 2,
            4 => 4,
            5 | 8 => 8,
            9 => 16,
            6 | 7 => {
                if block.remaining() < 2 {
                    return Err(FrameError::Header("length past the end"));
                }
                let len = usize::from(block.get_u16());
                if block.remaining() < len {
                    return Err(FrameError::Header("value past the end"));
                }
                if kind == 7 {
                    let value = String::from_utf8_lossy(&block[..len]).into_owned();
                    headers.push((name, value));
                }
                block.advance(len);
                continue;
            }
            _ => return Err(FrameError::Header("unknown value type")),
        };
        if block.remaining() < fixed {
            return Err(FrameError::Header("value past the end"));
        }
        block.advance(fixed);
    }
    Ok(headers)
}

/// A frame as the event the decoder reads: `event` is the `:event-type`
/// (`chunk`), or `exception/<type>` for an exception or error message;
/// `data` the payload as text.
pub(crate) fn frame_event(frame: &Frame) -> Event {
    let name = match frame.header(":message-type") {
        Some("exception") => format!(
            "exception/{}",
            frame.header(":exception-type").unwrap_or("unknown")
        ),
        Some("error") => format!(
            "exception/{}",
            frame.header(":error-code").unwrap_or("unknown")
        ),
        _ => frame.header(":event-type").unwrap_or("message").to_string(),
    };
    let data = match frame.header(":error-message") {
        Some(message) if frame.payload.is_empty() => {
            serde_json::json!({ "message": message }).to_string()
        }
        _ => String::from_utf8_lossy(&frame.payload).into_owned(),
    };
    Event {
        event: name,
        data,
        ..Event::default()
    }
}

#[cfg(test)]
mod tests;
