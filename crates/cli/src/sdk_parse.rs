//! How orbit's command line is parsed with the SDK's habits in mind: an SDK
//! session (`--input-format stream-json`) skips options orbit does not know
//! (one note each) instead of failing, `--permission-mode auto` runs as
//! `default`, and [`bypass_allowed`] says whether a later switch to
//! `bypassPermissions` is allowed. `main` calls [`parse_args`] once; the flag
//! definitions themselves are in [`crate::args`] and [`crate::sdk_args`].

use clap::Parser as _;

use crate::args::Args;

/// Whether an SDK session may switch to `bypassPermissions` later
/// (`set_permission_mode`): launched with `--allow-dangerously-skip-permissions`,
/// `--dangerously-skip-permissions` or `--permission-mode bypassPermissions`.
pub fn bypass_allowed(args: &Args) -> bool {
    args.sdk.allow_dangerously_skip_permissions
        || args.dangerously_skip_permissions
        || args.permission_mode == Some(crate::args::PermissionModeArg::BypassPermissions)
}

/// How many unknown options one SDK command line may carry before orbit
/// stops skipping them (a guard against a loop, not a real limit).
const MAX_SKIPPED_OPTIONS: usize = 64;

/// Parses orbit's command line. In an SDK session (`--input-format
/// stream-json`) an option orbit does not know is skipped with one note on
/// stderr instead of ending the run: a newer SDK adds options before orbit
/// knows them. `--flag=value` is one argument; a bare `--flag` also takes
/// the next argument when that does not start with `-` (an SDK session has
/// no positional prompt). An option close to a known one (clap suggests
/// it) is a typo and stays an error; so does any unknown option outside an
/// SDK session.
pub fn parse_args<I, T>(argv: I) -> Result<(Args, Vec<String>), clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let mut argv: Vec<std::ffi::OsString> = argv.into_iter().map(Into::into).collect();
    let sdk = is_sdk_session(&argv);
    let mut notes = Vec::new();
    if sdk && replace_auto_mode(&mut argv) {
        notes.push(
            "orbit: note: --permission-mode auto (Claude Code's classifier) is not available in orbit; \
             using default, where asks go to the SDK's callback"
                .to_string(),
        );
    }
    loop {
        let err = match Args::try_parse_from(&argv) {
            Ok(args) => return Ok((args, notes)),
            Err(err) => err,
        };
        // An option close to one orbit knows is a typo, not a newer SDK's
        // option: it stays an error (a misspelt `--disallowedTools` must
        // not run without its denials).
        if !sdk
            || err.kind() != clap::error::ErrorKind::UnknownArgument
            || err.get(clap::error::ContextKind::SuggestedArg).is_some()
            || notes.len() >= MAX_SKIPPED_OPTIONS
        {
            return Err(err);
        }
        let Some(clap::error::ContextValue::String(unknown)) =
            err.get(clap::error::ContextKind::InvalidArg)
        else {
            return Err(err);
        };
        let name = unknown.split('=').next().unwrap_or_default().to_string();
        let Some(at) = argv.iter().skip(1).position(|a| {
            a.to_str()
                .is_some_and(|a| a == name || a.starts_with(&format!("{name}=")))
        }) else {
            return Err(err);
        };
        let at = at + 1;
        let bare = argv[at].to_str().is_some_and(|a| !a.contains('='));
        let takes_next = bare
            && argv
                .get(at + 1)
                .and_then(|next| next.to_str())
                .is_some_and(|next| !next.starts_with('-'));
        argv.drain(at..at + 1 + usize::from(takes_next));
        notes.push(format!(
            "orbit: note: {name} is not an orbit option; ignored (an SDK session goes on without it)"
        ));
    }
}

/// The SDKs' `auto` permission mode, which orbit does not have, becomes
/// `default`; whether there was one.
fn replace_auto_mode(argv: &mut [std::ffi::OsString]) -> bool {
    let mut replaced = false;
    for i in 1..argv.len() {
        if argv[i] == "--permission-mode=auto" {
            argv[i] = "--permission-mode=default".into();
            replaced = true;
        } else if argv[i] == "auto" && argv[i - 1] == "--permission-mode" {
            argv[i] = "default".into();
            replaced = true;
        }
    }
    replaced
}

