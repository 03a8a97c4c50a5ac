//! [`Config::resolve`]: each value from the first layer that sets it.
//!
//! | value | precedence |
//! |---|---|
//! | data dir | `ORBIT_HOME` > `$HOME/.orbit` ([`crate::data_dir`]) |
//! | provider | `--provider` > `ORBIT_PROVIDER` > credentials in the env (Anthropic's, then OpenAI's) > `provider` in settings > local |
//! | model | `--model` > `ANTHROPIC_MODEL` / `OPENAI_MODEL` > `model` in settings > default (none for local); Anthropic aliases as Claude Code resolves them ([`crate::model_choice`]) |
//! | effort, thinking, small fast model, output limit | [`crate::model_choice`]; `CLAUDE_CODE_MAX_OUTPUT_TOKENS` |
//! | permission mode | `--permission-mode` > `permissions.defaultMode` in settings > `default` |
//! | directories | `--add-dir`, then every file's `permissions.additionalDirectories` |
//! | limits | env only (`ORBIT_MAX_TOOL_USE_CONCURRENCY`, …) > the engine's defaults |
//!
//! | trust | `--trust-project` > `trustedFolders` in user/managed/flag settings > the trust store ([`crate::trust`]) |
//!
//! In an untrusted folder the project-scope files are read through
//! `trust::untrusted_view` first (no hooks, env, allow rules, …).
//!
//! "The env" is the process environment with the settings' `env` maps
//! applied ([`Env::with_settings`]).

use std::path::PathBuf;

use orbit_hooks::HookSet;
use orbit_model::catalog;
use orbit_permissions::PermissionMode;

use crate::env::{Env, data_dir};
use crate::error::ConfigError;
use crate::model_choice;
use crate::origin::{Origin, Sourced};
use crate::settings::{PermissionSettings, Settings, settings_path};
use crate::trust::{Skipped, trust_reason, untrusted_view};
use crate::vars::{self, *};

/// Model of the anthropic provider when nothing sets one (the model
/// catalog's).
pub const DEFAULT_MODEL: &str = catalog::default_model(catalog::Provider::Anthropic);
/// The alias the anthropic provider's default model is (Claude Code's).
const DEFAULT_MODEL_ALIAS: &str = "default";
/// Model of the openai provider when nothing sets one (the model catalog's).
pub const DEFAULT_OPENAI_MODEL: &str = catalog::default_model(catalog::Provider::OpenAi);

/// Model aliases of the anthropic provider (in `--model`, `ANTHROPIC_MODEL`
/// and settings) → the current model id of each family: the model
/// catalog's.
pub const MODEL_ALIASES: [(&str, &str); catalog::ALIASES.len()] = catalog::ALIASES;

/// The model id for an alias (ASCII case-insensitive) as the catalog has it
/// (no `ANTHROPIC_DEFAULT_*_MODEL` override); other names as given.
pub fn resolve_model_alias(model: &str) -> &str {
    catalog::resolve_alias(model)
}

/// The model providers orbit has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// The Anthropic Messages API (or a compatible server).
    Anthropic,
    /// An OpenAI-compatible chat-completions server.
    Openai,
    /// orbit's local llama.cpp model.
    Local,
}

impl ProviderKind {
    /// Every provider.
    pub const ALL: [ProviderKind; 3] = [
        ProviderKind::Anthropic,
        ProviderKind::Openai,
        ProviderKind::Local,
    ];

    /// `anthropic`, `openai` or `local`.
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Openai => "openai",
            ProviderKind::Local => "local",
        }
    }

    /// The provider called `name` (trimmed, any case).
    pub fn from_name(name: &str) -> Option<Self> {
        let name = name.trim();
        Self::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name))
    }

    fn parse(value: &str, origin: &str) -> Result<Self, ConfigError> {
        Self::from_name(value).ok_or_else(|| ConfigError::UnknownProvider {
            origin: origin.to_string(),
            value: value.trim().to_ascii_lowercase(),
        })
    }
}

