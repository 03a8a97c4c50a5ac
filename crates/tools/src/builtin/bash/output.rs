//! The capped head+tail byte buffer one output stream (stdout or stderr) of a
//! shell command is collected in.
//!
//! Bytes flow in through `CappedBuffer::push`: the first
//! [`BASH_OUTPUT_HEAD_BYTES`] are kept as they come, after that only the last
//! [`BASH_OUTPUT_TAIL_BYTES`] are (a ring), and the bytes that fell out in
//! between are counted. Reads (`CappedBuffer::read_from`) address the stream
//! by absolute byte offset, so a reader can take "everything since offset N"
//! (BashOutput's incremental reads) and the gap shows up as one marker line
//! saying how many bytes were dropped. A runaway command (`yes`) therefore
//! costs at most head + tail bytes per stream, while ordinary output (even
//! `seq 1 40000`, 228,894 bytes) arrives whole.

use std::collections::VecDeque;

/// Bytes kept from the start of a stream.
pub const BASH_OUTPUT_HEAD_BYTES: usize = 4 * 1024 * 1024;
/// Bytes kept from the end of a stream once the head is full.
pub const BASH_OUTPUT_TAIL_BYTES: usize = 1024 * 1024;

/// One stream's output: head, dropped middle, tail.
#[derive(Debug)]
pub(crate) struct CappedBuffer {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    /// Bytes pushed in total (head + dropped + tail).
    total: u64,
    head_cap: usize,
    tail_cap: usize,
}

impl Default for CappedBuffer {
    fn default() -> Self {
        Self::with_caps(BASH_OUTPUT_HEAD_BYTES, BASH_OUTPUT_TAIL_BYTES)
    }
}

impl CappedBuffer {
    /// A buffer with explicit caps (tests use small ones).
    pub(crate) fn with_caps(head_cap: usize, tail_cap: usize) -> Self {
        Self {
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
            head_cap,
            tail_cap,
        }
    }

    /// Appends bytes, dropping from the middle once both parts are full.
    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if self.head.len() < self.head_cap {
            let room = self.head_cap - self.head.len();
            let take = room.min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        if bytes.is_empty() || self.tail_cap == 0 {
            return;
        }
        if bytes.len() >= self.tail_cap {
            // The chunk alone fills the tail: keep only its end.
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.tail_cap..]);
            return;
        }
        let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.tail_cap);
        self.tail.drain(..overflow);
        self.tail.extend(bytes);
    }

    /// Bytes pushed so far (including dropped ones).
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// Bytes dropped from the middle so far (the marker says it to readers).
    #[cfg(test)]
    fn dropped(&self) -> u64 {
        self.total - self.head.len() as u64 - self.tail.len() as u64
    }

    /// Everything kept at or after absolute offset `from`, with a marker
    /// where bytes were dropped; `(bytes, total)` so the caller can resume
    /// from `total` next time.
    pub(crate) fn read_from(&self, from: u64) -> (Vec<u8>, u64) {
        let mut out = Vec::new();
        let head_len = self.head.len() as u64;
        let tail_start = self.total - self.tail.len() as u64;
        let mut pos = from.min(self.total);
        if pos < head_len {
            out.extend_from_slice(&self.head[pos as usize..]);
            pos = head_len;
        }
        if pos < tail_start {
            out.extend_from_slice(dropped_marker(tail_start - pos).as_bytes());
            pos = tail_start;
        }
        let skip = (pos - tail_start) as usize;
        out.extend(self.tail.iter().skip(skip));
        (out, self.total)
    }

    /// The whole kept output (head, marker, tail).
    pub(crate) fn contents(&self) -> Vec<u8> {
        self.read_from(0).0
    }
}

/// The line that stands in for dropped bytes.
pub use orbit_tool::texts::tools::bash::dropped_output_marker as dropped_marker;

#[cfg(test)]
mod tests {
    use super::*;

    /// Each case: head and tail caps, the chunks pushed, the offset read
    /// from, the bytes read and how many were dropped. Small output is kept
    /// whole; past the head only the tail is, with a marker for the gap; a
    /// read inside the tail starts there.
    #[test]
    fn kept_bytes_and_the_gap_marker() {
        // (head cap, tail cap), chunks, read from, bytes read, bytes dropped
        type Case = ((usize, usize), &'static [&'static [u8]], u64, String, u64);
        let table: [Case; 3] = [
            ((8, 4), &[b"hello"], 0, "hello".into(), 0),
            (
                (4, 3),
                &[b"abcdefgh", b"ij"],
                0,
                format!("abcd{}hij", dropped_marker(3)),
                3,
            ),
            // head "ab", tail "efgh" (offsets 4..8)
            ((2, 4), &[b"abcdefgh"], 6, "gh".into(), 2),
        ];
        for ((head, tail), chunks, from, expected, dropped) in table {
            let mut b = CappedBuffer::with_caps(head, tail);
            chunks.iter().for_each(|c| b.push(c));
            assert_eq!(b.read_from(from).0, expected.as_bytes(), "{chunks:?}");
            assert_eq!(b.dropped(), dropped, "{chunks:?}");
        }
    }

    #[test]
    fn incremental_reads_resume_at_offset() {
        let mut b = CappedBuffer::with_caps(4, 3);
        b.push(b"ab");
        let (first, pos) = b.read_from(0);
        assert_eq!(first, b"ab");
        b.push(b"cd");
        let (second, pos) = b.read_from(pos);
        assert_eq!(second, b"cd");
        b.push(b"efghij");
        // "efg" dropped while nobody read; "hij" in the tail.
        let (third, pos) = b.read_from(pos);
        assert_eq!(third, format!("{}hij", dropped_marker(3)).as_bytes());
        let (fourth, _) = b.read_from(pos);
        assert!(fourth.is_empty());
    }

    #[test]
    fn memory_stays_bounded() {
        let mut b = CappedBuffer::with_caps(1024, 1024);
        let chunk = vec![b'y'; 700];
        for _ in 0..10_000 {
            b.push(&chunk);
        }
        assert_eq!(b.total(), 7_000_000);
        assert!(b.head.len() + b.tail.len() <= 2048);
        assert_eq!(b.dropped(), 7_000_000 - 2048);
    }
}
