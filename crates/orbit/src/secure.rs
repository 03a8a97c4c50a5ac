//! What a session's tools and processes may see, applied by both of
//! `SessionSpec`'s builds (`crate::spec`) so no caller can forget it:
//! [`secure`] puts the security defaults on the tool context (no API key orbit holds in the
//! tools' environment, WebFetch's allowed local hosts, the search backend,
//! the sandbox launcher, the added directories as workspace roots);
//! [`visible_env`] drops those secrets from the variables the settings add
//! to Bash, hooks and MCP servers; [`session_hooks`] makes the session's
//! hooks with that environment.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use orbit_config::Env;
use orbit_hooks::{HookCallbacks, HookSet, Hooks};
use orbit_tool::{CommandLauncher, ToolUseContext};

/// The security defaults on a session's tools: the API keys orbit holds are
/// not in their environment (unless `ORBIT_TOOLS_SEE_SECRETS`), WebFetch
/// reaches only the local hosts `ORBIT_WEBFETCH_ALLOW_HOSTS` names, Bash
/// runs through `launcher`, and the added directories are workspace roots.
pub(crate) fn secure(
    context: &ToolUseContext,
    env: &Env,
    launcher: Option<CommandLauncher>,
    added_dirs: Vec<PathBuf>,
) {
    context.hide_env_vars(orbit_config::tool_env_hidden(env));
    orbit_tools::builtin::web_fetch::guard::AllowedHosts::allow(
        context,
        orbit_config::webfetch_allowed_hosts(env),
    );
    orbit_tools::builtin::web_search::backend::SearchBackend::install(
        context,
        env.get(orbit_config::vars::ORBIT_WEBSEARCH_BACKEND),
        env.get(orbit_config::vars::ORBIT_WEBSEARCH_URL),
        env.get(orbit_config::vars::ORBIT_WEBSEARCH_API_KEY),
    );
    context.set_launcher(launcher);
    for dir in added_dirs {
        context.allow_directory(dir);
    }
}

/// `vars` without the secrets tools never see.
pub(crate) fn visible_env(
    env: &Env,
    vars: Vec<(String, std::ffi::OsString)>,
) -> Vec<(String, std::ffi::OsString)> {
    let hidden = orbit_config::tool_env_hidden(env);
    vars.into_iter()
        .filter(|(name, _)| !hidden.contains(name))
        .collect()
}

/// The hooks of a session (None: no hooks), `callbacks` running the
/// `callback` ones, command hooks with `env` added.
pub(crate) fn session_hooks(
    set: HookSet,
    callbacks: Option<Arc<dyn HookCallbacks>>,
    cwd: &Path,
    env: Vec<(String, std::ffi::OsString)>,
    observer: Option<Arc<dyn orbit_hooks::HookObserver>>,
) -> Option<Arc<Hooks>> {
    if set.is_empty() {
        return None;
    }
    let mut hooks = Hooks::new(set, cwd).with_env(env);
    if let Some(observer) = observer {
        hooks = hooks.with_observer(observer);
    }
    Some(Arc::new(match callbacks {
        Some(callbacks) => hooks.with_callbacks(callbacks),
        None => hooks,
    }))
}
