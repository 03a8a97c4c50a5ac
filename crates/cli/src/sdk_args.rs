//! The flags the Claude Agent SDK passes (its `subprocess_cli.py` builds the
//! argv): `--input-format stream-json` turns the run into an SDK session
//! ([`crate::sdk_session`]); the rest parse so the SDK never meets clap's
//! "unexpected argument". Flags orbit does not honour yet print one
//! `orbit: note: …` line on stderr each ([`SdkArgs::notes`]) and change
//! nothing.

use clap::{Args as ClapArgs, ValueEnum};

/// The API's smallest `budget_tokens`.
pub const MIN_THINKING_BUDGET: u32 = 1024;

/// `--input-format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum InputFormat {
    /// The prompt comes from `-p`/the argument/stdin as text.
    #[default]
    Text,
    /// JSON lines on stdin: user messages and control requests, for as long
    /// as stdin is open (needs `--output-format stream-json`).
    #[value(name = "stream-json")]
    StreamJson,
}

/// A flag's value says whether it was given: a value, one or more values,
/// or the switch.
trait Given {
    fn given(&self) -> bool;
}

impl Given for Option<String> {
    fn given(&self) -> bool {
        self.is_some()
    }
}

impl Given for Vec<String> {
    fn given(&self) -> bool {
        !self.is_empty()
    }
}

impl Given for bool {
    fn given(&self) -> bool {
        *self
    }
}

