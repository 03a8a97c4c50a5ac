//! `orbit [PROMPT]` without `-p`: the interactive terminal UI
//! (`orbit-tui`). Builds the session through [`setup::prepare`] with the
//! UI's approver (its permission dialog) and hands it to the UI with a
//! [`SessionFactory`] that builds the sessions `/clear` and `/resume`
//! switch to from the same flags. Without a terminal on stdin and stdout
//! it stops with one clear error (no UI on a pipe). In an untrusted folder
//! whose settings carry what trust would enable, the UI asks "Trust this
//! folder?" first ([`TrustAsk`]). While the UI runs, stderr is
//! redirected into its scrollback ([`stderr_capture`]): warnings of this
//! set-up and of `/clear`'s and `/resume`'s ones included.

mod stderr_capture;

use std::io::IsTerminal;
use std::path::Path;

use anyhow::bail;
use orbit_config::Env;
use orbit_config::trust::Skipped;
use orbit_engine::SharedApprover;
use orbit_tui::{OpenedSession, SessionChoice, SessionFactory, TrustAsk, TuiOptions};

use crate::args::Args;
use crate::setup;

/// Runs the UI; the exit code is 0 when the person exits.
pub async fn run(args: Args, env: Env) -> anyhow::Result<u8> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        bail!(
            "interactive mode needs a terminal on stdin and stdout; run headless with `orbit -p \"PROMPT\"` (see `orbit --help`)"
        );
    }
    // Only a terminal's stderr (`2>file` keeps its file); not fatal:
    // without the pipe, stderr stays the terminal's.
    let started = std::io::stderr()
        .is_terminal()
        .then(stderr_capture::start)
        .transpose();
    let (capture, notices) = match started.map(Option::unzip) {
        Ok((capture, sink)) => (capture, sink),
        Err(err) => {
            tracing::debug!(%err, "stderr not redirected into the UI");
            (None, None)
        }
    };
    let (approver, inbox) = orbit_tui::approver();
    let factory = Factory {
        args: args.clone(),
        env: env.clone(),
        approver,
    };
    let (first, skipped) = factory.build(&args).map_err(anyhow::Error::msg)?;
    let data_dir = first.engine.config().data_dir.clone();
    let trust = trust_ask(&skipped, &first.engine.config().cwd, &data_dir);
    let options = TuiOptions {
        initial_prompt: args.prompt.clone(),
        inbox,
        sessions: Box::new(factory),
        history_file: Some(data_dir.join("history.jsonl")),
        home: env.get("HOME").map(std::path::PathBuf::from),
        color: env.get("NO_COLOR").is_none(),
        trust,
        notices,
    };
    let ran = orbit_tui::run(first, options).await;
    drop(capture);
    ran?;
    Ok(0)
}

/// Builds sessions from the run's flags with another session choice.
struct Factory {
    args: Args,
    env: Env,
    approver: SharedApprover,
}

/// "Trust this folder?" when the folder's settings carry what trust would
/// enable; yes records it in the trust store as `orbit trust` does.
fn trust_ask(skipped: &Skipped, cwd: &Path, data_dir: &Path) -> Option<TrustAsk> {
    if skipped.is_empty() {
        return None;
    }
    let would_enable = skipped
        .items
        .iter()
        .map(|(file, what)| format!("{what} ({file})"))
        .collect();
    let (dir, store) = (cwd.to_path_buf(), data_dir.to_path_buf());
    Some(TrustAsk {
        dir: cwd.to_path_buf(),
        would_enable,
        trust: Box::new(move || {
            orbit_config::trust::trust_folder(&store, &dir)
                .map(|_| ())
                .map_err(|err| err.to_string())
        }),
    })
}

impl Factory {
    fn build(&self, args: &Args) -> Result<(OpenedSession, Skipped), String> {
        let prepared = setup::prepare(args, &self.env, Some(self.approver.clone()))
            .map_err(|err| format!("{err:#}"))?;
        let mcp = prepared.mcp.map(|manager| {
            Box::new(move || {
                manager
                    .statuses()
                    .into_iter()
                    .map(|s| match &s.state {
                        orbit_mcp::ServerState::Failed(why) => {
                            format!("{} · failed: {why}", s.name)
                        }
                        state => format!("{} · {}", s.name, state.as_str()),
                    })
                    .collect()
            }) as orbit_tui::McpStatus
        });
        let on_close = crate::signals::kill_background_shells(prepared.engine.tool_context());
        let opened = OpenedSession {
            engine: prepared.engine,
            mcp,
            on_close: Some(Box::new(on_close)),
            commands: prepared.commands,
            status_line: prepared
                .status_line
                .as_ref()
                .and_then(orbit_tui::StatusLineConfig::from_value),
        };
        Ok((opened, prepared.trust_skipped))
    }
}

impl SessionFactory for Factory {
    fn open(&mut self, choice: SessionChoice) -> Result<OpenedSession, String> {
        let mut args = self.args.clone();
        args.continue_session = false;
        args.fork_session = false;
        args.session_id = None;
        args.resume = match choice {
            SessionChoice::New => None,
            SessionChoice::Resume(id) => Some(id),
        };
        self.build(&args).map(|(opened, _)| opened)
    }
}
