//! The cloud providers' names for Claude models, as Claude Code 2.1.332
//! sends them: Bedrock's cross-region inference profiles
//! (`us.anthropic.claude-opus-5-5`, `us.anthropic.claude-sonnet-4-5-20250929-v1:0`)
//! and Vertex AI's model ids (`claude-opus-5-5`, `claude-sonnet-4-5@20250929`)
//! with the `VERTEX_REGION_CLAUDE_…` variable that moves one model to
//! another region.

/// The inference-profile prefix Claude Code puts before every Bedrock id.
const BEDROCK_PROFILE_PREFIX: &str = "us.anthropic.";

/// Bedrock version suffixes that are not `-v1:0` (dated ids) or nothing
/// (undated ids).
const BEDROCK_SUFFIXES: [(&str, &str); 2] = [
    ("claude-3-5-sonnet-20241022", "-v2:0"),
    ("claude-opus-4-6", "-v1"),
];

/// Vertex's per-model region variables, by id prefix, first match wins
/// (Claude Code's table, in its order).
pub const VERTEX_REGION_VARS: [(&str, &str); 21] = [
    ("claude-3-5-sonnet", "VERTEX_REGION_CLAUDE_3_5_SONNET"),
    ("claude-3-7-sonnet", "VERTEX_REGION_CLAUDE_3_7_SONNET"),
    ("claude-sonnet-4-5", "VERTEX_REGION_CLAUDE_4_5_SONNET"),
    ("claude-sonnet-4-6", "VERTEX_REGION_CLAUDE_4_6_SONNET"),
    ("claude-sonnet-5-5", "VERTEX_REGION_CLAUDE_5_5_SONNET"),
    ("claude-3-5-haiku", "VERTEX_REGION_CLAUDE_3_5_HAIKU"),
    ("claude-fable-5-1", "VERTEX_REGION_CLAUDE_FABLE_5_1"),
    ("claude-fable-5-2", "VERTEX_REGION_CLAUDE_FABLE_5_2"),
    ("claude-haiku-4-5", "VERTEX_REGION_CLAUDE_HAIKU_4_5"),
    ("claude-haiku-5-5", "VERTEX_REGION_CLAUDE_HAIKU_5_5"),
    ("claude-opus-4-1", "VERTEX_REGION_CLAUDE_4_1_OPUS"),
    ("claude-opus-4-5", "VERTEX_REGION_CLAUDE_4_5_OPUS"),
    ("claude-opus-4-6", "VERTEX_REGION_CLAUDE_4_6_OPUS"),
    ("claude-opus-4-7", "VERTEX_REGION_CLAUDE_4_7_OPUS"),
    ("claude-opus-4-8", "VERTEX_REGION_CLAUDE_4_8_OPUS"),
    ("claude-opus-5-5", "VERTEX_REGION_CLAUDE_5_5_OPUS"),
    ("claude-sonnet-4", "VERTEX_REGION_CLAUDE_4_0_SONNET"),
    ("claude-sonnet-5", "VERTEX_REGION_CLAUDE_5_SONNET"),
    ("claude-fable-5", "VERTEX_REGION_CLAUDE_FABLE_5"),
    ("claude-opus-4", "VERTEX_REGION_CLAUDE_4_0_OPUS"),
    ("claude-opus-5", "VERTEX_REGION_CLAUDE_5_OPUS"),
];

/// The date suffix of a dated id (`-20250929`), when it has one.
fn date_suffix(model: &str) -> Option<(&str, &str)> {
    let (stem, date) = model.rsplit_once('-')?;
    (date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit())).then_some((stem, date))
}

/// Whether `model` is already a provider's own name (a Bedrock id or
/// inference profile, an ARN, a Vertex `@` id): sent as is.
fn is_provider_name(model: &str) -> bool {
    model.contains('.') || model.contains(':') || model.contains('@') || model.contains('/')
}

/// The Bedrock model id (inference profile) of a Claude id; a Bedrock id,
/// profile or ARN (`ANTHROPIC_MODEL=arn:aws:bedrock:…`) is kept as is.
pub fn bedrock_model_id(model: &str) -> String {
    let model = super::strip_long_context(model);
    if is_provider_name(model) {
        return model.to_string();
    }
    let suffix = BEDROCK_SUFFIXES
        .iter()
        .find(|(id, _)| *id == model)
        .map(|(_, suffix)| *suffix)
        .unwrap_or(if date_suffix(model).is_some() {
            "-v1:0"
        } else {
            ""
        });
    format!("{BEDROCK_PROFILE_PREFIX}{model}{suffix}")
}

/// The Vertex AI model id of a Claude id: a dated id's date after `@`
/// (`claude-sonnet-4-5@20250929`); a Vertex id is kept as is.
pub fn vertex_model_id(model: &str) -> String {
    let model = super::strip_long_context(model);
    if is_provider_name(model) {
        return model.to_string();
    }
    match date_suffix(model) {
        Some((stem, date)) => format!("{stem}@{date}"),
        None => model.to_string(),
    }
}

/// The variable that sets `model`'s Vertex region, when Claude Code has one.
pub fn vertex_region_var(model: &str) -> Option<&'static str> {
    VERTEX_REGION_VARS
        .iter()
        .find(|(prefix, _)| model.starts_with(prefix))
        .map(|(_, var)| *var)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bedrock_ids_as_claude_code_sends_them() {
        assert_eq!(
            bedrock_model_id("claude-opus-5-5"),
            "us.anthropic.claude-opus-5-5"
        );
        assert_eq!(
            bedrock_model_id("claude-sonnet-4-5-20250929"),
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
        );
        assert_eq!(
            bedrock_model_id("claude-3-5-sonnet-20241022"),
            "us.anthropic.claude-3-5-sonnet-20241022-v2:0"
        );
        assert_eq!(
            bedrock_model_id("claude-opus-4-6"),
            "us.anthropic.claude-opus-4-6-v1"
        );
        assert_eq!(
            bedrock_model_id("claude-opus-5-5[1m]"),
            "us.anthropic.claude-opus-5-5"
        );
        let arn = "arn:aws:bedrock:us-east-1:1:application-inference-profile/x";
        assert_eq!(bedrock_model_id(arn), arn);
        assert_eq!(
            bedrock_model_id("eu.anthropic.claude-opus-5-5"),
            "eu.anthropic.claude-opus-5-5"
        );
    }

    #[test]
    fn vertex_ids_and_region_variables() {
        assert_eq!(vertex_model_id("claude-opus-5-5"), "claude-opus-5-5");
        assert_eq!(
            vertex_model_id("claude-sonnet-4-5-20250929"),
            "claude-sonnet-4-5@20250929"
        );
        assert_eq!(
            vertex_region_var("claude-opus-4-1-20250805"),
            Some("VERTEX_REGION_CLAUDE_4_1_OPUS")
        );
        assert_eq!(
            vertex_region_var("claude-opus-4-20250514"),
            Some("VERTEX_REGION_CLAUDE_4_0_OPUS")
        );
        assert_eq!(
            vertex_region_var("claude-haiku-5-5"),
            Some("VERTEX_REGION_CLAUDE_HAIKU_5_5")
        );
        assert_eq!(vertex_region_var("gpt-4o"), None);
    }
}
