//! The run's configuration, resolved once: the session directory, the
//! settings files, and [`orbit_config::Config`] from the flags, the
//! environment snapshot and those files (see the README's Configuration
//! section for every precedence).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use orbit_config::{Config, Env, Origin, SettingSources, Settings, SettingsLocations, vars};
use orbit_engine::{CompactConfig, StructuredOutputSchema};
use orbit_permissions::{PermissionConfig, PermissionRule, Policy};
use orbit_untrusted::{CONFIG_FILE_MAX_BYTES, ReadOpts, read_untrusted};

use crate::args::Args;
use crate::term_safe::eprintln_safe;

/// `--cwd` or the current directory, canonical (tools resolve paths against it).
pub fn session_cwd(args: &Args) -> anyhow::Result<PathBuf> {
    let dir = match &args.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    existing_dir(&dir, "working directory")
}

/// `dir` made canonical; an error naming `what` unless it is a directory.
fn existing_dir(dir: &Path, what: &str) -> anyhow::Result<PathBuf> {
    let canonical = dir
        .canonicalize()
        .with_context(|| format!("{what} {}", dir.display()))?;
    if !canonical.is_dir() {
        bail!("{what} {} is not a directory", dir.display());
    }
    Ok(canonical)
}

/// The settings files for `cwd` (the ones that exist, filtered by
/// `--setting-sources`, plus `--settings`) resolved with the flags and the
/// environment. Opens at most the 8 standard settings paths (plus
/// `--settings`); no directory is walked.
pub fn load(args: &Args, env: &Env, cwd: &Path) -> anyhow::Result<(Config, Settings)> {
    let sources = match args.setting_sources.as_deref() {
        Some(list) => SettingSources::parse(list)?,
        None => SettingSources::all(),
    };
    let locations = SettingsLocations::standard(env, cwd)?;
    let settings = Settings::load(&locations, args.settings.as_deref(), sources)?;
    for file in settings.files() {
        tracing::debug!(source = %file.source, file = %file.origin, "settings file");
    }
    let mut config = Config::resolve(&args.overrides(cwd.to_path_buf()), env, &settings)?;
    // An untrusted folder: one line naming what its settings (and its
    // `.mcp.json`, whose servers need a trusted folder) may not do.
    let mcp_file = cwd.join(crate::mcp::PROJECT_MCP_FILE);
    if !config.project_trusted && !args.strict_mcp_config && mcp_file.exists() {
        config
            .trust_skipped
            .items
            .push((mcp_file.display().to_string(), "its MCP servers".into()));
    }
    if !config.trust_skipped.is_empty() {
        eprintln_safe!("{}", config.trust_skipped.line(cwd));
    }
    Ok((config, settings))
}

/// The extra directories Bash may stay in, canonical. A bad `--add-dir` is
/// an error; a settings entry that is not an existing directory is skipped
/// with a warning (settings files travel between machines).
pub fn additional_dirs(config: &Config) -> anyhow::Result<Vec<PathBuf>> {
    let mut dirs = Vec::new();
    for dir in &config.additional_directories {
        match (&dir.origin, existing_dir(&dir.value, "--add-dir")) {
            (_, Ok(canonical)) => dirs.push(canonical),
            (Origin::Flag(_), Err(err)) => return Err(err),
            (origin, Err(_)) => tracing::warn!(
                "ignoring additional directory {} from {origin}: not an existing directory",
                dir.value.display()
            ),
        }
    }
    Ok(dirs)
}

/// The session's permission settings: `--allowedTools` / `--disallowedTools`
/// and every settings file's `permissions.allow` / `deny` / `ask` (all
/// anchored at `cwd`), the mode, and the home directory for `~/` rules.
/// A flag rule that does not parse is an error; a flag rule naming a tool
/// that `is_tool` does not know (MCP names aside) is a one-line warning on stderr.
pub fn permissions(
    args: &Args,
    config: &Config,
    cwd: &Path,
    is_tool: impl Fn(&str) -> bool,
) -> anyhow::Result<PermissionConfig> {
    let flags = [
        ("--allowedTools", args.allowed_tool_rules()),
        ("--disallowedTools", args.disallowed_tool_rules()),
    ];
    for (flag, rules) in &flags {
        for rule in rules {
            let parsed = PermissionRule::parse(rule).with_context(|| flag.to_string())?;
            let name = parsed.tool_name.as_str();
            if !name.starts_with("mcp__") && !is_tool(name) {
                eprintln_safe!(
                    "orbit: warning: {flag} names `{name}`, which is not a tool orbit has"
                );
            }
        }
    }
    let [(_, mut allowed), (_, mut disallowed)] = flags;
    let settings = &config.permissions;
    let values = |list: &[orbit_config::Sourced<String>]| -> Vec<String> {
        list.iter().map(|r| r.value.clone()).collect()
    };
    allowed.extend(values(&settings.allow));
    disallowed.extend(values(&settings.deny));
    let permissions = PermissionConfig {
        mode: config.permission_mode.value,
        allowed_tools: allowed,
        disallowed_tools: disallowed,
        ask_tools: values(&settings.ask),
        headless: true,
        home: config.env.path(vars::HOME),
    };
    Policy::check(&permissions, cwd)?;
    Ok(permissions)
}

/// `--json-schema`: inline JSON (it starts with `{`) or the path of a JSON
/// file, checked as a JSON Schema for an object. Every failure names the
/// flag and what is wrong, before anything else runs.
pub fn json_schema(args: &Args) -> anyhow::Result<Option<StructuredOutputSchema>> {
    let Some(arg) = args.json_schema.as_deref() else {
        return Ok(None);
    };
    let (text, source) = if arg.trim_start().starts_with('{') {
        (arg.to_string(), "inline JSON".to_string())
    } else {
        // A file the user named: links followed, a pipe read, capped.
        let opts = ReadOpts::user_named(CONFIG_FILE_MAX_BYTES).refuse_over_cap();
        let text = read_untrusted(Path::new(arg), &opts)
            .with_context(|| format!("--json-schema: cannot read the schema file {arg}"))?
            .text();
        (text, arg.to_string())
    };
    let value: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("--json-schema: {source} is not valid JSON"))?;
    let schema = StructuredOutputSchema::new(value)
        .with_context(|| format!("--json-schema: {source} is not a usable schema"))?;
    Ok(Some(schema))
}

/// The compaction settings from the environment (`ORBIT_CONTEXT_WINDOW`,
/// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`).
pub fn compact_config(config: &Config) -> CompactConfig {
    CompactConfig {
        context_window: config.context_window.map(|n| n as u64),
        autocompact_pct: config.autocompact_pct,
        disable_auto: false,
    }
}
