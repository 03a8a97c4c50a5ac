//! Which provider can run which model: `/model` lists ([`choices`]) and
//! accepts ([`check_model`]) only what the session's provider runs, from
//! each row's `runs_on` in the table. Claude runs on the Anthropic provider
//! (Bedrock and Vertex map its ids); the OpenAI rows on an
//! OpenAI-compatible server, which may also serve the open families and
//! any model the catalog does not know; orbit's local provider runs the one
//! model its llama-server loaded, nothing else.
//!
//! A namespaced id (`anthropic/claude-sonnet-4.5`, a router's spelling) is
//! the server's to judge and passes on an OpenAI-compatible provider; a
//! name the catalog does not know passes everywhere but the local provider
//! (the server answers for it).

use super::{Entry, Matched, ModelFacts, Provider, TABLE, find, resolve_alias};

/// Why the session's provider cannot run a model (shown to the person).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ModelRefused(pub String);

impl Provider {
    /// The catalog's provider of a model client (`ModelClient::provider`):
    /// Bedrock and Vertex run Claude as Anthropic does; None for a client
    /// the catalog does not know (an embedder's).
    pub fn of_client(name: &str) -> Option<Self> {
        match name {
            "anthropic" | "bedrock" | "vertex" => Some(Self::Anthropic),
            "openai" => Some(Self::OpenAi),
            "local" => Some(Self::Local),
            _ => None,
        }
    }

    /// The provider as a person names it, and how it is chosen.
    pub const fn description(self) -> &'static str {
        match self {
            Self::Anthropic => "the Anthropic provider (ANTHROPIC_API_KEY, Bedrock or Vertex)",
            Self::OpenAi => "an OpenAI-compatible provider (OPENAI_API_KEY)",
            Self::Local => "orbit's local model",
        }
    }
}

/// The row `name` names (exact id, alias, then family), as `lookup` finds it.
fn entry(name: &str) -> Option<(&'static Entry, Matched)> {
    let lower = name.trim().to_ascii_lowercase();
    find(super::strip_long_context(&lower))
}

/// The model id to use when the person asks `provider` (now running
/// `current`) for `name` (an alias resolved for Claude); the reason when
/// the provider cannot run it.
pub fn check_model(provider: Provider, current: &str, name: &str) -> Result<String, ModelRefused> {
    let wanted = name.trim();
    if wanted.is_empty() {
        return Err(ModelRefused("no model named".to_string()));
    }
    let id = resolve_alias(wanted);
    let found = entry(id);
    let needs = |entry: &Entry| {
        entry
            .runs_on
            .iter()
            .map(|p| p.description())
            .collect::<Vec<_>>()
            .join(" or ")
    };
    if provider == Provider::Local {
        let same = wanted.eq_ignore_ascii_case(current)
            || matches!((found, entry(current)), (Some((a, _)), Some((b, _))) if a.facts.id == b.facts.id);
        if same {
            return Ok(current.to_string());
        }
        let other = match found {
            Some((entry, _)) if !entry.runs_on.contains(&Provider::Local) => {
                format!("; {wanted} runs on {}", needs(entry))
            }
            _ => String::new(),
        };
        return Err(ModelRefused(format!(
            "the local provider runs one model, {current}{other}. Set ANTHROPIC_API_KEY or OPENAI_API_KEY and start orbit again to use another model"
        )));
    }
    match found {
        Some((entry, _)) if !entry.runs_on.contains(&provider) && !id.contains('/') => {
            Err(ModelRefused(format!(
                "{wanted} runs on {}, and this session uses {}",
                needs(entry),
                provider.description()
            )))
        }
        _ => Ok(id.to_string()),
    }
}

/// The models `/model` lists for `provider`, in table order (an
/// OpenAI-compatible server may run others too; the local provider runs
/// the one model it loaded).
pub fn choices(provider: Provider) -> Vec<&'static ModelFacts> {
    TABLE
        .iter()
        .flat_map(|group| group.iter())
        .filter(|e| e.listed && e.runs_on.contains(&provider))
        .map(|e| &e.facts)
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::catalog::LOCAL_MODEL_ID;

    /// Claude on the local or OpenAI provider is refused with who runs it;
    /// what the provider runs passes (aliases resolved).
    #[test]
    fn models_are_checked_against_the_provider() {
        let local = check_model(Provider::Local, LOCAL_MODEL_ID, "sonnet").unwrap_err();
        assert!(local.0.contains("runs one model"), "{local}");
        assert!(local.0.contains("Anthropic"), "{local}");
        assert_eq!(
            check_model(Provider::Local, LOCAL_MODEL_ID, "qwen2.5-coder").unwrap(),
            LOCAL_MODEL_ID
        );
        let openai = check_model(Provider::OpenAi, "gpt-4.1", "opus").unwrap_err();
        assert!(openai.0.contains("Anthropic provider"), "{openai}");
        assert_eq!(
            check_model(Provider::OpenAi, "gpt-4.1", "gpt-4o").unwrap(),
            "gpt-4o"
        );
        assert_eq!(
            check_model(Provider::OpenAi, "gpt-4.1", "anthropic/claude-sonnet-4.5").unwrap(),
            "anthropic/claude-sonnet-4.5"
        );
        assert_eq!(
            check_model(Provider::OpenAi, "gpt-4.1", "mistral-small").unwrap(),
            "mistral-small"
        );
        let anthropic = check_model(Provider::Anthropic, "claude-sonnet-5-5", "gpt-4.1");
        assert!(anthropic.unwrap_err().0.contains("OpenAI-compatible"));
        let sonnet = check_model(Provider::Anthropic, "x", "sonnet").unwrap();
        assert!(sonnet.starts_with("claude-sonnet"), "{sonnet}");
    }

    /// Each provider lists only what it runs.
    #[test]
    fn choices_are_the_provider_s() {
        let ids = |p| choices(p).iter().map(|f| f.id).collect::<Vec<_>>();
        assert_eq!(ids(Provider::Local), vec![LOCAL_MODEL_ID]);
        assert!(ids(Provider::OpenAi).contains(&"gpt-4.1"));
        assert!(!ids(Provider::OpenAi).iter().any(|id| id.contains("claude")));
        let claude = ids(Provider::Anthropic);
        assert!(
            claude.iter().all(|id| id.starts_with("claude")),
            "{claude:?}"
        );
        assert!(!claude.contains(&"claude"), "a family row is not listed");
    }
}
