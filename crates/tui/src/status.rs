//! The status line under the input box: provider and model
//! (`local · qwen2.5-coder-1.5b`), cwd, context used, session cost and
//! permission mode, shortened to fit the width — the cwd goes first, then
//! the mode's key hint, then the cost; the model name is cut last. The
//! model name and cwd are shown terminal-safe (a directory name can hold
//! control characters). [`status_of`] reads the facts from the engine (the
//! provider from the session's side query, which runs on the session's
//! client); `/status`'s report is `crate::status_report`.

use orbit_engine::QueryEngine;
use orbit_permissions::PermissionMode;
use ratatui::text::{Line, Span};

use crate::sanitize::{Mode, sanitize};
use crate::theme::Theme;
use crate::wrap::truncate;

/// What the status line shows.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusInfo {
    /// The provider the model runs on (`anthropic`, `openai`, `local`…;
    /// empty when not known).
    pub provider: String,
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
        provider: provider_of(engine),
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

/// The provider of `engine`'s session (its side query runs on the same
/// client); empty when none is installed.
pub(crate) fn provider_of(engine: &QueryEngine) -> String {
    orbit_tool::side_query::side_query(engine.tool_context())
        .map(|query| query.provider().to_string())
        .unwrap_or_default()
}

/// `/status`: the session, where its model runs (provider, model, base
/// URL; for the local model the warm llama-server `orbit local status`
/// shows), the cwd, the permission mode and the cost, one fact a line.
pub(crate) fn status_report(engine: &QueryEngine) -> Vec<String> {
    let info = status_of(engine);
    let provider = if info.provider.is_empty() {
        "(not known)".to_string()
    } else {
        info.provider.clone()
    };
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let base_url = match info.provider.as_str() {
        "anthropic" => env("ANTHROPIC_BASE_URL").unwrap_or_else(|| ANTHROPIC_URL.to_string()),
        "openai" => env("OPENAI_BASE_URL").unwrap_or_else(|| OPENAI_URL.to_string()),
        "bedrock" => format!(
            "Amazon Bedrock, region {}",
            env("AWS_REGION").unwrap_or_else(|| "from the AWS configuration".into())
        ),
        "vertex" => format!(
            "Google Vertex AI, region {}",
            env("CLOUD_ML_REGION").unwrap_or_else(|| "from the Google configuration".into())
        ),
        "local" => String::new(),
        _ => "(the embedder's client)".to_string(),
    };
    let config = engine.config();
    let mut facts = vec![
        ("Session", engine.session_id().to_string()),
        ("Provider", provider),
        ("Model", info.model.clone()),
    ];
    if info.provider == "local" {
        facts.extend(local_server(&config.data_dir));
    } else {
        facts.push(("Base URL", base_url));
    }
    facts.extend([
        ("Cwd", info.cwd.clone()),
        ("Mode", info.mode.as_str().to_string()),
        ("Cost", format!("${:.4}", info.cost_usd)),
    ]);
    facts
        .into_iter()
        .map(|(label, value)| format!("  {:<13}{value}", format!("{label}:")))
        .collect()
}

/// The Anthropic API's default base URL.
const ANTHROPIC_URL: &str = "https://api.anthropic.com";
/// The OpenAI API's default base URL.
const OPENAI_URL: &str = "https://api.openai.com/v1";

/// The local model's server as `orbit local status` reports it: the warm
/// llama-server (its URL, pid and when it stops) or none.
fn local_server(data_dir: &std::path::Path) -> Vec<(&'static str, String)> {
    let paths = orbit_local::LocalPaths::in_data_dir(data_dir);
    let Some(record) = orbit_local::server::warm_server(&paths) else {
        return vec![
            (
                "Base URL",
                "a llama-server on 127.0.0.1 started for this session".to_string(),
            ),
            ("Warm server", "none (each run starts its own)".to_string()),
        ];
    };
    let stops = match orbit_local::keep::idle_stop_in(&paths) {
        Some(secs) => format!("stops in {secs} s without use"),
        None => format!(
            "in use; stops {} s after the runs using it end",
            record.idle_timeout_secs
        ),
    };
    vec![
        ("Base URL", format!("http://127.0.0.1:{}", record.port)),
        ("Warm server", format!("pid {} · {stops}", record.pid)),
    ]
}

