//! Command-line flags (DESIGN §7), spelled as Claude Code spells them so
//! existing scripts keep working.
//!
//! `Args` is parsed once in `main`; [`Args::prompt`] resolves where the prompt
//! comes from (the `-p` value or a positional argument, plus piped stdin; or
//! stdin alone, see [`crate::stdin`]) and [`Args::allowed_tool_rules`] /
//! [`Args::disallowed_tool_rules`] split `--allowedTools`/`--disallowedTools`
//! values. [`Args::overrides`] hands the flags that have other layers
//! (environment, settings files) to `orbit_config`, which resolves them.

use std::path::PathBuf;

use anyhow::bail;
use clap::{Parser, ValueEnum};
use orbit_config::{Overrides, ProviderKind};
use orbit_permissions::{PermissionMode, parse_rule_list};

#[derive(Debug, Clone, Parser)]
#[command(
    name = "orbit",
    version,
    disable_version_flag = true,
    about = "orbit: a fast terminal coding agent (Claude Code's tool-use loop in Rust)",
    after_help = "Example: orbit -p \"What does src/main.rs do?\" --output-format stream-json"
)]
pub struct Args {
    /// Run headless: answer PROMPT and exit. Without a value (or with `-`)
    /// the prompt is the positional argument or, failing that, stdin. With a
    /// prompt, piped stdin is appended after a newline (`PROMPT\nSTDIN`).
    #[arg(short = 'p', long = "print", value_name = "PROMPT", num_args = 0..=1, default_missing_value = "-")]
    pub print: Option<String>,

    /// The prompt, when not given as the value of `-p`; without `-p`, the
    /// interactive UI's first prompt.
    #[arg(value_name = "PROMPT")]
    pub prompt: Option<String>,

    /// How results are written to stdout.
    #[arg(long = "output-format", value_enum, default_value_t = OutputFormat::Text)]
    pub output_format: OutputFormat,

    /// stream-json: also emit `{"type":"system","subtype":"tool_progress"}` lines.
    #[arg(long)]
    pub verbose: bool,

    /// Stop after N model calls (`error_max_turns`).
    #[arg(long = "max-turns", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,

    /// Stop once the run has cost more than X US dollars (`error_max_budget_usd`).
    #[arg(long = "max-budget-usd", value_name = "X")]
    pub max_budget_usd: Option<f64>,

    /// Model id, or an alias: sonnet, opus, haiku (Anthropic provider).
    /// Default: ANTHROPIC_MODEL / OPENAI_MODEL, else `model` in settings.
    #[arg(long, value_name = "M")]
    pub model: Option<String>,

    /// Maximum output tokens per model call. Default: 32000 (1024 in the
    /// small-model profile).
    #[arg(long = "max-tokens", value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_tokens: Option<u32>,

    /// Permission mode for tool calls. Default: `permissions.defaultMode`
    /// in settings, else `default`.
    #[arg(long = "permission-mode", value_enum, value_name = "MODE")]
    pub permission_mode: Option<PermissionModeArg>,

    /// OS sandbox of Bash commands. Default: ORBIT_SANDBOX, else
    /// `sandbox.mode` in settings, else `workspace-write` (`read-only` in
    /// plan mode, none with bypassPermissions).
    #[arg(long, value_name = "MODE", value_parser = ["read-only", "workspace-write", "danger-full-access"])]
    pub sandbox: Option<String>,

    /// Same as `--permission-mode bypassPermissions`.
    #[arg(long = "dangerously-skip-permissions")]
    pub dangerously_skip_permissions: bool,

