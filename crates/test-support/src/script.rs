//! What the fake providers share above the HTTP core: a scripted stream's
//! delivery (late end of body, faults), the builder methods that set it,
//! and the splitting of text into streamed pieces.
//!
//! Data flow: a provider's stream type ([`crate::Turn`],
//! [`crate::Completion`]) renders its message to [`Frame`]s in wire order
//! with their delays, then [`Delivery::render`] applies the fault —
//! truncating the frames, inserting a malformed or error frame, or choosing
//! how the body ends ([`StreamEnd`]) — and yields the [`WireReply`]. Fault
//! positions count frames, the first being 0.

use std::time::Duration;

use crate::http::{Frame, StreamEnd, WireReply};

/// A fault injected into a scripted stream.
#[derive(Debug, Clone)]
pub(crate) enum Fault {
    /// Close the connection abruptly after `n` frames.
    CutAfter(usize),
    /// End the body cleanly after `n` frames.
    EndAfter(usize),
    /// Insert the provider's malformed frame at position `n`.
    MalformedAt(usize),
    /// After `n` frames send this error frame, then end the body.
    ErrorAfter(usize, String),
    /// After `n` frames send nothing more until the server is dropped.
    HangAfter(usize),
}

/// How a scripted stream goes on the wire beyond its frames.
#[derive(Debug, Clone, Default)]
pub(crate) struct Delivery {
    /// Sleep before every frame after the first.
    pub gap: Duration,
    /// Send the end of the body only this long after the last frame.
    pub end_delay: Option<Duration>,
    pub fault: Option<Fault>,
}

impl Delivery {
    /// `frames` with the fault applied; frames the fault inserts come
    /// [`Self::gap`] after the one before. `malformed`: the provider's frame
    /// with invalid JSON.
    pub fn render(&self, mut frames: Vec<Frame>, malformed: &str) -> WireReply {
        let mut end = self
            .end_delay
            .map_or(StreamEnd::Complete, StreamEnd::CompleteAfter);
        let inserted = |data: &str| Frame {
            delay: self.gap,
            data: data.to_string(),
        };
        match &self.fault {
            None => {}
            Some(Fault::CutAfter(n)) => {
                frames.truncate(*n);
                end = StreamEnd::Abort;
            }
            Some(Fault::EndAfter(n)) => frames.truncate(*n),
            Some(Fault::MalformedAt(n)) => {
                frames.insert((*n).min(frames.len()), inserted(malformed));
            }
            Some(Fault::ErrorAfter(n, error)) => {
                frames.truncate(*n);
                frames.push(inserted(error));
            }
            Some(Fault::HangAfter(n)) => {
                frames.truncate(*n);
                end = StreamEnd::Hang;
            }
        }
        WireReply::sse(frames, end)
    }
}

/// The builder methods every scripted stream type (a [`crate::Dialect`])
/// shares, for a type with `id` and `model` (`Option<String>`) and
/// `delivery` ([`Delivery`]) fields; `$gap` names the method setting
/// [`Delivery::gap`]. Also `id_and_model`, the two as rendered.
macro_rules! stream_builders {
    ($gap:ident) => {
        /// Id (default [`crate::Dialect::ID_PREFIX`] + the 1-based position
        /// in the script).
        pub fn id(mut self, id: impl Into<String>) -> Self {
            self.id = Some(id.into());
            self
        }

        /// Model name (default [`crate::Dialect::MODEL`]).
        pub fn model(mut self, model: impl Into<String>) -> Self {
            self.model = Some(model.into());
            self
        }

        /// The id and model name as rendered at `position` in the script.
        fn id_and_model(&self, position: usize) -> (String, String) {
            use crate::Dialect;
            let id = self.id.clone();
            let model = self.model.clone();
            (
                id.unwrap_or_else(|| format!("{}{position}", Self::ID_PREFIX)),
                model.unwrap_or_else(|| Self::MODEL.to_string()),
            )
        }

        /// Sleep before every frame after the first.
        pub fn $gap(mut self, delay: std::time::Duration) -> Self {
            self.delivery.gap = delay;
            self
        }

        /// Send the end of the HTTP body (the final zero-length chunk) only
        /// `delay` after the last frame (`message_stop`, `[DONE]`): the
        /// client sees the message end and the body end in different reads.
        pub fn end_body_after(mut self, delay: std::time::Duration) -> Self {
            self.delivery.end_delay = Some(delay);
            self
        }

        /// Close the connection abruptly after `n` frames (no final chunk).
        pub fn cut_after(self, n: usize) -> Self {
            self.fault(crate::script::Fault::CutAfter(n))
        }

        /// End the HTTP body cleanly after `n` frames (before the message's end).
        pub fn end_after(self, n: usize) -> Self {
            self.fault(crate::script::Fault::EndAfter(n))
        }

        /// Send a frame with invalid JSON in `data:` after `n` frames, then
        /// the rest.
        pub fn malformed_at(self, n: usize) -> Self {
            self.fault(crate::script::Fault::MalformedAt(n))
        }

        /// After `n` frames send nothing more until the server is dropped.
        pub fn hang_after(self, n: usize) -> Self {
            self.fault(crate::script::Fault::HangAfter(n))
        }

        fn fault(mut self, fault: crate::script::Fault) -> Self {
            self.delivery.fault = Some(fault);
            self
        }
    };
}
pub(crate) use stream_builders;

/// A scripted stream type's two tool-call builders, over its private
/// `fn tool(self, id: String, name: String, fragments: Vec<String>)`: the
/// first streams a JSON value split by the given function, the second
/// exactly the given fragments (may be invalid JSON).
macro_rules! tool_builders {
    (
        $(#[$doc:meta])* $tool:ident with $fragments:path,
        $(#[$raw_doc:meta])* $raw:ident $(,)?
    ) => {
        $(#[$doc])*
        pub fn $tool(
            self,
            id: impl Into<String>,
            name: impl Into<String>,
            input: serde_json::Value,
        ) -> Self {
            self.tool(id.into(), name.into(), $fragments(&input))
        }

        $(#[$raw_doc])*
        pub fn $raw(
            self,
            id: impl Into<String>,
            name: impl Into<String>,
            fragments: &[&str],
        ) -> Self {
            let fragments = fragments.iter().map(|f| f.to_string()).collect();
            self.tool(id.into(), name.into(), fragments)
        }
    };
}
pub(crate) use tool_builders;

/// `s` in two pieces split at its middle char (one piece when shorter than 2).
pub(crate) fn halves(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() < 2 {
        return vec![s.to_string()];
    }
    let mid = chars.len() / 2;
    vec![chars[..mid].iter().collect(), chars[mid..].iter().collect()]
}

/// `s` in up to three pieces of equal char length (none for "").
pub(crate) fn thirds(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let step = chars.len().div_ceil(3).max(1);
    chars.chunks(step).map(|c| c.iter().collect()).collect()
}