/// Whether the command line starts an SDK session (`--input-format
/// stream-json`, either spelling).
fn is_sdk_session(argv: &[std::ffi::OsString]) -> bool {
    argv.iter().enumerate().any(|(i, a)| {
        a == "--input-format=stream-json"
            || (a == "--input-format" && argv.get(i + 1).is_some_and(|v| v == "stream-json"))
    })
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::args::Args;

    /// The argv `claude-agent-sdk` 0.2.189 builds (`_build_command`) with
    /// most options set parses, and the unhonoured flags each get a note.
    #[test]
    fn the_sdks_argv_parses() {
        let argv = [
            "orbit",
            "--output-format",
            "stream-json",
            "--verbose",
            "--system-prompt",
            "",
            "--tools",
            "Bash,Read",
            "--allowedTools",
            "Read,Bash(git log:*)",
            "--max-turns",
            "3",
            "--max-budget-usd",
            "1.5",
            "--disallowedTools",
            "Write",
            "--task-budget",
            "1000",
            "--model",
            "claude-sonnet-4-5",
            "--fallback-model",
            "claude-haiku-4-5",
            "--betas",
            "context-1m-2025-08-07",
            "--permission-prompt-tool",
            "stdio",
            "--permission-mode",
            "acceptEdits",
            "--continue",
            "--settings",
            "{\"permissions\":{}}",
            "--add-dir",
            "/tmp",
            "--mcp-config",
            "{\"mcpServers\":{}}",
            "--include-partial-messages",
            "--include-hook-events",
            "--strict-mcp-config",
            "--fork-session",
            "--resume-session-at=abc",
            "--resume-drops-turn=def",
            "--session-mirror",
            "--setting-sources=user,project",
            "--plugin-dir",
            "/tmp/p",
            "--thinking",
            "adaptive",
            "--max-thinking-tokens",
            "4000",
            "--thinking-display",
            "summarized",
            "--effort",
            "high",
            "--json-schema",
            "{\"type\":\"object\"}",
            "--input-format",
            "stream-json",
        ];
        let args = Args::try_parse_from(argv).unwrap_or_else(|e| panic!("{e}"));
        assert!(args.sdk.stream_input());
        assert!(args.sdk.asks_over_stdio());
        // One note per flag not honoured (which ones changes as orbit
        // grows; --task-budget is one today).
        let notes = args.sdk.notes();
        assert_eq!(notes.len(), args.sdk.not_honoured().len(), "{notes:?}");
        assert!(
            notes.iter().any(|n| n.contains("--task-budget")),
            "{notes:?}"
        );
        // `--thinking adaptive` is only noted; the explicit budget is honoured.
        assert_eq!(args.sdk.thinking_budget(None).ok(), Some(Some(4000)));
        let plain = Args::try_parse_from(["orbit", "-p", "x"]).unwrap_or_else(|e| panic!("{e}"));
        assert!(!plain.sdk.stream_input() && plain.sdk.notes().is_empty());
    }

    /// In an SDK session an unknown option is skipped with one note (its
    /// value too: `--flag=value`, or `--flag value` when the value does
    /// not start with `-`); elsewhere it stays an error.
    #[test]
    fn an_sdk_session_skips_options_orbit_does_not_know() {
        let argv = [
            "orbit",
            "--output-format",
            "stream-json",
            "--new-flag",
            "its value",
            "--bare-new-flag",
            "--other-new=1",
            "--verbose",
            "--input-format=stream-json",
            "--allow-dangerously-skip-permissions",
            "--await-initialize",
            "--permission-prompts=none",
            "--permission-prompt-tool=stdio",
            "--permission-mode=auto",
        ];
        let (args, notes) = super::parse_args(argv).unwrap_or_else(|e| panic!("{e}"));
        assert!(args.verbose && args.sdk.stream_input());
        assert_eq!(notes.len(), 4, "{notes:?}");
        assert!(notes[0].contains("--permission-mode auto"), "{notes:?}");
        assert!(
            notes[1].contains("--new-flag is not an orbit option"),
            "{notes:?}"
        );
        assert!(notes[3].contains("--other-new "), "{notes:?}");
        assert_eq!(
            args.permission_mode,
            Some(crate::args::PermissionModeArg::Default)
        );
        // `--permission-prompts none`: nobody answers, so asks are denials.
        assert!(!args.sdk.asks_over_stdio());
        let plain = super::parse_args(["orbit", "-p", "x", "--new-flag"]);
        assert!(plain.is_err());
        // A misspelt known option stays an error in an SDK session too.
        let typo = super::parse_args([
            "orbit",
            "--input-format=stream-json",
            "--disalowedTools=Bash",
        ]);
        assert!(typo.is_err(), "{typo:?}");
    }

    #[test]
    fn the_thinking_budget_comes_from_the_flag_then_the_environment() {
        let parse = |extra: &[&str]| {
            let argv = ["orbit", "-p", "x"].iter().chain(extra).copied();
            Args::try_parse_from(argv).unwrap_or_else(|e| panic!("{e}"))
        };
        let budget = |extra: &[&str], env: Option<&str>| {
            parse(extra)
                .sdk
                .thinking_budget(env)
                .map_err(|e| e.to_string())
        };
        assert_eq!(budget(&[], None), Ok(None));
        assert_eq!(budget(&[], Some("2048")), Ok(Some(2048)));
        assert_eq!(
            budget(&["--max-thinking-tokens", "4000"], Some("2048")),
            Ok(Some(4000))
        );
        assert_eq!(
            budget(&["--max-thinking-tokens", "0"], Some("2048")),
            Ok(None)
        );
        assert_eq!(
            budget(
                &["--thinking", "disabled", "--max-thinking-tokens", "4000"],
                None
            ),
            Ok(None)
        );
        let low = budget(&["--max-thinking-tokens", "1000"], None);
        assert!(
            low.as_ref().is_err_and(|e| e.contains("minimum of 1024")),
            "{low:?}"
        );
        assert!(budget(&[], Some("many")).is_err());
    }
}