    /// Tools (or rules such as `Bash(git log:*)`) allowed without asking;
    /// comma or space separated, several values (as Claude Code's: the
    /// prompt goes first or after `-p`), repeatable.
    #[arg(
        long = "allowedTools",
        visible_alias = "allowed-tools",
        value_name = "TOOLS",
        num_args = 1..
    )]
    pub allowed_tools: Vec<String>,

    /// Tools (or rules) that are always denied; comma or space separated,
    /// several values, repeatable.
    #[arg(
        long = "disallowedTools",
        visible_alias = "disallowed-tools",
        value_name = "TOOLS",
        num_args = 1..
    )]
    pub disallowed_tools: Vec<String>,

    /// The built-in tools the model is offered: tool names (`Read,Bash`,
    /// comma or space separated, several values), `default` for all of
    /// them, `""` for none. MCP tools are not affected.
    #[arg(long = "tools", value_name = "TOOLS", num_args = 1..)]
    pub tools: Option<Vec<String>>,

    /// Replace the default system prompt.
    #[arg(long = "system-prompt", value_name = "S")]
    pub system_prompt: Option<String>,

    /// Append text to the system prompt (default or `--system-prompt`).
    #[arg(long = "append-system-prompt", value_name = "S")]
    pub append_system_prompt: Option<String>,

    /// Replace the default system prompt with the contents of this file.
    #[arg(
        long = "system-prompt-file",
        value_name = "PATH",
        conflicts_with = "system_prompt"
    )]
    pub system_prompt_file: Option<PathBuf>,

    /// Append the contents of this file to the system prompt.
    #[arg(
        long = "append-system-prompt-file",
        value_name = "PATH",
        conflicts_with = "append_system_prompt"
    )]
    pub append_system_prompt_file: Option<PathBuf>,

    /// The final answer must match this JSON Schema (inline JSON or a file
    /// path): the model answers through a `StructuredOutput` tool, and the
    /// result carries the validated value as `structured_output`.
    #[arg(long = "json-schema", value_name = "SCHEMA")]
    pub json_schema: Option<String>,

    /// Working directory for the session (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    /// Another directory Bash may `cd` into and stay in (repeatable). Without
    /// it, a `cd` out of the working directory is undone after the command.
    #[arg(long = "add-dir", value_name = "DIR")]
    pub add_dir: Vec<PathBuf>,

    /// Model provider. Default: ORBIT_PROVIDER, else the API keys / base URLs
    /// set in the environment, else `provider` in settings, else the local
    /// model (set up on first use; see `orbit local --help`).
    #[arg(long, value_enum, value_name = "PROVIDER")]
    pub provider: Option<ProviderArg>,

    /// One more settings file, or inline JSON (`{"model": "opus"}`), above
    /// the local, project and user settings files.
    #[arg(long, value_name = "FILE|JSON")]
    pub settings: Option<String>,

    /// Which settings files load: a comma-separated list of user, project,
    /// local (default: all three; managed settings and --settings always load).
    #[arg(long = "setting-sources", value_name = "LIST")]
    pub setting_sources: Option<String>,

    /// Trust this project folder for this run: its settings files' hooks,
    /// env, allow rules and MCP servers apply (`orbit trust` remembers it).
    #[arg(long = "trust-project")]
    pub trust_project: bool,
    /// MCP servers from a file or inline JSON (`{"mcpServers": {…}}`, as
    /// `.mcp.json`); repeatable.
    #[arg(long = "mcp-config", value_name = "FILE|JSON")]
    pub mcp_config: Vec<String>,

    /// Use only the `--mcp-config` servers (not `.mcp.json` nor settings).
    #[arg(long = "strict-mcp-config")]
    pub strict_mcp_config: bool,

    /// Debug logging on stderr (orbit's crates at debug level), optionally
    /// only some categories, as Claude Code's `--debug [filter]`:
    /// `-d hooks,mcp`, `-d '!hooks'`, or orbit crate names (`orbit_model`).
    /// `ORBIT_LOG` takes an env-filter instead, e.g. `ORBIT_LOG=orbit_model=trace`.
    #[arg(short = 'd', long, value_name = "FILTER", num_args = 0..=1, default_missing_value = "")]
    pub debug: Option<String>,

    /// Write the debug log to PATH (appended) instead of stderr; implies `--debug`.
    #[arg(long = "debug-file", value_name = "PATH")]
    pub debug_file: Option<PathBuf>,

    /// Continue the most recent session of this directory (`-p` gives the
    /// next prompt).
    #[arg(short = 'c', long = "continue", conflicts_with = "resume")]
    pub continue_session: bool,

    /// Resume the session with this id (a UUID; `orbit sessions` lists
    /// them) or this name (given with `--name`).
    #[arg(short = 'r', long = "resume", value_name = "ID")]
    pub resume: Option<String>,

    /// A name for this session (`orbit sessions` shows it; `--resume NAME`
    /// finds it).
    #[arg(short = 'n', long = "name", value_name = "NAME")]
    pub name: Option<String>,

    /// Use this id (a UUID) for the new session; an error if a session has it.
    #[arg(long = "session-id", value_name = "UUID")]
    pub session_id: Option<String>,

    /// With --resume or --continue: go on in a new session (a new id),
    /// leaving the original transcript as it was.
    #[arg(long = "fork-session")]
    pub fork_session: bool,

    /// Write no transcript: the session cannot be resumed.
    #[arg(long = "no-session-persistence")]
    pub no_session_persistence: bool,

    /// The Claude Agent SDK's flags (`--input-format stream-json`, …).
    #[command(flatten)]
    pub sdk: crate::sdk_args::SdkArgs,

    /// Print the version and exit.
    #[arg(short = 'v', long = "version", short_alias = 'V', action = clap::ArgAction::Version)]
    pub version: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
    #[value(name = "stream-json")]
    StreamJson,
}