/// What the command line sets: the CLI fills this from its flags (None /
/// empty = the flag was not given).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `--provider`.
    pub provider: Option<ProviderKind>,
    /// `--model`.
    pub model: Option<String>,
    /// `--permission-mode` (`--dangerously-skip-permissions` =
    /// `bypassPermissions`).
    pub permission_mode: Option<PermissionMode>,
    /// `--add-dir`, as given.
    pub add_dirs: Vec<PathBuf>,
    /// `--sandbox`, as given.
    pub sandbox: Option<String>,
    /// The session's working directory: relative
    /// `additionalDirectories` of settings files are taken from here.
    pub cwd: PathBuf,
    /// `--trust-project`: the project's settings apply in full.
    pub trust_project: bool,
    /// `--effort`, as given.
    pub effort: Option<String>,
}

/// The one typed configuration of a run.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where orbit keeps its data ([`crate::data_dir`]).
    pub data_dir: PathBuf,
    /// The environment every later lookup uses: the process environment
    /// with the settings' `env` maps applied. orbit-model's constructors
    /// take it as `from_lookup(config.env.lookup())`.
    pub env: Env,
    /// Which provider runs.
    pub provider: Sourced<ProviderKind>,
    /// The model id sent (aliases resolved for anthropic); None for the
    /// local provider, which names its own model.
    pub model: Option<Sourced<String>>,
    /// The permission mode.
    pub permission_mode: Sourced<PermissionMode>,
    /// `--add-dir` values (as given), then settings directories (made
    /// absolute; `~/` is the home directory). Not checked for existence.
    pub additional_directories: Vec<Sourced<PathBuf>>,
    /// Permission rules of the settings files, each with its file (the
    /// CLI adds them to the session's policy).
    pub permissions: PermissionSettings,
    /// `ORBIT_MAX_TOOL_USE_CONCURRENCY` (else Claude Code's name); None =
    /// the engine's default.
    pub max_tool_use_concurrency: Option<usize>,
    /// `ORBIT_TOOL_RESULT_BUDGET_CHARS`; None = the engine's default.
    pub tool_result_budget_chars: Option<usize>,
    /// `ORBIT_OPENAI_FENCED_TOOL_CALLS` for the openai provider.
    pub openai_fenced_tool_calls: bool,
    /// `ORBIT_CONTEXT_WINDOW`, in tokens; None = the engine's table.
    pub context_window: Option<usize>,
    /// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`, a percentage in (0, 100]; None =
    /// the engine's default threshold.
    pub autocompact_pct: Option<f64>,
    /// `MAX_STRUCTURED_OUTPUT_RETRIES`; None = the engine's default.
    pub max_structured_output_retries: Option<usize>,
    /// `ORBIT_SMALL_MODEL`: the small-model profile forced on or off; None =
    /// on for the local provider only.
    pub small_model: Option<bool>,
    /// Whether the project directory is trusted (`crate::trust`): its
    /// settings files' hooks, `env`, allow rules and MCP servers apply.
    /// Whoever starts project MCP servers checks this.
    pub project_trusted: bool,
    /// Why it is trusted (`--trust-project`, the trust store's path, …).
    pub trust_reason: Option<String>,
    /// What an untrusted project's settings were not allowed to do
    /// (empty when trusted); the CLI prints [`Skipped::line`] once.
    pub trust_skipped: Skipped,
    /// The hooks of every applied settings file, highest precedence first.
    pub hooks: HookSet,
    /// The OS sandbox for shell commands.
    pub sandbox: crate::sandbox::SandboxSettings,
    /// The effort level (anthropic provider); None = the model's default.
    pub effort: Option<Sourced<orbit_model::catalog::EffortChoice>>,
    /// Thinking on (`alwaysThinkingEnabled` in settings turns it off).
    pub thinking_enabled: bool,
    /// `CLAUDE_CODE_MAX_OUTPUT_TOKENS`: `max_tokens` of every request
    /// (anthropic provider only; None for the others).
    pub max_output_tokens: Option<u32>,
    /// The model of side requests (anthropic: `ANTHROPIC_SMALL_FAST_MODEL`,
    /// …); None for the other providers (their side requests use the
    /// session's model: `orbit::side_query`).
    pub small_fast_model: Option<String>,
    /// `apiKeyHelper`: the command whose output is the API key, from the
    /// first settings file that sets it (an untrusted project's files do
    /// not: `crate::trust::UNTRUSTED_KEYS`).
    pub api_key_helper: Option<Sourced<String>>,
    /// `statusLine` (raw JSON; the TUI reads it) from the first settings
    /// file that sets it (an untrusted project's files do not).
    pub status_line: Option<serde_json::Value>,
    /// `outputStyle`: the output style's name, from the first settings
    /// file that sets it.
    pub output_style: Option<Sourced<String>>,
}

