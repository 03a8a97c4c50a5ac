//! The Anthropic model settings Claude Code users set, read as Claude Code
//! 2.1.332 reads them (observed against a fake server): aliases with their
//! `ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU}_MODEL` overrides, `opusplan`,
//! the small fast model, the effort level and whether thinking is on.
//! [`crate::Config::resolve`] calls these; the catalog
//! (`orbit_model::catalog`) holds every id.
//!
//! | value | precedence |
//! |---|---|
//! | alias → id | `ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU}_MODEL` for its line > the catalog (`opus`, `best`, `default` → Opus; `sonnet` → Sonnet; `opusplan` → Sonnet, Opus in plan mode) |
//! | default model | as the alias `default` |
//! | effort | `CLAUDE_CODE_EFFORT_LEVEL` > `--effort` > settings `modelSettings.<id>.effortLevel` > `effortLevel` of managed / flag / local / project settings > the user file's `effortLevel` for a model without its own default > the model's default |
//! | thinking | off when a settings file says `alwaysThinkingEnabled: false` |
//! | small fast model | `ANTHROPIC_SMALL_FAST_MODEL` > `ANTHROPIC_DEFAULT_HAIKU_MODEL` > the catalog's |

use orbit_model::catalog::{self, ClaudeLine, EffortChoice, OPUSPLAN, Provider};

use crate::env::Env;
use crate::origin::{Origin, SettingsSource, Sourced};
use crate::settings::Settings;
use crate::vars::{
    ANTHROPIC_DEFAULT_HAIKU_MODEL, ANTHROPIC_DEFAULT_OPUS_MODEL, ANTHROPIC_DEFAULT_SONNET_MODEL,
    ANTHROPIC_SMALL_FAST_MODEL, CLAUDE_CODE_EFFORT_LEVEL,
};

/// The alias `opusplan` is in plan mode.
const OPUSPLAN_IN_PLAN: &str = "opus";

/// The variable overriding the model of `line`'s alias.
fn override_var(line: ClaudeLine) -> Option<&'static str> {
    match line {
        ClaudeLine::Opus => Some(ANTHROPIC_DEFAULT_OPUS_MODEL),
        ClaudeLine::Sonnet => Some(ANTHROPIC_DEFAULT_SONNET_MODEL),
        ClaudeLine::Haiku => Some(ANTHROPIC_DEFAULT_HAIKU_MODEL),
        ClaudeLine::Fable | ClaudeLine::Mythos => None,
    }
}

/// The model id `name` stands for on the Anthropic provider: an alias
/// (trimmed, any case, a `[1m]` marker kept on a non-alias id only) → its
/// line's override variable, else the catalog's id; `opusplan` is Opus in
/// `plan_mode`; any other name as given (trimmed).
pub(crate) fn anthropic_model(name: &str, env: &Env, plan_mode: bool) -> String {
    let name = name.trim();
    let bare = catalog::strip_long_context(name);
    let alias = if plan_mode && bare.eq_ignore_ascii_case(OPUSPLAN) {
        OPUSPLAN_IN_PLAN
    } else {
        bare
    };
    let Some(line) = catalog::alias_line(alias) else {
        return name.to_string();
    };
    override_var(line)
        .and_then(|var| env.get(var))
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map_or_else(|| catalog::resolve_alias(alias).to_string(), String::from)
}

/// The small fast model of the Anthropic provider (see the module docs).
pub(crate) fn small_fast_model(env: &Env) -> String {
    if let Some(model) = env
        .get(ANTHROPIC_SMALL_FAST_MODEL)
        .filter(|m| !m.trim().is_empty())
    {
        return anthropic_model(model, env, false);
    }
    if let Some(model) = env
        .get(ANTHROPIC_DEFAULT_HAIKU_MODEL)
        .filter(|m| !m.trim().is_empty())
    {
        return model.trim().to_string();
    }
    catalog::small_fast_model(Provider::Anthropic, "", None).to_string()
}

/// One line for an effort value that names no level.
fn warn_effort(value: &str, origin: &str) {
    tracing::warn!(
        "ignoring effort `{}` from {origin}: expected one of {}; using the model's default",
        value.trim(),
        EffortChoice::VALUES
    );
}

/// The effort level chosen for `model` (see the module docs); None = the
/// model's default. `flag` is `--effort`.
pub(crate) fn effort(
    flag: Option<&str>,
    env: &Env,
    settings: &Settings,
    model: &str,
) -> Option<Sourced<EffortChoice>> {
    if let Some(value) = env.get(CLAUDE_CODE_EFFORT_LEVEL) {
        match EffortChoice::parse(value) {
            Some(choice) => {
                return Some(Sourced::new(choice, Origin::Env(CLAUDE_CODE_EFFORT_LEVEL)));
            }
            None => warn_effort(value, CLAUDE_CODE_EFFORT_LEVEL),
        }
    }
    if let Some(value) = flag {
        match EffortChoice::parse(value) {
            Some(choice) => return Some(Sourced::new(choice, Origin::Flag("--effort"))),
            None => warn_effort(value, "--effort"),
        }
    }
    let per_model = settings.files().iter().find_map(|file| {
        let value = file
            .raw
            .get("modelSettings")?
            .as_object()?
            .iter()
            .find_map(|(id, s)| {
                let same = catalog::resolve_alias(id).eq_ignore_ascii_case(model);
                same.then(|| s.get("effortLevel")?.as_str()).flatten()
            })?;
        Some((value, file))
    });
    let own_default = catalog::facts(model)
        .effort_levels
        .is_some_and(|e| e.own_default);
    let top_level = || {
        settings.files().iter().find_map(|file| {
            let value = file.raw.get("effortLevel")?.as_str()?;
            // Claude Code: the user file's `effortLevel` is a legacy
            // setting, for models without a default of their own.
            (file.source != SettingsSource::User || !own_default).then_some((value, file))
        })
    };
    let (value, file) = per_model.or_else(top_level)?;
    match EffortChoice::parse(value) {
        Some(choice) => Some(Sourced::new(choice, file.value_origin())),
        None => {
            warn_effort(value, &file.origin);
            None
        }
    }
}

/// False when the winning settings file says `alwaysThinkingEnabled: false`.
pub(crate) fn thinking_enabled(settings: &Settings) -> bool {
    settings
        .files()
        .iter()
        .find_map(|file| file.raw.get("alwaysThinkingEnabled")?.as_bool())
        .unwrap_or(true)
}