/// Shortest room kept for the cwd, in chars (less: the cwd is left out).
const CWD_MIN_CHARS: usize = 12;

/// The one status row at `width`: everything when it fits, else without
/// the cwd, then without the mode's key hint, then without the cost; the
/// model name is cut only when even that does not fit.
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
    let model = sanitize(&info.model, Mode::Cells);
    let name = match sanitize(&info.provider, Mode::Cells) {
        p if p.is_empty() => model.into_owned(),
        p => format!("{p} · {model}"),
    };
    let width = usize::from(width);
    let cost = format!(" · ${:.4}", info.cost_usd);
    let ctx = format!(" · ctx {pct}%");
    // Richest first: (cost, key hint) kept or not.
    let layouts = [(true, true), (true, false), (false, false)];
    let mut chosen = None;
    for (with_cost, with_hint) in layouts {
        let right_mode = format!(" · {mode}{}", if with_hint { " (⇧⇥)" } else { "" });
        let right_main = format!("{ctx}{}", if with_cost { cost.as_str() } else { "" });
        let used = name.chars().count() + right_main.chars().count() + right_mode.chars().count();
        chosen = Some((right_main, right_mode, used));
        if used <= width {
            break;
        }
    }
    let (right_main, right_mode, used) = chosen.unwrap_or_default();
    let right = right_main.chars().count() + right_mode.chars().count();
    let name = if used > width {
        truncate(&name, width.saturating_sub(right).max(1))
    } else {
        name
    };
    let room = width.saturating_sub(name.chars().count() + right + 3);
    let cwd = if room >= CWD_MIN_CHARS {
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
    Line::from(vec![
        Span::styled(name, t.accent()),
        Span::styled(cwd, t.dim()),
        Span::styled(right_main, t.dim()),
        Span::styled(right_mode, mode_style),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn info(provider: &str, model: &str, mode: PermissionMode) -> StatusInfo {
        StatusInfo {
            provider: provider.into(),
            model: model.into(),
            cwd: "/home/dev/projects/a-rather-long-project-name/sub".into(),
            mode,
            context_tokens: 4_000,
            context_window: 8_000,
            cost_usd: 0.0,
        }
    }

    fn text(line: &Line<'_>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    /// The provider and the whole model name are shown at 120 and at 60
    /// columns: the cwd, the key hint and the cost give way first.
    #[test]
    fn the_model_name_is_cut_last() {
        let long = "qwen2.5-coder-1.5b-instruct-q4_k_m";
        let t = Theme::new(false);
        let cases = [
            (120, long, PermissionMode::AcceptEdits, true, true),
            (80, long, PermissionMode::Default, false, true),
            (
                60,
                "qwen2.5-coder-1.5b",
                PermissionMode::AcceptEdits,
                false,
                false,
            ),
        ];
        for (width, long, mode, cwd_shown, hint_shown) in cases {
            let line = text(&status_line(&info("local", long, mode), t, width));
            assert!(
                line.chars().count() <= usize::from(width),
                "{width}: {line}"
            );
            assert!(
                line.starts_with(&format!("local · {long}")),
                "{width}: {line}"
            );
            assert!(line.contains("ctx 50%"), "{width}: {line}");
            assert_eq!(line.contains("/sub"), cwd_shown, "{width}: {line}");
            assert_eq!(line.contains("(⇧⇥)"), hint_shown, "{width}: {line}");
        }
        let narrow = text(&status_line(
            &info("local", long, PermissionMode::Plan),
            t,
            40,
        ));
        assert!(narrow.chars().count() <= 40, "{narrow}");
        assert!(
            narrow.contains("ctx 50%") && narrow.contains("plan"),
            "{narrow}"
        );
        let bare = text(&status_line(
            &info("", "m", PermissionMode::Default),
            t,
            100,
        ));
        assert!(bare.starts_with("m · /home"), "{bare}");
    }
}
