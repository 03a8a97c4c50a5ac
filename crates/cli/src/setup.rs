//! Builds one session's engine from the flags and the resolved
//! configuration: provider, system prompt, tools (built-ins, then MCP
//! servers connecting in the background), permissions, hooks, the sandbox
//! launcher and the tools' environment. Every front end — the headless
//! `-p` run, an SDK session over stdio and the interactive terminal UI —
//! starts from the same [`Prepared`] value; only the ask path (who answers
//! a permission ask) differs, and it is passed in.

use orbit::{PromptSpec, SessionSpec};
use orbit_config::{Env, ProviderKind};
use orbit_engine::{EngineConfig, QueryEngine, SharedApprover};

use crate::args::Args;
use crate::output::InitInfo;
use crate::{configure, mcp, provider, sandbox, sessions};
use orbit::profile::{ModelProfile, ProfileOverrides};

/// A session ready to run: the engine and what the front ends report.
pub struct Prepared {
    /// The engine, new or resumed from its transcript.
    pub engine: QueryEngine,
    /// What `system/init` reports (stream-json) and a status line shows.
    pub init: InitInfo,
    /// The custom slash commands `-p` and the SDK's prompts expand.
    pub commands: orbit_commands::PromptExpander,
    /// The small-model profile's turn limit when no `--max-turns` was given.
    pub default_max_turns: Option<u32>,
    /// The MCP servers' manager, kept alive for the session.
    pub mcp: Option<std::sync::Arc<orbit_mcp::McpManager>>,
    /// What the untrusted folder's settings were not allowed to do (empty
    /// when trusted); the interactive UI asks "Trust this folder?" with it.
    pub trust_skipped: orbit_config::trust::Skipped,
    /// The `statusLine` setting (the interactive UI runs it).
    pub status_line: Option<serde_json::Value>,
}

/// What no instruction file may be read from besides the Read deny rules
/// (`orbit_untrusted`): the sandbox's deny list (its built-in paths under
/// `$HOME` and `sandbox.denyRead`), whatever the sandbox mode.
fn instruction_deny_paths(config: &orbit_config::Config) -> Vec<std::path::PathBuf> {
    let mut denied: Vec<std::path::PathBuf> = config.sandbox.deny_read.clone();
    if let Some(home) = config.env.path(orbit_config::vars::HOME) {
        denied.extend(
            orbit_sandbox::DEFAULT_DENY_READ_IN_HOME
                .iter()
                .map(|p| home.join(p)),
        );
    }
    denied
}

/// The engine settings the spec does not own: thinking, fallback model,
/// budgets, compaction, structured output, and the environment's X2
/// concurrency cap, R2 result budget and retry count (else the engine's
/// defaults).
fn tuning(
    args: &Args,
    config: &orbit_config::Config,
    thinking_budget: Option<u32>,
    fallback_model: Option<String>,
    structured_output: Option<orbit_engine::StructuredOutputSchema>,
) -> EngineConfig {
    let mut engine_config = EngineConfig {
        thinking_budget,
        fallback_model,
        max_budget_usd: args.max_budget_usd,
        compact: configure::compact_config(config),
        structured_output,
        ..EngineConfig::default()
    };
    if let Some(n) = config.max_tool_use_concurrency {
        engine_config.max_tool_use_concurrency = n;
    }
    if let Some(n) = config.tool_result_budget_chars {
        engine_config.tool_result_budget_chars = n;
    }
    // ENABLE_TOOL_SEARCH: the spec decides (with the profile's default).
    if let Some(n) = config.max_structured_output_retries {
        engine_config.max_structured_output_retries = u32::try_from(n).unwrap_or(u32::MAX);
    }
    engine_config
}

/// What an SDK session adds: the hooks its `initialize` registered (run
/// through `callbacks`) and the agents it defined.
#[derive(Default)]
pub struct SdkExtras {
    /// Hooks of type `callback`, after the settings files' hooks.
    pub hooks: orbit_hooks::HookSet,
    /// Who runs them (the control protocol).
    pub callbacks: Option<std::sync::Arc<dyn orbit_hooks::HookCallbacks>>,
    /// Agent names from `initialize`, listed with `--agents`' in `system/init`.
    pub agents: Vec<String>,
    /// The agents `initialize` defines (`{"name": {"description", "prompt", …}}`).
    pub agent_definitions: Option<serde_json::Map<String, serde_json::Value>>,
    /// How this session's `{"type": "sdk"}` MCP servers are reached (the
    /// control protocol), in the MCP manager's options.
    pub sdk_bridge: Option<orbit_mcp::sdk_transport::SharedBridge>,
}

/// Builds the session. `approver` answers permission asks (the SDK over
/// stdio, the terminal UI's dialog); `None` makes an ask a denial.
pub fn prepare(
    args: &Args,
    env: &Env,
    approver: Option<SharedApprover>,
) -> anyhow::Result<Prepared> {
    prepare_with(args, env, approver, SdkExtras::default())
}

