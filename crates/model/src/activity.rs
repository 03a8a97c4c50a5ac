//! What a local model is doing while someone waits (issue 38): loading,
//! reading the prompt (with progress), generating. A model on two cores
//! can take a minute before its first token; the terminal UI and `-p` on a
//! terminal say which of these it is instead of a bare "Working…".
//!
//! Flow: the producers report typed [`ModelActivity`] values into one
//! process-wide watch channel — `orbit-local` while it starts a
//! llama-server ([`ModelActivity::Loading`]), the OpenAI client with
//! `OpenAiConfig::report_activity` on (the local provider) from
//! llama.cpp's streamed `prompt_progress` (requested with
//! `return_progress: true`) and the first generated chunk, and
//! [`ModelActivity::Idle`] when a response ends → consumers
//! ([`subscribe`] or [`current`]) render it: the UI's spinner line, the
//! `-p` status line on a terminal. One channel per process is enough: the
//! local server has one slot, so one request is read or generated at a
//! time. Nothing reports when no local model runs.

use std::sync::OnceLock;

use tokio::sync::watch;

/// What the model is doing now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModelActivity {
    /// Nothing is being waited for (or nothing is known).
    #[default]
    Idle,
    /// The server is starting: the model is being loaded into memory.
    Loading,
    /// The server is reading (evaluating) the prompt.
    ReadingPrompt {
        /// Prompt tokens done so far, the cached ones included.
        processed: u64,
        /// Prompt tokens in all.
        total: u64,
        /// Prompt tokens the server reuses from its cache (not read again).
        cached: u64,
    },
    /// The reply is being generated.
    Generating,
}

impl ModelActivity {
    /// A few words for a status line (None when idle): `loading the
    /// model`, `reading the prompt 40% (820/2,048 tokens)`, `generating`.
    /// The percentage counts only the tokens the server actually reads
    /// (llama.cpp's "timed progress": cached ones are free).
    pub fn describe(&self) -> Option<String> {
        match *self {
            ModelActivity::Idle => None,
            ModelActivity::Loading => Some("loading the model".to_string()),
            ModelActivity::ReadingPrompt {
                processed,
                total,
                cached,
            } => {
                let todo = total.saturating_sub(cached);
                let done = processed.saturating_sub(cached).min(todo);
                let percent = (done * 100).checked_div(todo).unwrap_or(100);
                Some(format!(
                    "reading the prompt {percent}% ({}/{} tokens)",
                    grouped(done),
                    grouped(todo)
                ))
            }
            ModelActivity::Generating => Some("generating".to_string()),
        }
    }
}

/// `2048` → `2,048`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn channel() -> &'static watch::Sender<ModelActivity> {
    static CHANNEL: OnceLock<watch::Sender<ModelActivity>> = OnceLock::new();
    CHANNEL.get_or_init(|| watch::channel(ModelActivity::Idle).0)
}

/// Reports what the model does now (watchers wake only on a change).
pub fn report(activity: ModelActivity) {
    channel().send_if_modified(|now| {
        let changed = *now != activity;
        *now = activity;
        changed
    });
}

/// What the model does now.
pub fn current() -> ModelActivity {
    *channel().borrow()
}

/// A receiver that sees every later change.
pub fn subscribe() -> watch::Receiver<ModelActivity> {
    channel().subscribe()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_count_only_the_tokens_read() {
        let reading = |processed, total, cached| ModelActivity::ReadingPrompt {
            processed,
            total,
            cached,
        };
        let cases = [
            (ModelActivity::Idle, None),
            (
                reading(1_536, 2_560, 512),
                Some("reading the prompt 50% (1,024/2,048 tokens)"),
            ),
            (
                reading(300, 300, 300),
                Some("reading the prompt 100% (0/0 tokens)"),
            ),
        ];
        for (activity, want) in cases {
            assert_eq!(activity.describe().as_deref(), want, "{activity:?}");
        }
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(12), "12");
    }
}
