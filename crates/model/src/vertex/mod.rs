//! Claude on Google Vertex AI (`CLAUDE_CODE_USE_VERTEX=1`): `POST
//! https://<region>-aiplatform.googleapis.com/v1/projects/<project>/locations/<region>/publishers/anthropic/models/<model>:streamRawPredict`
//! (`ANTHROPIC_VERTEX_BASE_URL` replaces everything before `/projects`),
//! the Messages body without `model`, with `anthropic_version:
//! vertex-2023-10-16`, as Claude Code 2.1.332 sends it; the answer is the
//! Messages API's SSE.
//!
//! Data flow: [`VertexConfig::from_lookup`] reads the project
//! (`ANTHROPIC_VERTEX_PROJECT_ID`), the region (`CLOUD_ML_REGION`, default
//! [`DEFAULT_REGION`]), Claude Code's per-model region variables
//! (`VERTEX_REGION_CLAUDE_…`, `catalog::vertex_region_var`), the settings
//! shared with Bedrock (`cloud::CloudCommon`) and the Google credentials'
//! variables; [`VertexClient::new`] fails at once
//! without a project. Each call maps the model to its Vertex id
//! (`catalog::vertex_model_id`), picks its region, and `crate::cloud`
//! plans, writes and sends the body on the driver, every attempt carrying
//! a bearer token from `google` (application default credentials).
//! `VertexWire` reads Vertex's error bodies; its SSE events go to the
//! Messages assembler as they are (`cloud::CloudDecoder`).

mod google;

use std::sync::Arc;

use eventsource_stream::Event;
use serde_json::Value;

use crate::cloud::{
    CapturedEnv, Cloud, CloudCalls, CloudCommon, CloudDecoder, CloudWire, api_error_with_hint,
};
use crate::{Endpoint, EventStream, ModelClient, ModelError, ModelRequest};

/// Env var: a true value selects Vertex AI.
pub const ENV_USE_VERTEX: &str = "CLAUDE_CODE_USE_VERTEX";
/// Env var: the URL before `/projects/…` instead of the region's endpoint.
pub const ENV_BASE_URL: &str = "ANTHROPIC_VERTEX_BASE_URL";
/// Env var: the Google Cloud project.
pub const ENV_PROJECT_ID: &str = "ANTHROPIC_VERTEX_PROJECT_ID";
/// Env var: the region of every model without its own variable.
pub const ENV_REGION: &str = "CLOUD_ML_REGION";
/// Env var: a true value sends no credentials (a gateway adds them).
pub const ENV_SKIP_AUTH: &str = "CLAUDE_CODE_SKIP_VERTEX_AUTH";
/// Claude Code's region when `CLOUD_ML_REGION` is unset.
pub const DEFAULT_REGION: &str = "us-east5";

/// How to reach Vertex AI.
#[derive(Debug, Clone, PartialEq)]
pub struct VertexConfig {
    /// `ANTHROPIC_VERTEX_PROJECT_ID`.
    pub project_id: Option<String>,
    /// `CLOUD_ML_REGION`, else [`DEFAULT_REGION`].
    pub region: String,
    /// The `VERTEX_REGION_CLAUDE_…` variables that are set.
    pub model_regions: Vec<(String, String)>,
    /// `ANTHROPIC_VERTEX_BASE_URL`; None = the region's endpoint.
    pub base_url: Option<String>,
    /// Send no credentials (`CLAUDE_CODE_SKIP_VERTEX_AUTH`).
    pub skip_auth: bool,
    /// Where the Google credentials are looked for.
    pub google: CapturedEnv,
    /// Retries, idle timeout, custom headers and the request shape.
    pub common: CloudCommon,
}

impl VertexConfig {
    /// Reads the variables through `lookup` (empty values are unset); the
    /// request shape is the Anthropic provider's.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let get = |name: &str| {
            lookup(name)
                .filter(|v| !v.trim().is_empty())
                .map(|v| v.trim().to_string())
        };
        let model_regions = crate::catalog::VERTEX_REGION_VARS
            .iter()
            .filter_map(|(_, var)| Some((var.to_string(), get(var)?)))
            .collect();
        Self {
            project_id: get(ENV_PROJECT_ID),
            region: get(ENV_REGION).unwrap_or_else(|| DEFAULT_REGION.to_string()),
            model_regions,
            base_url: get(ENV_BASE_URL),
            skip_auth: get(ENV_SKIP_AUTH).is_some_and(|v| crate::anthropic::env_truthy(&v)),
            google: CapturedEnv::of(&google::GOOGLE_VARS, &lookup),
            common: CloudCommon::from_lookup(&lookup),
        }
    }

    /// The region of `model` (its own variable, else `CLOUD_ML_REGION`).
    pub fn region_of(&self, model: &str) -> &str {
        crate::catalog::vertex_region_var(model)
            .and_then(|var| self.model_regions.iter().find(|(k, _)| k == var))
            .map_or(self.region.as_str(), |(_, region)| region.as_str())
    }

    fn base(&self, region: &str) -> String {
        match (&self.base_url, region) {
            (Some(url), _) => url.trim_end_matches('/').to_string(),
            (None, "global") => "https://aiplatform.googleapis.com/v1".to_string(),
            (None, region) => format!("https://{region}-aiplatform.googleapis.com/v1"),
        }
    }
}