impl Config {
    /// Resolves every value from the flags, the environment and the
    /// settings (see the module docs for each precedence). Warns about
    /// unusable environment and settings values and uses the next layer;
    /// errors only for a missing data directory and unknown provider names.
    pub fn resolve(
        overrides: &Overrides,
        env: &Env,
        settings: &Settings,
    ) -> Result<Config, ConfigError> {
        let data_dir = data_dir(env)?;
        let trust_reason = trust_reason(
            overrides.trust_project,
            env,
            settings,
            &data_dir,
            &overrides.cwd,
        )?;
        let (untrusted, trust_skipped) = match trust_reason {
            Some(_) => (None, Skipped::default()),
            None => {
                let (view, skipped) = untrusted_view(settings);
                (Some(view), skipped)
            }
        };
        let settings = untrusted.as_ref().unwrap_or(settings);
        let hooks = hooks_of(settings)?;
        let env = env.with_settings(settings);
        let provider = resolve_provider(overrides, &env, settings)?;
        let permission_mode = resolve_permission_mode(overrides, settings);
        let plan_mode = permission_mode.value == PermissionMode::Plan;
        let model = resolve_model(provider.value, overrides, &env, settings, plan_mode);
        let anthropic = provider.value == ProviderKind::Anthropic;
        let effort = model.as_ref().filter(|_| anthropic).and_then(|m| {
            model_choice::effort(overrides.effort.as_deref(), &env, settings, &m.value)
        });
        let thinking_enabled = model_choice::thinking_enabled(settings);
        // Claude Code's variable: the anthropic provider's requests only
        // (the other providers keep their own reply caps).
        let max_output_tokens = env
            .positive(CLAUDE_CODE_MAX_OUTPUT_TOKENS)
            .filter(|_| anthropic)
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        let small_fast_model = anthropic.then(|| model_choice::small_fast_model(&env));
        let api_key_helper = settings.files().iter().find_map(|file| {
            let command = file.raw.get("apiKeyHelper")?.as_str()?.trim();
            (!command.is_empty()).then(|| Sourced::new(command.to_string(), file.value_origin()))
        });
        let status_line = settings
            .files()
            .iter()
            .find_map(|file| file.raw.get("statusLine").filter(|v| !v.is_null()).cloned());
        let output_style = settings.files().iter().find_map(|file| {
            let name = file.raw.get("outputStyle")?.as_str()?.trim();
            (!name.is_empty()).then(|| Sourced::new(name.to_string(), file.value_origin()))
        });
        let permissions = settings.permissions();
        let home = env.path(vars::HOME);
        let mut additional_directories: Vec<_> = overrides
            .add_dirs
            .iter()
            .map(|dir| Sourced::new(dir.clone(), Origin::Flag("--add-dir")))
            .collect();
        additional_directories.extend(permissions.additional_directories.iter().filter_map(
            |entry| {
                let path = settings_path(&entry.value, home.as_deref(), &overrides.cwd)?;
                Some(Sourced::new(path, entry.origin.clone()))
            },
        ));
        let max_tool_use_concurrency = env
            .positive(ORBIT_MAX_TOOL_USE_CONCURRENCY)
            .or_else(|| env.positive(CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY));
        let tool_result_budget_chars = env.positive(ORBIT_TOOL_RESULT_BUDGET_CHARS);
        let openai_fenced_tool_calls = env.flag(ORBIT_OPENAI_FENCED_TOOL_CALLS).unwrap_or(false);
        let context_window = env.positive(ORBIT_CONTEXT_WINDOW);
        let autocompact_pct = autocompact_pct(&env);
        let max_structured_output_retries = env.positive(MAX_STRUCTURED_OUTPUT_RETRIES);
        let small_model = env.flag(ORBIT_SMALL_MODEL);
        let sandbox = crate::sandbox::resolve(
            overrides.sandbox.as_deref(),
            env.get(ORBIT_SANDBOX),
            settings,
            home.as_deref(),
            &overrides.cwd,
        );
        // Read by orbit-model through `env.lookup()`; checked here so a bad
        // value is reported like every other one (the model crate then
        // uses its default, as `parsed` does).
        env.parsed::<u32>(ORBIT_MAX_RETRIES, "a whole number");
        env.parsed::<u64>(ORBIT_RETRY_BASE_DELAY_MS, "milliseconds");
        env.parsed::<u64>(ORBIT_IDLE_TIMEOUT_MS, "milliseconds");
        Ok(Config {
            data_dir,
            env,
            provider,
            model,
            permission_mode,
            additional_directories,
            permissions,
            max_tool_use_concurrency,
            tool_result_budget_chars,
            openai_fenced_tool_calls,
            context_window,
            autocompact_pct,
            max_structured_output_retries,
            small_model,
            project_trusted: trust_reason.is_some(),
            trust_reason,
            trust_skipped,
            hooks,
            sandbox,
            effort,
            thinking_enabled,
            max_output_tokens,
            small_fast_model,
            api_key_helper,
            status_line,
            output_style,
        })
    }