/// `--provider` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProviderArg {
    Anthropic,
    Openai,
    Local,
}

impl From<ProviderArg> for ProviderKind {
    fn from(arg: ProviderArg) -> Self {
        match arg {
            ProviderArg::Anthropic => ProviderKind::Anthropic,
            ProviderArg::Openai => ProviderKind::Openai,
            ProviderArg::Local => ProviderKind::Local,
        }
    }
}

/// `--permission-mode` values, in Claude Code's camelCase spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PermissionModeArg {
    #[value(name = "default")]
    Default,
    #[value(name = "acceptEdits")]
    AcceptEdits,
    #[value(name = "plan")]
    Plan,
    #[value(name = "bypassPermissions")]
    BypassPermissions,
    /// Whatever would ask is denied (Claude Code's `dontAsk`).
    #[value(name = "dontAsk")]
    DontAsk,
}

impl Args {
    /// The permission mode the flags ask for (`--dangerously-skip-permissions`
    /// wins); None when neither flag is given.
    pub fn permission_mode(&self) -> Option<PermissionMode> {
        if self.dangerously_skip_permissions {
            return Some(PermissionMode::BypassPermissions);
        }
        self.permission_mode.map(|mode| match mode {
            PermissionModeArg::Default => PermissionMode::Default,
            PermissionModeArg::AcceptEdits => PermissionMode::AcceptEdits,
            PermissionModeArg::Plan => PermissionMode::Plan,
            PermissionModeArg::BypassPermissions => PermissionMode::BypassPermissions,
            PermissionModeArg::DontAsk => PermissionMode::DontAsk,
        })
    }

    /// The flags `orbit_config` weighs against the environment and the
    /// settings files; `cwd` is the session's working directory.
    pub fn overrides(&self, cwd: PathBuf) -> Overrides {
        Overrides {
            provider: self.provider.map(ProviderKind::from),
            model: self.model.clone(),
            permission_mode: self.permission_mode(),
            add_dirs: self.add_dir.clone(),
            sandbox: self.sandbox.clone(),
            cwd,
            trust_project: self.trust_project,
            effort: self.sdk.effort.clone(),
        }
    }

    /// Resolves the prompt: the `-p` value, else the positional argument
    /// (either followed by piped stdin), else stdin (when it is not a
    /// terminal). Errors name what is missing.
    pub fn prompt(&self) -> anyhow::Result<String> {
        let prompt = match self.given_prompt()? {
            Some(p) => crate::stdin::with_piped_input(p.to_string())?,
            None => crate::stdin::read_prompt()?,
        };
        if prompt.trim().is_empty() {
            bail!("the prompt is empty; pass it as `orbit -p \"PROMPT\"` or on stdin");
        }
        Ok(prompt)
    }

    /// The prompt given on the command line; None when it is to be read
    /// from stdin. Reads nothing.
    pub fn given_prompt(&self) -> anyhow::Result<Option<&str>> {
        let Some(print) = self.print.as_deref() else {
            bail!(
                "no -p: the interactive UI takes the prompt; run headless with `orbit -p \"PROMPT\"` (see `orbit --help`)"
            );
        };
        Ok(match (print, self.prompt.as_deref()) {
            ("-", None) | ("-", Some("-")) => None,
            ("-", Some(p)) => Some(p),
            (p, None) => Some(p),
            (_, Some(_)) => {
                bail!("the prompt was given twice (as the value of -p and as an argument)")
            }
        })
    }