/// [`prepare`] with an SDK session's hooks and agents.
pub fn prepare_with(
    args: &Args,
    env: &Env,
    approver: Option<SharedApprover>,
    sdk: SdkExtras,
) -> anyhow::Result<Prepared> {
    let structured_output = configure::json_schema(args)?;
    let cwd = configure::session_cwd(args)?;
    let (config, settings) = configure::load(args, env, &cwd)?;
    let added_dirs = configure::additional_dirs(&config)?;
    let session = sessions::plan(args, &config.data_dir, &cwd)?;
    let client = provider::select_provider(&config, args)?;
    // The small-model profile (on for local, ORBIT_SMALL_MODEL decides):
    // a lean prompt and few tools (prompt size is latency there), a
    // default turn limit and recovery turns.
    let small_profile = config
        .small_model
        .unwrap_or(config.provider.value == ProviderKind::Local);
    let default_max_turns = match args.max_turns {
        None => ModelProfile::new(small_profile).default_max_turns(),
        Some(_) => None,
    };
    let model = provider::effective_model(&config);
    let (thinking_budget, fallback_model) = model_options(args, &config, &model)?;
    tracing::debug!(
        provider = config.provider.value.name(),
        provider_from = %config.provider.origin,
        %model,
        cwd = %cwd.display(),
        "starting"
    );

    let mut tools = orbit_tools::builtin::default_tools();
    // The plan workflow and AskUserQuestion need someone to ask; `--tools`
    // and `--disallowedTools` below choose among them too.
    if approver.is_some() {
        orbit::offer_asking_tools(&mut tools);
    }
    let permissions =
        configure::permissions(args, &config, &cwd, |name| tools.find(name).is_some())?;
    let disallowed = args.disallowed_tool_rules();
    // A bare tool name in --disallowedTools hides the tool from the model
    // entirely (as Claude Code does); rules with a specifier stay rules.
    tools.retain(|t| !disallowed.iter().any(|rule| rule == t.name()));
    // `--tools`: only the built-ins it names are offered (after the rules
    // were checked against every built-in).
    crate::flag_values::select_tools(args, &mut tools);

    let session_id = session.session_id.clone();
    let mut spec = SessionSpec::new(cwd.clone(), config.data_dir.clone(), config.env.clone());
    // The settings files' `env` reaches Bash, hooks and MCP servers.
    spec.tool_env = config.env.added_over(env);
    spec.provider = Some(orbit::Provider::Client(client));
    spec.model = Some(model.clone());
    spec.small_fast_model = config.small_fast_model.clone();
    spec.profile = Some(ModelProfile::new(small_profile));
    // The profile's reply cap, turn limit (an allowance per run on top of
    // a resumed session's turns), recovery turns and repeat guard; the
    // flags win.
    spec.overrides = ProfileOverrides {
        max_turns: args.max_turns,
        // `CLAUDE_CODE_MAX_OUTPUT_TOKENS` below `--max-tokens`.
        max_tokens: args.max_tokens.or(config.max_output_tokens),
    };
    let (replace, append) = args.system_prompt_texts()?;
    spec.prompt = PromptSpec {
        replace,
        append,
        trusted: config.project_trusted,
        deny_paths: instruction_deny_paths(&config),
    };
    spec.log = Box::new(|line| crate::term_safe::eprintln_safe!("orbit: warning: {line}"));
    spec.tools = Some(tools);
    spec.permissions = permissions;
    // "Always allow" answers are the person's own choice: kept in the
    // user's data directory for this project, never in the project.
    spec.rules_file = Some(orbit_config::saved_rules::saved_rules_file(
        &config.data_dir,
        &cwd,
    ));
    spec.approver = approver;
    spec.hooks = config.hooks.clone();
    spec.hooks.extend(sdk.hooks);
    spec.hook_callbacks = sdk.callbacks;
    spec.hook_observer = crate::hook_events::observer(args, &session.session_id);
    // MCP servers connect in the background: the first request does not
    // wait for them; their tools join the requests after they arrive.
    spec.mcp_servers = mcp::servers(args, &settings, &config, &cwd)?;
    spec.sdk_bridge = sdk.sdk_bridge;
    let agents = crate::agents::load(args, &config, &cwd, sdk.agent_definitions.as_ref())?;
    crate::agents::main_agent(args, &agents, &mut spec)?;
    if crate::agents::offered(args) {
        spec.offer_agents(agents);
    }
    let launcher = sandbox::launcher(
        &config,
        &sandbox::SessionPaths {
            cwd: &cwd,
            added_dirs: &added_dirs,
            session_dir: session.persist.then(|| {
                orbit_session::project_dir(&config.data_dir, &cwd)
                    .join(orbit_session::file_component(&session_id))
            }),
            deny_rules: &spec.permissions.disallowed_tools,
        },
    )?;
    spec.launcher = launcher;
    spec.added_dirs = added_dirs;
    spec.session_id = Some(session_id);
    spec.persist = session.persist;
    spec.resume = session.resume;
    spec.tuning = tuning(
        args,
        &config,
        thinking_budget,
        fallback_model,
        structured_output,
    );
    let commands = slash_commands(&config, &cwd);
    spec.offer_skills(commands.skills.clone());
    spec.output_style = config.output_style.as_ref().map(|s| s.value.clone());
    let orbit::BuiltSession {
        engine,
        mcp,
        tool_names,
    } = spec.build()?;
    let init = InitInfo {
        output_style: engine
            .tool_context()
            .extension(
                orbit_memory::output_style::OUTPUT_STYLE_KEY,
                orbit_memory::output_style::StyleState::default,
            )
            .current_name(),
        slash_commands: orbit_commands::with_builtins(commands.slash_names()),
        cwd: cwd.display().to_string(),
        tools: tool_names,
        skills: commands.skills.names(),
        model,
        permission_mode: config.permission_mode.value.as_str().to_string(),
        api_key_source: config.api_key_source().to_string(),
        mcp_servers: mcp.as_ref().map(|m| m.statuses()).unwrap_or_default(),
        agents: args
            .sdk
            .agent_names()?
            .into_iter()
            .chain(sdk.agents)
            .collect(),
        memory_paths: engine
            .tool_context()
            .extension(
                orbit_memory::LOADED_MEMORY_KEY,
                orbit_memory::LoadedMemory::default,
            )
            .files()
            .iter()
            .map(|(path, _)| path.display().to_string())
            .collect(),
    };
    Ok(Prepared {
        commands,
        engine,
        init,
        default_max_turns,
        mcp,
        trust_skipped: config.trust_skipped.clone(),
        status_line: config.status_line.clone(),
    })
}