    /// `name` as this run's provider names models: for anthropic an alias
    /// resolves as in `--model` (the `ANTHROPIC_DEFAULT_*_MODEL` overrides,
    /// `opusplan` by the permission mode); other providers take it as given
    /// (trimmed). For `--fallback-model`.
    pub fn model_id(&self, name: &str) -> String {
        match self.provider.value {
            ProviderKind::Anthropic => model_choice::anthropic_model(
                name,
                &self.env,
                self.permission_mode.value == PermissionMode::Plan,
            ),
            _ => name.trim().to_string(),
        }
    }

    /// What the init line reports as `apiKeySource` (Claude Code's
    /// spelling): the first credential variable set, else `none`.
    pub fn api_key_source(&self) -> &'static str {
        if self.api_key_helper.is_some() && self.provider.value == ProviderKind::Anthropic {
            return "apiKeyHelper";
        }
        [ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, OPENAI_API_KEY]
            .into_iter()
            .find(|name| self.env.is_set(name))
            .unwrap_or("none")
    }
}

/// The `hooks` of every file, highest precedence first.
fn hooks_of(settings: &Settings) -> Result<HookSet, ConfigError> {
    let mut hooks = HookSet::default();
    for file in settings.files() {
        if let Some(value) = file.raw.get("hooks") {
            hooks.extend(HookSet::parse(value, &file.origin, file.source.name())?);
        }
    }
    Ok(hooks)
}

/// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` as Claude Code reads it: a number in
/// (0, 100]; anything else warns and is ignored.
fn autocompact_pct(env: &Env) -> Option<f64> {
    let pct = env.parsed::<f64>(CLAUDE_AUTOCOMPACT_PCT_OVERRIDE, "a percentage (1-100)")?;
    if pct > 0.0 && pct <= 100.0 {
        Some(pct)
    } else {
        tracing::warn!(
            "ignoring {CLAUDE_AUTOCOMPACT_PCT_OVERRIDE}={pct}: expected a percentage above 0 and at most 100"
        );
        None
    }
}