    /// `--allowedTools` values split into single rules.
    pub fn allowed_tool_rules(&self) -> Vec<String> {
        single_rules(&self.allowed_tools)
    }

    /// `--disallowedTools` values split into single rules.
    pub fn disallowed_tool_rules(&self) -> Vec<String> {
        single_rules(&self.disallowed_tools)
    }
}

/// A rule-list flag's values (each comma or space separated) as one list
/// of rules.
fn single_rules(values: &[String]) -> Vec<String> {
    values.iter().flat_map(|v| parse_rule_list(v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(argv: &[&str]) -> Args {
        match Args::try_parse_from(argv) {
            Ok(a) => a,
            Err(e) => panic!("parse failed: {e}"),
        }
    }

    #[test]
    fn allowed_tools_repeatable_with_both_spellings() {
        let a = parse(&[
            "orbit",
            "-p",
            "x",
            "--allowedTools",
            "Read,Bash",
            "--allowed-tools",
            "Edit",
        ]);
        assert_eq!(a.allowed_tool_rules(), vec!["Read", "Bash", "Edit"]);
        let a = parse(&["orbit", "-p", "x", "--disallowed-tools", "Bash Write"]);
        assert_eq!(a.disallowed_tool_rules(), vec!["Bash", "Write"]);
    }

    #[test]
    fn prompt_from_print_value_or_positional() {
        let given = |argv: &[&str]| {
            parse(argv)
                .given_prompt()
                .ok()
                .flatten()
                .map(str::to_string)
        };
        assert_eq!(given(&["orbit", "-p", "hello"]).as_deref(), Some("hello"));
        assert_eq!(
            given(&["orbit", "-p", "--verbose", "hello"]).as_deref(),
            Some("hello")
        );
        assert_eq!(
            given(&["orbit", "--print", "-", "hi"]).as_deref(),
            Some("hi")
        );
        assert!(matches!(parse(&["orbit", "-p"]).given_prompt(), Ok(None)));
        assert!(parse(&["orbit", "-p", "a", "b"]).given_prompt().is_err());
        assert!(parse(&["orbit", "hello"]).given_prompt().is_err());
    }

    #[test]
    fn permission_modes_use_claude_code_spellings() {
        let a = parse(&["orbit", "-p", "x", "--permission-mode", "acceptEdits"]);
        assert_eq!(a.permission_mode(), Some(PermissionMode::AcceptEdits));
        let a = parse(&["orbit", "-p", "x", "--dangerously-skip-permissions"]);
        assert_eq!(a.permission_mode(), Some(PermissionMode::BypassPermissions));
        assert_eq!(parse(&["orbit", "-p", "x"]).permission_mode(), None);
        assert!(Args::try_parse_from(["orbit", "-p", "x", "--permission-mode", "yolo"]).is_err());
    }

    #[test]
    fn overrides_carry_only_the_flags_given() {
        let o = parse(&["orbit", "-p", "x"]).overrides(PathBuf::from("/w"));
        assert_eq!(o.model, None);
        assert_eq!(o.provider, None);
        assert_eq!(o.permission_mode, None);
        assert_eq!(o.cwd, PathBuf::from("/w"));
        let a = parse(&[
            "orbit",
            "-p",
            "x",
            "--model",
            "opus",
            "--provider",
            "openai",
            "--add-dir",
            "d",
            "--settings",
            "{}",
            "--setting-sources",
            "user",
        ]);
        let o = a.overrides(PathBuf::from("/w"));
        assert_eq!(o.model.as_deref(), Some("opus"));
        assert_eq!(o.provider, Some(ProviderKind::Openai));
        assert_eq!(o.add_dirs, vec![PathBuf::from("d")]);
        assert_eq!(a.settings.as_deref(), Some("{}"));
        assert_eq!(a.setting_sources.as_deref(), Some("user"));
    }
}
