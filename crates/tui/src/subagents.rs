//! Running subagents as the UI shows them: one live line per `Agent` call
//! — its description, the subagent's type, the tool it runs now and how
//! many it ran — and, while full output is on (Ctrl-O), its latest calls
//! under it.
//!
//! Data flow: the `Agent` tool reports each of its subagent's messages as
//! the call's progress (`EngineEvent::ToolProgress` whose data holds the
//! subagent's own event under [`SUBAGENT_EVENT_KEY`]); the screen hands
//! them to [`Subagents::on_progress`]: an assistant message's tool_use
//! blocks become the current tool, a user message of tool results ends it.
//! The call's `ToolResult` (or the turn's end) drops the entry. Knows
//! tools only by the shape of their input (see `crate::tools::subject`).

use orbit_protocol::{ContentBlock, EngineEvent};
use orbit_tool::subagent::SUBAGENT_EVENT_KEY;
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::theme::Theme;
use crate::tools::subject;

/// A subagent's calls kept for the expanded view.
const RECENT_CALLS: usize = 5;

/// One running subagent.
#[derive(Debug, Clone, Default)]
struct Running {
    /// Its type (`subagent_type`).
    kind: String,
    /// The tools its last reply called, `Name(subject)`, until their results.
    current: Vec<String>,
    /// Tool calls so far.
    tool_uses: usize,
    /// Its latest calls, oldest first.
    recent: Vec<String>,
}

/// The running subagents of the turn, by their `Agent` call's id.
#[derive(Debug, Default)]
pub(crate) struct Subagents {
    running: Vec<(String, Running)>,
}

impl Subagents {
    /// A progress report of call `call_id`; false when it is not a
    /// subagent's (other tools' progress).
    pub(crate) fn on_progress(&mut self, call_id: &str, data: &Value) -> bool {
        let Some(raw) = data.get(SUBAGENT_EVENT_KEY) else {
            return false;
        };
        let at = match self.running.iter().position(|(id, _)| id == call_id) {
            Some(at) => at,
            None => {
                self.running.push((call_id.to_string(), Running::default()));
                self.running.len() - 1
            }
        };
        let entry = &mut self.running[at].1;
        if let Some(kind) = data.get("subagent_type").and_then(Value::as_str) {
            entry.kind = kind.to_string();
        }
        match serde_json::from_value::<EngineEvent>(raw.clone()) {
            Ok(EngineEvent::AssistantMessage { message, .. }) => {
                let calls: Vec<String> = message
                    .content
                    .iter()
                    .filter_map(|block| match block {
                        ContentBlock::ToolUse(t) => {
                            Some(format!("{}({})", t.name, subject(&t.input)))
                        }
                        _ => None,
                    })
                    .collect();
                entry.tool_uses += calls.len();
                entry.recent.extend(calls.iter().cloned());
                let extra = entry.recent.len().saturating_sub(RECENT_CALLS);
                entry.recent.drain(..extra);
                entry.current = calls;
            }
            Ok(EngineEvent::UserMessage { message, .. })
                if message
                    .content
                    .iter()
                    .any(|b| matches!(b, ContentBlock::ToolResult(_))) =>
            {
                entry.current.clear();
            }
            _ => {}
        }
        true
    }

    /// The call's result arrived: its subagent is done.
    pub(crate) fn finish(&mut self, call_id: &str) {
        self.running.retain(|(id, _)| id != call_id);
    }

    /// The turn ended.
    pub(crate) fn clear(&mut self) {
        self.running.clear();
    }

    /// The live rows of call `call_id` when it runs a subagent: one line
    /// (`◌ Agent(description) · type · Tool(subject) · N tool uses`), and
    /// its latest calls under it when `expanded`.
    pub(crate) fn lines(
        &self,
        call_id: &str,
        description: &str,
        expanded: bool,
        t: Theme,
    ) -> Option<Vec<Line<'static>>> {
        let (_, run) = self.running.iter().find(|(id, _)| id == call_id)?;
        let now = if run.current.is_empty() {
            "thinking…".to_string()
        } else {
            run.current.join(", ")
        };
        let uses = match run.tool_uses {
            1 => "1 tool use".to_string(),
            n => format!("{n} tool uses"),
        };
        let mut out = vec![Line::from(vec![
            Span::styled("◌ ", t.warn()),
            Span::styled("Agent", t.bold()),
            Span::styled(format!("({description})"), t.plain()),
            Span::styled(format!(" · {} · ", run.kind), t.dim()),
            Span::styled(now, t.plain()),
            Span::styled(format!(" · {uses}"), t.dim()),
        ])];
        if expanded {
            for call in &run.recent {
                out.push(Line::from(Span::styled(format!("    ⎿ {call}"), t.dim())));
            }
        }
        Some(out)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn progress(event: Value) -> Value {
        json!({SUBAGENT_EVENT_KEY: event, "agent_id": "a1", "subagent_type": "finder"})
    }

    fn text(lines: &[Line<'static>]) -> String {
        lines
            .iter()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| s.content.as_ref())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A tool_use makes the current tool; its result ends it; the count
    /// and the expanded list keep it; the call's result drops the line.
    #[test]
    fn the_live_line_follows_the_subagent_s_tools() {
        let mut s = Subagents::default();
        assert!(!s.on_progress("toolu_1", &json!({"stdout": "x"})));
        let assistant = json!({"type": "assistant_message", "uuid": "u", "message_id": null,
            "model": "m", "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 1},
            "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "echo hi"}}]}});
        assert!(s.on_progress("toolu_1", &progress(assistant)));
        let theme = Theme::new(false);
        let line = text(&s.lines("toolu_1", "find it", false, theme).unwrap());
        assert_eq!(
            line,
            "◌ Agent(find it) · finder · Bash(echo hi) · 1 tool use"
        );
        let results = json!({"type": "user_message", "uuid": "u2", "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t", "content": "hi"}]}});
        assert!(s.on_progress("toolu_1", &progress(results)));
        let expanded = text(&s.lines("toolu_1", "find it", true, theme).unwrap());
        assert_eq!(
            expanded,
            "◌ Agent(find it) · finder · thinking… · 1 tool use\n    ⎿ Bash(echo hi)"
        );
        s.finish("toolu_1");
        assert!(s.lines("toolu_1", "find it", false, theme).is_none());
    }
}