fn resolve_provider(
    overrides: &Overrides,
    env: &Env,
    settings: &Settings,
) -> Result<Sourced<ProviderKind>, ConfigError> {
    if let Some(kind) = overrides.provider {
        return Ok(Sourced::new(kind, Origin::Flag("--provider")));
    }
    if let Some(value) = env.get(ORBIT_PROVIDER) {
        let kind = ProviderKind::parse(value, ORBIT_PROVIDER)?;
        return Ok(Sourced::new(kind, Origin::Env(ORBIT_PROVIDER)));
    }
    // Claude on Bedrock or Vertex AI is the Anthropic provider's request
    // shape sent to the cloud (the client is chosen by the CLI).
    if let Some(name) = vars::cloud_provider_var(|name| env.get(name)) {
        return Ok(Sourced::new(ProviderKind::Anthropic, Origin::Env(name)));
    }
    let credentials = [
        (ANTHROPIC_API_KEY, ProviderKind::Anthropic),
        (ANTHROPIC_AUTH_TOKEN, ProviderKind::Anthropic),
        (ANTHROPIC_BASE_URL, ProviderKind::Anthropic),
        (OPENAI_API_KEY, ProviderKind::Openai),
        (OPENAI_BASE_URL, ProviderKind::Openai),
    ];
    if let Some((name, kind)) = credentials.into_iter().find(|(name, _)| env.is_set(name)) {
        return Ok(Sourced::new(kind, Origin::Env(name)));
    }
    if let Some(setting) = settings.provider() {
        let kind = ProviderKind::parse(&setting.value, &setting.origin.to_string())?;
        return Ok(Sourced::new(kind, setting.origin));
    }
    // An `apiKeyHelper` is an Anthropic credential.
    if let Some(file) = settings
        .files()
        .iter()
        .find(|file| file.raw.get("apiKeyHelper").is_some_and(|v| v.is_string()))
    {
        return Ok(Sourced::new(ProviderKind::Anthropic, file.value_origin()));
    }
    Ok(Sourced::new(ProviderKind::Local, Origin::Default))
}

fn resolve_model(
    provider: ProviderKind,
    overrides: &Overrides,
    env: &Env,
    settings: &Settings,
    plan_mode: bool,
) -> Option<Sourced<String>> {
    let (variable, default) = match provider {
        ProviderKind::Anthropic => (ANTHROPIC_MODEL, DEFAULT_MODEL),
        ProviderKind::Openai => (OPENAI_MODEL, DEFAULT_OPENAI_MODEL),
        ProviderKind::Local => return None,
    };
    let flag = overrides
        .model
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(|m| Sourced::new(m.to_string(), Origin::Flag("--model")));
    let mut model = flag
        .or_else(|| {
            env.get(variable)
                .map(|m| Sourced::new(m.trim().to_string(), Origin::Env(variable)))
        })
        .or_else(|| settings.model())
        .unwrap_or_else(|| {
            // Claude Code's default is the alias `default` (Opus, or
            // `ANTHROPIC_DEFAULT_OPUS_MODEL`).
            let default = match provider {
                ProviderKind::Anthropic => DEFAULT_MODEL_ALIAS,
                _ => default,
            };
            Sourced::new(default.to_string(), Origin::Default)
        });
    if provider == ProviderKind::Anthropic {
        model.value = model_choice::anthropic_model(&model.value, env, plan_mode);
    }
    Some(model)
}

fn resolve_permission_mode(overrides: &Overrides, settings: &Settings) -> Sourced<PermissionMode> {
    if let Some(mode) = overrides.permission_mode {
        return Sourced::new(mode, Origin::Flag("--permission-mode"));
    }
    for candidate in settings.default_modes() {
        let in_project = matches!(
            candidate.origin,
            Origin::Settings { source, .. } if source.is_in_project()
        );
        match candidate.value.parse::<PermissionMode>() {
            // A checked-out repository must not turn permission checks off.
            Ok(PermissionMode::BypassPermissions) if in_project => tracing::warn!(
                "ignoring permissions.defaultMode `bypassPermissions` in {}: project settings cannot skip permission checks (use --permission-mode bypassPermissions)",
                candidate.origin
            ),
            Ok(mode) => return Sourced::new(mode, candidate.origin),
            Err(err) => tracing::warn!(
                "ignoring permissions.defaultMode in {}: {err}",
                candidate.origin
            ),
        }
    }
    Sourced::new(PermissionMode::Default, Origin::Default)
}
