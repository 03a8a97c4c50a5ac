//! `--include-hook-events`: Claude Code's `hook_started` stream-json line
//! as each command hook starts. (Its `hook_response` line, with the same
//! `hook_id`, is written for every run from the engine's `HookResponse`
//! event, with or without the flag.)
//!
//! Data flow: `orbit_hooks::Hooks` tells the [`HookLines`] observer when a
//! command hook starts → one line on stdout (`orbit_sdk::write_line`: the
//! whole line, flushed, under stdout's lock, so it never splits another
//! line). The shape is Claude Code 2.1.332's:
//!
//! ```json
//! {"type":"system","subtype":"hook_started","hook_id":"…","hook_name":"PreToolUse:Bash","hook_event":"PreToolUse","uuid":"…","session_id":"…"}
//! ```

use std::sync::Arc;

use orbit_hooks::{HookEvent, HookObserver};
use serde_json::json;

use crate::args::{Args, OutputFormat};

/// Writes the lines for one session.
struct HookLines {
    session_id: String,
}

/// The observer `--include-hook-events` asks for (stream-json only; with
/// another format the flag changes nothing, as in Claude Code).
pub fn observer(args: &Args, session_id: &str) -> Option<Arc<dyn HookObserver>> {
    (args.sdk.include_hook_events && args.output_format == OutputFormat::StreamJson).then(|| {
        Arc::new(HookLines {
            session_id: session_id.to_string(),
        }) as Arc<dyn HookObserver>
    })
}

impl HookObserver for HookLines {
    fn started(&self, hook_id: &str, hook_name: &str, event: HookEvent) {
        let _ = orbit_sdk::write_line(&json!({
            "type": "system",
            "subtype": "hook_started",
            "hook_id": hook_id,
            "hook_name": hook_name,
            "hook_event": event.name(),
            "uuid": uuid::Uuid::new_v4().to_string(),
            "session_id": self.session_id,
        }));
    }
}