/// A [`ModelClient`] for Claude on Vertex AI.
#[derive(Debug)]
pub struct VertexClient {
    config: VertexConfig,
    project: String,
    calls: CloudCalls,
}

impl VertexClient {
    /// Validates the config (a project is needed) and builds the HTTP
    /// client; the token is fetched on the first call.
    pub fn new(config: VertexConfig) -> Result<Self, ModelError> {
        let Some(project) = config.project_id.clone() else {
            return Err(ModelError::Config(format!(
                "Vertex AI needs a Google Cloud project: set {ENV_PROJECT_ID} (and {ENV_REGION}, default {DEFAULT_REGION})"
            )));
        };
        let auth = (!config.skip_auth).then(|| -> Arc<dyn crate::auth::Authorizer> {
            Arc::new(google::GoogleAuth::new(config.google.clone()))
        });
        let endpoint = Self::endpoint_of(&config, &project, "claude");
        let version = ("anthropic-version", crate::anthropic::ANTHROPIC_VERSION);
        let base = config.base(&config.region);
        let calls = config
            .common
            .calls("Vertex AI", &base, endpoint, &[version], auth)?;
        Ok(Self {
            config,
            project,
            calls,
        })
    }

    fn endpoint_of(config: &VertexConfig, project: &str, model: &str) -> Endpoint {
        let region = config.region_of(model);
        let id = crate::catalog::vertex_model_id(model);
        let path = format!(
            "/projects/{project}/locations/{region}/publishers/anthropic/models/{id}:streamRawPredict"
        );
        let check = match &config.base_url {
            Some(_) => ENV_BASE_URL.to_string(),
            None => format!("{ENV_REGION} ({region})"),
        };
        Endpoint::at(&config.base(region), &path, check)
    }

    /// The configuration this client was built with.
    pub fn config(&self) -> &VertexConfig {
        &self.config
    }
}

impl ModelClient for VertexClient {
    fn stream(&self, request: &ModelRequest) -> EventStream {
        let model = crate::catalog::strip_long_context(&request.model);
        let endpoint = Self::endpoint_of(&self.config, &self.project, model);
        self.calls.stream(
            request,
            &self.config.common.shape,
            endpoint,
            Cloud::Vertex,
            CloudDecoder::<VertexWire>::default(),
        )
    }

    fn provider(&self) -> &str {
        "vertex"
    }
}

/// Vertex's side of the cloud decoder: SSE events are Messages events.
#[derive(Debug)]
pub(crate) struct VertexWire;

impl CloudWire for VertexWire {
    fn messages_event(event: &Event) -> Result<Option<(String, String)>, ModelError> {
        Ok(Some((event.event.clone(), event.data.clone())))
    }

    /// Google's `{"error": {"code", "message", "status"}}` (sometimes in a
    /// one-element array), or the Messages API's own error body.
    fn api_error(status: u16, body: &str, url: &str) -> ModelError {
        let parsed: Option<Value> = serde_json::from_str(body).ok();
        let parsed = match parsed {
            Some(Value::Array(mut items)) if !items.is_empty() => Some(items.swap_remove(0)),
            other => other,
        };
        let error = parsed.as_ref().map(|v| &v["error"]);
        let text = |key: &str| error.and_then(|e| e[key].as_str()).map(String::from);
        let error_type = text("type").or_else(|| text("status"));
        let hint = match status {
            401 | 403 => Some(format!(
                "Google refused the credentials or the project has no access to this model: check GOOGLE_APPLICATION_CREDENTIALS, {ENV_PROJECT_ID}, and that the model is enabled in the Model Garden (request went to {url})"
            )),
            404 => Some(format!(
                "no such model in this project and region: check ANTHROPIC_MODEL, {ENV_REGION} or its VERTEX_REGION_CLAUDE_… variable (request went to {url})"
            )),
            _ => None,
        };
        api_error_with_hint(status, error_type, text("message"), body, hint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_is_required_and_models_take_their_region() {
        let err = VertexClient::new(VertexConfig::from_lookup(|_| None))
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "Vertex AI needs a Google Cloud project: set ANTHROPIC_VERTEX_PROJECT_ID (and CLOUD_ML_REGION, default us-east5)"
            )
        );
        let vars = [
            ("ANTHROPIC_VERTEX_PROJECT_ID", "p1"),
            ("VERTEX_REGION_CLAUDE_HAIKU_4_5", "europe-west1"),
        ];
        let config = VertexConfig::from_lookup(|n| {
            vars.iter()
                .find(|(k, _)| *k == n)
                .map(|(_, v)| v.to_string())
        });
        let opus = VertexClient::endpoint_of(&config, "p1", "claude-opus-5-5");
        assert_eq!(
            opus.url,
            "https://us-east5-aiplatform.googleapis.com/v1/projects/p1/locations/us-east5/publishers/anthropic/models/claude-opus-5-5:streamRawPredict"
        );
        let haiku = VertexClient::endpoint_of(&config, "p1", "claude-haiku-4-5-20251001");
        assert_eq!(
            haiku.url,
            "https://europe-west1-aiplatform.googleapis.com/v1/projects/p1/locations/europe-west1/publishers/anthropic/models/claude-haiku-4-5@20251001:streamRawPredict"
        );
    }
}
