//! What the screen shows of jobs other than a turn and of what a command
//! expects a turn to do: `/compact`'s working line and its collapsed
//! result (the summary on Ctrl-O), and `/init`'s check that CLAUDE.md was
//! written. The app calls these; the fields live on [`Screen`].

use super::{Screen, Tone};

impl Screen {
    /// The next turn is asked to write `path` (`/init`): when it ends
    /// without having written it, a line says so — a model that only
    /// shows the text leaves no doubt about what happened.
    pub(crate) fn expect_write(&mut self, path: std::path::PathBuf) {
        let before = modified(&path);
        self.expected_write = Some((path, before));
    }

    /// The end of a turn: says so when the expected file was not written.
    pub(super) fn check_expected_write(&mut self) {
        let Some((path, before)) = self.expected_write.take() else {
            return;
        };
        let after = modified(&path);
        if after.is_none() || after == before {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            let text = format!("  ⎿ {name} was not written: ask the model to write the file");
            self.note(&text, Tone::Error);
        }
    }

    /// `/compact` starts: the working line says so, with the tokens it
    /// summarizes.
    pub(crate) fn compacting(&mut self) {
        let tokens = self.status.context_tokens;
        let detail = if tokens > 0 {
            format!(" · summarizing ~{tokens} tokens")
        } else {
            String::new()
        };
        self.activity = Some(("Compacting conversation".to_string(), detail));
    }

    /// `/compact` finished: one collapsed "Conversation compacted" line;
    /// Ctrl-O shows the summary (at once when full output is on).
    pub(crate) fn compacted(&mut self, boundary: &orbit_engine::CompactionBoundary) {
        self.status.context_tokens = boundary.post_tokens;
        let (pre, post) = (boundary.pre_tokens, boundary.post_tokens);
        self.summary = boundary.summary.clone();
        let more = if self.summary.is_some() {
            " · Ctrl-O shows the summary"
        } else {
            " · no summary: the oldest turns were dropped"
        };
        self.note(
            &format!("✻ Conversation compacted ({pre} → {post} tokens){more}"),
            Tone::Dim,
        );
        if self.full_output {
            self.summary_lines();
        }
    }

    /// The last compaction's summary, dim and indented.
    pub(super) fn summary_lines(&mut self) {
        let Some(summary) = self.summary.clone() else {
            return;
        };
        self.note("  ⎿ Summary of the conversation so far", Tone::Dim);
        self.full_lines(&summary.lines().collect::<Vec<_>>());
    }
}

/// When `path` was last modified (None: no such file); the link itself,
/// never its target, and nothing is opened.
fn modified(path: &std::path::Path) -> Option<std::time::SystemTime> {
    std::fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
}