/// The custom slash commands for the SDK's `initialize` answer, read
/// before the session is set up (no warnings: the session's set-up gives
/// them).
pub fn initialize_commands(args: &Args, env: &Env) -> Vec<serde_json::Value> {
    let Ok(cwd) = crate::configure::session_cwd(args) else {
        return Vec::new();
    };
    let sources = orbit_commands::CommandSources {
        project_root: cwd,
        home: env.path(orbit_config::vars::HOME),
        claude_config_dir: env.path("CLAUDE_CONFIG_DIR"),
    };
    orbit_sdk::command_entries(&orbit_commands::CommandSet::load(&sources))
}

/// The session's custom slash commands (user: `CLAUDE_CONFIG_DIR` or
/// `~/.claude`, and `~/.orbit`; the project's), one warning per refused file.
fn slash_commands(
    config: &orbit_config::Config,
    cwd: &std::path::Path,
) -> orbit_commands::PromptExpander {
    let sources = orbit_commands::CommandSources {
        project_root: cwd.to_path_buf(),
        home: config.env.path(orbit_config::vars::HOME),
        claude_config_dir: config.env.path("CLAUDE_CONFIG_DIR"),
    };
    let mut expander = orbit_commands::PromptExpander::load(&sources, config.project_trusted);
    if config.provider.value != ProviderKind::Anthropic {
        let why = format!("the provider is {}", config.provider.value.name());
        expander = expander.ignoring_models(why);
    }
    for warning in expander
        .commands
        .warnings
        .iter()
        .chain(&expander.skills.warnings)
    {
        crate::term_safe::eprintln_safe!("orbit: warning: {warning}");
    }
    expander
}

/// The thinking budget and the fallback model. Thinking is an Anthropic
/// API feature: other providers ignore it with one note. Claude Code
/// refuses a fallback model equal to the main one; so does orbit.
fn model_options(
    args: &Args,
    config: &orbit_config::Config,
    model: &str,
) -> anyhow::Result<(Option<u32>, Option<String>)> {
    let env_budget = config.env.get(orbit_config::vars::MAX_THINKING_TOKENS);
    let mut budget = args.sdk.thinking_budget(env_budget)?;
    if budget.is_some() && config.provider.value != ProviderKind::Anthropic {
        eprintln!(
            "orbit: note: extended thinking (--max-thinking-tokens / MAX_THINKING_TOKENS) \
             needs the Anthropic provider; the {} provider ignores it",
            config.provider.value.name()
        );
        budget = None;
    }
    let fallback = args
        .sdk
        .fallback_model
        .as_deref()
        .map(|name| match config.provider.value {
            // Aliases as in `--model`, `ANTHROPIC_DEFAULT_*_MODEL` included.
            ProviderKind::Anthropic => config.model_id(name),
            _ => name.to_string(),
        });
    if fallback.as_deref() == Some(model) {
        anyhow::bail!(
            "Fallback model cannot be the same as the main model. Please specify a different model for --fallback-model."
        );
    }
    Ok((budget, fallback))
}
