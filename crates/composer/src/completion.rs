//! The completion popups: `@path` over the project's files and `/name` over
//! the slash commands.
//!
//! Data flow: after every edit or cursor move the composer asks [`trigger`]
//! whether the cursor sits in an `@…` token or in a leading `/…` token; if so
//! it builds a [`Popup`] of ranked [`Item`]s (files from
//! [`crate::files::FileIndex`], commands ranked with [`crate::fuzzy`]).
//! Accepting an item replaces the token with the item's text.

use std::ops::Range;

use crate::fuzzy;

/// The most items a popup holds (the box shows a window of them).
pub(crate) const POPUP_MAX_ITEMS: usize = 50;

/// What a popup completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PopupKind {
    /// `@path` mentions.
    Mention,
    /// `/command` at the start of the text.
    Slash,
}

/// One row of a popup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    /// What the row shows first (a path or `/name`).
    pub label: String,
    /// A dimmed second column (a command's description).
    pub detail: String,
    /// The text that replaces the token when the item is accepted.
    pub insert: String,
}

/// An open popup.
#[derive(Debug, Clone)]
pub(crate) struct Popup {
    /// What it completes.
    pub kind: PopupKind,
    /// The token it replaces (byte range of the text).
    pub range: Range<usize>,
    /// The ranked items (never empty).
    pub items: Vec<Item>,
    /// The highlighted item.
    pub selected: usize,
}

/// The token at the cursor that opens a popup.
#[derive(Debug, Clone)]
pub(crate) struct Trigger {
    /// What it completes.
    pub kind: PopupKind,
    /// The whole token, marker included.
    pub range: Range<usize>,
    /// The token's text between its marker and the cursor.
    pub query: String,
}

/// The popup-opening token around `cursor`, if any.
pub(crate) fn trigger(text: &str, cursor: usize) -> Option<Trigger> {
    let before = &text[..cursor];
    let token_end = cursor
        + text[cursor..]
            .find(char::is_whitespace)
            .unwrap_or(text.len() - cursor);
    if let Some(query) = before.strip_prefix('/')
        && !before.contains(char::is_whitespace)
    {
        return Some(Trigger {
            kind: PopupKind::Slash,
            range: 0..token_end,
            query: query.to_string(),
        });
    }
    let start = before
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let query = before[start..].strip_prefix('@')?;
    Some(Trigger {
        kind: PopupKind::Mention,
        range: start..token_end,
        query: query.to_string(),
    })
}

/// The slash commands matching `query`, best first (all, in their order,
/// for an empty query). Quadratic in the number of commands, which is a
/// few dozen.
pub(crate) fn slash_items(commands: &[(String, String)], query: &str) -> Vec<Item> {
    let mut scored: Vec<(i32, usize)> = commands
        .iter()
        .enumerate()
        // A name listed twice (a custom command shadowing a built-in) is
        // offered once, as its first entry.
        .filter(|(i, (name, _))| !commands[..*i].iter().any(|(n, _)| n == name))
        .filter_map(|(i, (name, _))| fuzzy::score(query, name).map(|s| (s, i)))
        .collect();
    if !query.is_empty() {
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    }
    scored
        .into_iter()
        .take(POPUP_MAX_ITEMS)
        .map(|(_, i)| {
            let (name, description) = &commands[i];
            Item {
                label: format!("/{name}"),
                detail: description.clone(),
                insert: format!("/{name}"),
            }
        })
        .collect()
}

/// Popup items for file paths.
/// The one row while the file index is still being built (accepting it
/// keeps the token as typed).
pub(crate) fn indexing_item(query: &str) -> Item {
    Item {
        label: "indexing files…".to_string(),
        detail: String::new(),
        insert: format!("@{query}"),
    }
}

pub(crate) fn mention_items(paths: Vec<String>) -> Vec<Item> {
    paths
        .into_iter()
        .map(|p| Item {
            insert: format!("@{p}"),
            label: p,
            detail: String::new(),
        })
        .collect()
}
