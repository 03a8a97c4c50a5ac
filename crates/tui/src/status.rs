//! The status line under the input box: model, cwd, context used, session
//! cost and permission mode, shortened to fit the width (the cwd goes
//! first, then the model). The model name and cwd are shown terminal-safe
//! (a directory name can hold control characters). [`status_of`] reads
//! the facts from the engine.

use orbit_engine::QueryEngine;
use orbit_permissions::PermissionMode;
use ratatui::text::{Line, Span};

use crate::sanitize::{Mode, sanitize};
use crate::theme::Theme;
use crate::wrap::truncate;

/// What the status line shows.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusInfo {
    /// The model of the next request.
    pub model: String,
    /// The session's working directory.
    pub cwd: String,
    /// The permission mode now.
    pub mode: PermissionMode,
    /// Tokens of the last request (input, cache and output).
    pub context_tokens: u64,
    /// The model's context window, in tokens.
    pub context_window: u64,
    /// Cost of the session so far, in US dollars.
    pub cost_usd: f64,
}

/// The status line's facts of `engine`'s session.
pub(crate) fn status_of(engine: &QueryEngine) -> StatusInfo {
    let config = engine.config();
    StatusInfo {
        model: config.model.clone(),
        cwd: config.cwd.display().to_string(),
        mode: engine.policy().mode(),
        context_tokens: 0,
        // The window compaction works with: the configured one, else the
        // engine's table for the model (8,192 for the local model).
        context_window: config
            .compact
            .context_window
            .unwrap_or_else(|| orbit_engine::context_window_tokens(&config.model)),
        cost_usd: engine.total_cost_usd(),
    }
}

/// The one status row at `width`.
pub(crate) fn status_line(info: &StatusInfo, t: Theme, width: u16) -> Line<'static> {
    let pct = info
        .context_tokens
        .saturating_mul(100)
        .checked_div(info.context_window)
        .unwrap_or(0)
        .min(100);
    let mode = match info.mode {
        PermissionMode::Default => "default".to_string(),
        other => format!("⏵⏵ {}", other.as_str()),
    };
    let right = format!(" · ctx {pct}% · ${:.4} · {mode} (⇧⇥)", info.cost_usd);
    let width = usize::from(width);
    let room = width.saturating_sub(right.chars().count());
    let model = truncate(&sanitize(&info.model, Mode::Cells), room.min(30));
    let room = room.saturating_sub(model.chars().count() + 3);
    let cwd = if room >= 4 {
        format!(
            " · {}",
            truncate_left(&sanitize(&info.cwd, Mode::Cells), room)
        )
    } else {
        String::new()
    };
    let mode_style = if info.mode == PermissionMode::Default {
        t.dim()
    } else {
        t.warn()
    };
    let (right_main, right_mode) = right.split_at(
        right
            .find(" · ⏵")
            .or_else(|| right.rfind(" · "))
            .unwrap_or(0),
    );
    Line::from(vec![
        Span::styled(model, t.accent()),
        Span::styled(cwd, t.dim()),
        Span::styled(right_main.to_string(), t.dim()),
        Span::styled(right_mode.to_string(), mode_style),
    ])
}

/// The end of `text` in at most `max` chars (`…` in front when cut).
fn truncate_left(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let tail: String = text.chars().skip(count - max + 1).collect();
    format!("…{tail}")
}
