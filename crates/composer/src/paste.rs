//! Large pastes collapsed to a placeholder such as `[Pasted text #1 +42 lines]`.
//!
//! Data flow: [`Pastes::insert`] decides whether a bracketed paste is large
//! ([`PASTE_COLLAPSE_CHARS`] / [`PASTE_COLLAPSE_LINES`]); a large one is kept
//! here and only its placeholder goes into the text. The key handler treats a
//! placeholder as one unit (one Backspace deletes the whole paste, ←/→ jump
//! over it), rendering styles it, and [`Pastes::expand`] puts the pasted
//! text back when the prompt is submitted.

use std::ops::Range;

/// A paste longer than this many chars is collapsed.
pub(crate) const PASTE_COLLAPSE_CHARS: usize = 800;
/// A paste with more than this many lines is collapsed.
pub(crate) const PASTE_COLLAPSE_LINES: usize = 10;

/// The pastes whose placeholders are in the text.
#[derive(Debug, Default)]
pub(crate) struct Pastes {
    /// (placeholder, pasted text), in paste order.
    items: Vec<(String, String)>,
    /// The number of the next placeholder.
    next: usize,
}

impl Pastes {
    /// What to insert for `pasted`: the text itself, or a placeholder for it.
    pub fn insert(&mut self, pasted: String) -> String {
        let lines = pasted.lines().count();
        if pasted.chars().count() <= PASTE_COLLAPSE_CHARS && lines <= PASTE_COLLAPSE_LINES {
            return pasted;
        }
        self.next += 1;
        let placeholder = if lines > 1 {
            format!("[Pasted text #{} +{lines} lines]", self.next)
        } else {
            format!(
                "[Pasted text #{} +{} chars]",
                self.next,
                pasted.chars().count()
            )
        };
        self.items.push((placeholder.clone(), pasted));
        placeholder
    }

    /// `text` with every placeholder replaced by its paste.
    pub fn expand(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (placeholder, pasted) in &self.items {
            if let Some(at) = out.find(placeholder.as_str()) {
                out.replace_range(at..at + placeholder.len(), pasted);
            }
        }
        out
    }

    /// Byte ranges of the placeholders present in `text`.
    pub fn ranges(&self, text: &str) -> Vec<Range<usize>> {
        let mut ranges: Vec<Range<usize>> = self
            .items
            .iter()
            .filter_map(|(p, _)| text.find(p.as_str()).map(|at| at..at + p.len()))
            .collect();
        ranges.sort_by_key(|r| r.start);
        ranges
    }

    /// The placeholder that ends exactly at `at`, if any.
    pub fn ending_at(&self, text: &str, at: usize) -> Option<Range<usize>> {
        self.ranges(text).into_iter().find(|r| r.end == at)
    }

    /// The placeholder that starts exactly at `at`, if any.
    pub fn starting_at(&self, text: &str, at: usize) -> Option<Range<usize>> {
        self.ranges(text).into_iter().find(|r| r.start == at)
    }

    /// Forgets every paste (after a submission or a clear).
    pub fn clear(&mut self) {
        self.items.clear();
    }
}
