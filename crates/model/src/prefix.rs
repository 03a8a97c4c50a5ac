//! The serialized bytes of the messages a client's previous request sent,
//! reused by its next request for the messages both share.
//!
//! A request's messages are `Arc`s shared with the engine's budgeted view
//! of its history (R2: every message already sent is frozen, so the engine
//! hands the next request the *same* `Arc`s for them and new ones only for
//! what changed or is new). Each wire format encodes a message on its own
//! (its bytes depend on nothing around it), so the body of the next
//! request is: the cached bytes of the leading messages that are the same
//! allocation as last time ([`Arc::ptr_eq`]), then the rest encoded now.
//! Serializing a request costs what is new, not the whole history.
//!
//! Identity is sound because the cache holds its own `Arc` of every message
//! it has bytes for: an allocation the cache holds cannot be freed and
//! reused for another message, and a message behind a shared `Arc` cannot
//! change (`Arc::make_mut` would copy it). A client used by several
//! sessions at once only loses the reuse, never the bytes' correctness.

use std::sync::{Arc, Mutex, MutexGuard};

use orbit_protocol::Message;

/// Encoded messages of the last request, in order.
#[derive(Debug, Default)]
struct Encoded {
    /// The messages whose bytes are in `bytes`.
    messages: Vec<Arc<Message>>,
    /// The end offset in `bytes` of each message's encoding.
    ends: Vec<usize>,
    /// The encodings, back to back.
    bytes: Vec<u8>,
}

impl Encoded {
    /// How many leading `messages` are the cached ones (same allocation).
    fn shared_with(&self, messages: &[Arc<Message>]) -> usize {
        self.messages
            .iter()
            .zip(messages)
            .take_while(|(cached, message)| Arc::ptr_eq(cached, message))
            .count()
    }

    /// Keeps the first `count` messages' bytes.
    fn truncate(&mut self, count: usize) {
        self.messages.truncate(count);
        self.ends.truncate(count);
        self.bytes.truncate(self.ends.last().copied().unwrap_or(0));
    }
}

/// A client's cache of encoded messages (shared by its clones).
#[derive(Debug, Default, Clone)]
pub(crate) struct PrefixCache {
    encoded: Arc<Mutex<Encoded>>,
}

impl PrefixCache {
    /// Appends to `out` the encodings of `messages`, each as `encode`
    /// writes it, reusing the bytes of the leading messages the previous
    /// call was given too. Remembers `messages` for the next call.
    pub(crate) fn write<E>(
        &self,
        messages: &[Arc<Message>],
        out: &mut Vec<u8>,
        mut encode: impl FnMut(&Message, &mut Vec<u8>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut cache = self.lock();
        let shared = cache.shared_with(messages);
        cache.truncate(shared);
        for message in &messages[shared..] {
            if let Err(e) = encode(message, &mut cache.bytes) {
                let kept = cache.messages.len();
                cache.truncate(kept);
                return Err(e);
            }
            let end = cache.bytes.len();
            cache.ends.push(end);
            cache.messages.push(Arc::clone(message));
        }
        out.extend_from_slice(&cache.bytes);
        Ok(())
    }

    fn lock(&self) -> MutexGuard<'_, Encoded> {
        // A panic mid-write leaves at worst fewer cached messages than bytes;
        // start over rather than trust them.
        self.encoded.lock().unwrap_or_else(|poisoned| {
            let mut cache = poisoned.into_inner();
            cache.truncate(0);
            cache
        })
    }

    /// How many messages have cached bytes (tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().messages.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(message: &Message, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        serde_json::to_writer(&mut *out, message)?;
        out.push(b',');
        Ok(())
    }

    fn uncached(messages: &[Arc<Message>]) -> Vec<u8> {
        let mut out = Vec::new();
        for m in messages {
            let _ = encode(m, &mut out);
        }
        out
    }

    #[test]
    fn reuses_the_shared_prefix_and_encodes_the_rest() {
        let cache = PrefixCache::default();
        let a = Arc::new(Message::user_text("a"));
        let b = Arc::new(Message::user_text("b"));
        let c = Arc::new(Message::user_text("c"));
        let steps: Vec<(Vec<Arc<Message>>, usize)> = vec![
            (vec![a.clone(), b.clone()], 0),
            // Same two + one new: two reused.
            (vec![a.clone(), b.clone(), c.clone()], 2),
            // An equal but new allocation is not reused (identity, not value).
            (
                vec![a.clone(), Arc::new(Message::user_text("b")), c.clone()],
                1,
            ),
            // A shorter list (after a compaction) and a different first message.
            (vec![c.clone()], 0),
            (vec![], 0),
        ];
        for (messages, reused) in steps {
            assert_eq!(cache.lock().shared_with(&messages), reused);
            let mut out = b"[".to_vec();
            assert!(cache.write(&messages, &mut out, encode).is_ok());
            assert_eq!(&out[1..], uncached(&messages).as_slice());
            assert_eq!(cache.len(), messages.len());
        }
    }

    #[test]
    fn a_failed_encoding_keeps_only_what_was_encoded() {
        let cache = PrefixCache::default();
        let messages: Vec<Arc<Message>> = ["a", "b", "c"]
            .into_iter()
            .map(|t| Arc::new(Message::user_text(t)))
            .collect();
        let mut calls = 0;
        let failing = |m: &Message, out: &mut Vec<u8>| {
            calls += 1;
            if calls == 2 {
                Err("boom")
            } else {
                encode(m, out).map_err(|_| "json")
            }
        };
        let mut out = Vec::new();
        assert_eq!(cache.write(&messages, &mut out, failing), Err("boom"));
        assert_eq!(cache.len(), 1);
        let mut out = Vec::new();
        assert!(cache.write(&messages, &mut out, encode).is_ok());
        assert_eq!(out, uncached(&messages));
    }
}
