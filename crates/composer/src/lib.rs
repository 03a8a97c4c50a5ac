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
#![deny(missing_docs)]

mod editor;

pub use editor::{Composer, ComposerConfig, ComposerEvent, Submission};