/// Declares [`NotHonoured`] from one list: each flag written once, as its
/// field, its type, its name and (for a flag with a value) the value's name;
/// all hidden from `--help`, and [`NotHonoured::given`] lists those given.
macro_rules! not_honoured_flags {
    ($($(#[doc = $doc:literal])* $field:ident: $ty:ty = $flag:literal $(($value:literal))?;)*) => {
        /// The SDK's flags orbit accepts but does not honour yet.
        #[derive(Debug, Clone, Default, ClapArgs)]
        pub struct NotHonoured {
            $(
                #[doc = concat!("`--", $flag, "`: accepted, not honoured yet.")]
                $(#[doc = $doc])*
                #[arg(long = $flag, $(value_name = $value,)? hide = true)]
                pub $field: $ty,
            )*
        }

        impl NotHonoured {
            /// The flags given (`--NAME`), in the order declared.
            pub fn given(&self) -> Vec<&'static str> {
                let mut given = Vec::new();
                $(
                    if self.$field.given() {
                        given.push(concat!("--", $flag));
                    }
                )*
                given
            }
        }
    };
}

not_honoured_flags! {
    task_budget: Option<String> = "task-budget" ("N");
    resume_session_at: Option<String> = "resume-session-at" ("ID");
    resume_drops_turn: Option<String> = "resume-drops-turn" ("ID");
    session_mirror: bool = "session-mirror";
    plugin_dir: Vec<String> = "plugin-dir" ("DIR");
    thinking_display: Option<String> = "thinking-display" ("MODE");
    channels: Vec<String> = "channels" ("NAME");
    project_config_root: Option<String> = "project-config-root" ("DIR");
    plugin_dir_no_mcp: Vec<String> = "plugin-dir-no-mcp" ("DIR");
    managed_settings: Option<String> = "managed-settings" ("JSON");
    /// The managed settings come in `initialize`.
    managed_settings_in_initialize: bool = "managed-settings-in-initialize";
    workload: Option<String> = "workload" ("NAME");
}

/// The SDK's flags (flattened into orbit's `Args`).
#[derive(Debug, Clone, Default, ClapArgs)]
pub struct SdkArgs {
    /// Input format: `text` (default) or `stream-json` (user messages and
    /// control requests as JSON lines on stdin; a multi-turn session).
    #[arg(long = "input-format", value_enum, default_value_t = InputFormat::Text)]
    pub input_format: InputFormat,

    /// stream-json input: echo each user message on stdout as it is taken.
    #[arg(long = "replay-user-messages")]
    pub replay_user_messages: bool,

    /// Who answers permission asks: `stdio` (the SDK's `can_use_tool`,
    /// over the control protocol) or an MCP tool's name (`mcp__S__T`), called
    /// with `{tool_name, input, tool_use_id}` and answering a JSON decision.
    #[arg(long = "permission-prompt-tool", value_name = "NAME")]
    pub permission_prompt_tool: Option<String>,

    /// stream-json: also emit `stream_event` lines, the model's raw API
    /// stream events as they arrive.
    #[arg(long = "include-partial-messages")]
    pub include_partial_messages: bool,
    /// Subagent definitions (`{"name": {"description", "prompt", "tools",
    /// "model"}}`) the `Agent` tool may start, listed in `system/init`.
    #[arg(long = "agents", value_name = "JSON")]
    pub agents: Option<String>,
    /// stream-json: also emit `hook_started` / `hook_response` lines for
    /// every command hook run (Claude Code's shapes).
    #[arg(long = "include-hook-events")]
    pub include_hook_events: bool,
    /// The model used for the rest of the session once the main model is
    /// overloaded (HTTP 529 / `overloaded_error` after the retries); a
    /// `system` `model_fallback` line says when. Must differ from `--model`.
    #[arg(long = "fallback-model", value_name = "M")]
    pub fallback_model: Option<String>,
    /// More `anthropic-beta` values (comma-separated) for the Anthropic
    /// provider, after `ANTHROPIC_BETAS`.
    #[arg(long = "betas", value_name = "LIST")]
    pub betas: Option<String>,
    /// `disabled` turns extended thinking off; `adaptive` is accepted but
    /// not honoured yet (a note says so).
    #[arg(long = "thinking", value_name = "MODE", hide = true)]
    pub thinking: Option<String>,
    /// Extended thinking with this token budget (Anthropic provider; 0 =
    /// off, else at least 1024); overrides `MAX_THINKING_TOKENS`.
    #[arg(long = "max-thinking-tokens", value_name = "N")]
    pub max_thinking_tokens: Option<u32>,
    /// Reasoning effort sent as `output_config.effort` (Anthropic provider):
    /// low, medium, high, xhigh, max or auto; `CLAUDE_CODE_EFFORT_LEVEL`
    /// wins, as in Claude Code.
    #[arg(long = "effort", value_name = "LEVEL")]
    pub effort: Option<String>,
    /// Lets the session use `bypassPermissions` (the TypeScript SDK passes
    /// it with that mode); orbit does not gate the mode behind it.
    #[arg(long = "allow-dangerously-skip-permissions", hide = true)]
    pub allow_dangerously_skip_permissions: bool,
    /// The SDK sends fields in `initialize` and waits for its answer; orbit
    /// always reads `initialize` first in an SDK session.
    #[arg(long = "await-initialize", hide = true)]
    pub await_initialize: bool,
    /// Which fields come in `initialize` (orbit reads them all anyway).
    #[arg(long = "initialize-fields", value_name = "LIST", hide = true)]
    pub initialize_fields: Option<String>,
    /// `none`: nobody answers permission asks (an ask is a denial; the SDK's
    /// `canUseTool` is never called); `host` (default): the SDK does.
    #[arg(long = "permission-prompts", value_name = "WHO", hide = true)]
    pub permission_prompts: Option<String>,
    /// Runs the main session as this agent (its system prompt, tools and
    /// model; see `orbit-agents`).
    #[arg(long = "agent", value_name = "NAME", hide = true)]
    pub agent: Option<String>,
    /// The flags accepted but not honoured yet.
    #[command(flatten)]
    pub not_honoured: NotHonoured,
}

impl SdkArgs {
    /// Whether stdin carries the SDK's JSON lines.
    pub fn stream_input(&self) -> bool {
        self.input_format == InputFormat::StreamJson
    }

    /// The MCP tool that answers asks (`--permission-prompt-tool NAME`,
    /// any name but `stdio`).
    pub fn prompt_tool(&self) -> Option<&str> {
        self.permission_prompt_tool
            .as_deref()
            .filter(|name| *name != "stdio" && !self.nobody_answers())
    }

    /// Whether asks go to the SDK's `can_use_tool` callback (not with
    /// `--permission-prompts none`: then an ask is a denial).
    pub fn asks_over_stdio(&self) -> bool {
        self.permission_prompt_tool.as_deref() == Some("stdio") && !self.nobody_answers()
    }

    /// `--permission-prompts none`: no one answers permission asks.
    pub fn nobody_answers(&self) -> bool {
        self.permission_prompts.as_deref() == Some("none")
    }

    /// The agent names `--agents` defines (a JSON object keyed by name).
    pub fn agent_names(&self) -> anyhow::Result<Vec<String>> {
        let Some(text) = &self.agents else {
            return Ok(Vec::new());
        };
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| anyhow::anyhow!("--agents is not valid JSON: {e}"))?;
        match value {
            serde_json::Value::Object(map) => Ok(map.keys().cloned().collect()),
            _ => anyhow::bail!("--agents must be a JSON object of agent definitions"),
        }
    }

    /// The thinking budget: `--thinking disabled` → off, else
    /// `--max-thinking-tokens`, else `MAX_THINKING_TOKENS` (`env_value`);
    /// 0 → off. A budget under the API's minimum of 1024 is an error.
    pub fn thinking_budget(&self, env_value: Option<&str>) -> anyhow::Result<Option<u32>> {
        if self.thinking.as_deref() == Some("disabled") {
            return Ok(None);
        }
        let budget = match (self.max_thinking_tokens, env_value) {
            (Some(n), _) => n,
            (None, Some(text)) => text.trim().parse().map_err(|_| {
                anyhow::anyhow!("MAX_THINKING_TOKENS={text} is not a number of tokens")
            })?,
            (None, None) => return Ok(None),
        };
        match budget {
            0 => Ok(None),
            n if n < MIN_THINKING_BUDGET => anyhow::bail!(
                "a thinking budget of {n} tokens is below the API's minimum of {MIN_THINKING_BUDGET} \
                 (--max-thinking-tokens / MAX_THINKING_TOKENS: 0 turns thinking off)"
            ),
            n => Ok(Some(n)),
        }
    }

    /// The flags given that orbit accepts but does not honour yet (`--thinking`
    /// with any mode but `disabled` among them).
    pub fn not_honoured(&self) -> Vec<&'static str> {
        let mut given = self.not_honoured.given();
        if self.thinking.as_deref().is_some_and(|m| m != "disabled") {
            given.push("--thinking");
        }
        given
    }

    /// One note per flag given that orbit accepts but does not honour yet.
    pub fn notes(&self) -> Vec<String> {
        self.not_honoured()
            .iter()
            .map(|flag| format!("orbit: note: {flag} is accepted but not honoured yet"))
            .collect()
    }
}
