//! The interactive UI's input box (the "composer").
//!
//! Data flow: the terminal UI hands every key event that is not one of its
//! own shortcuts (Esc, Ctrl-C, Ctrl-D, Shift-Tab, Ctrl-O) to
//! [`Composer::handle_key`], and bracketed pastes to
//! [`Composer::handle_paste`]. The composer edits its text and answers with
//! a [`ComposerEvent`]; Enter turns the text into a [`Submission`]
//! (a prompt, a `!shell` command, a `#note` or a `/command`). The UI asks
//! for [`Composer::desired_height`] to lay out its live region and renders
//! the box with [`Composer::render`]. The composer reads no terminal and
//! runs no engine: it is a value that can be driven by tests.
//!
//! Modules: `editor` (state, submission), `keys` (key handling), `textops`
//! and `layout` (motions, soft wrapping), `history` (↑/↓, the JSON-lines
//! file), `paste` (placeholders), `completion`, `files` and [`fuzzy`]
//! (the `@path` and `/command` popups), `render` (drawing) and [`custom`]
//! (custom slash commands from Markdown files).
#![deny(missing_docs)]

mod completion;
pub mod custom;
mod editor;
mod files;
pub mod fuzzy;
mod history;
mod keys;
mod layout;
mod paste;
mod render;
mod textops;

pub use editor::{Composer, ComposerConfig, ComposerEvent, Submission};
pub use files::IndexWaker;
