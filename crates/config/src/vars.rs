//! Every environment variable orbit reads, in one place.
//!
//! The constants name the variables; [`ENV_VARS`] says what each means (the
//! README's Configuration table lists the same names, and a test keeps the
//! two in step). orbit reads the process environment once
//! ([`crate::Env::from_process`]); everything below is looked up in that
//! snapshot, overlaid with the `env` maps of the settings files
//! ([`crate::Config::env`]). Variables marked *process only* are needed
//! before settings files are read and come from the process environment
//! alone.

/// orbit's data directory (default `$HOME/.orbit`). Process only.
pub const ORBIT_HOME: &str = "ORBIT_HOME";
/// The home directory: `$HOME/.orbit` and `~/.claude/settings.json`. Process only.
pub const HOME: &str = "HOME";
/// Log filter in env-filter syntax. Process only (logging starts first).
pub const ORBIT_LOG: &str = "ORBIT_LOG";
/// Claude Code's configuration directory (default `~/.claude`; its global
/// file then is `$CLAUDE_CONFIG_DIR/.claude.json`). Process only.
pub const CLAUDE_CONFIG_DIR: &str = "CLAUDE_CONFIG_DIR";
/// The provider: `anthropic`, `openai` or `local`.
pub const ORBIT_PROVIDER: &str = "ORBIT_PROVIDER";
/// Anthropic API key (`x-api-key`).
pub const ANTHROPIC_API_KEY: &str = "ANTHROPIC_API_KEY";
/// Anthropic bearer token (`Authorization: Bearer`).
pub const ANTHROPIC_AUTH_TOKEN: &str = "ANTHROPIC_AUTH_TOKEN";
/// Anthropic API base URL.
pub const ANTHROPIC_BASE_URL: &str = "ANTHROPIC_BASE_URL";
/// Model of the Anthropic provider (below `--model`).
pub const ANTHROPIC_MODEL: &str = "ANTHROPIC_MODEL";
/// The model the `opus` alias (and `best`, `default`, `opusplan` in plan
/// mode) names.
pub const ANTHROPIC_DEFAULT_OPUS_MODEL: &str = "ANTHROPIC_DEFAULT_OPUS_MODEL";
/// The model the `sonnet` alias (and `opusplan`) names.
pub const ANTHROPIC_DEFAULT_SONNET_MODEL: &str = "ANTHROPIC_DEFAULT_SONNET_MODEL";
/// The model the `haiku` alias names (and the small fast model).
pub const ANTHROPIC_DEFAULT_HAIKU_MODEL: &str = "ANTHROPIC_DEFAULT_HAIKU_MODEL";
/// The model of side requests (Claude Code's haiku).
pub const ANTHROPIC_SMALL_FAST_MODEL: &str = "ANTHROPIC_SMALL_FAST_MODEL";
/// `max_tokens` of every request (capped at the model's limit).
pub const CLAUDE_CODE_MAX_OUTPUT_TOKENS: &str = "CLAUDE_CODE_MAX_OUTPUT_TOKENS";
/// Reasoning effort (`output_config.effort`); wins over `--effort`.
pub const CLAUDE_CODE_EFFORT_LEVEL: &str = "CLAUDE_CODE_EFFORT_LEVEL";
/// A true value answers the SDK's `rewind_files` (`enable_file_checkpointing`).
pub const CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: &str =
    "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING";
/// More `anthropic-beta` values, comma-separated.
pub const ANTHROPIC_BETAS: &str = "ANTHROPIC_BETAS";
/// More request headers, one `Name: value` per line.
pub const ANTHROPIC_CUSTOM_HEADERS: &str = "ANTHROPIC_CUSTOM_HEADERS";
/// A true value sends no prompt-cache markers.
pub const DISABLE_PROMPT_CACHING: &str = "DISABLE_PROMPT_CACHING";
/// OpenAI API key (`Authorization: Bearer`).
pub const OPENAI_API_KEY: &str = "OPENAI_API_KEY";
/// OpenAI-compatible base URL, with `/v1`.
pub const OPENAI_BASE_URL: &str = "OPENAI_BASE_URL";
/// Model of the OpenAI provider (below `--model`).
pub const OPENAI_MODEL: &str = "OPENAI_MODEL";
/// Fenced-JSON tool-call recovery for `--provider openai`.
pub const ORBIT_OPENAI_FENCED_TOOL_CALLS: &str = "ORBIT_OPENAI_FENCED_TOOL_CALLS";
/// MCP servers: how long connecting may take, in ms.
pub const MCP_TIMEOUT: &str = "MCP_TIMEOUT";
/// MCP servers: how long one tool call may take, in ms.
pub const MCP_TOOL_TIMEOUT: &str = "MCP_TOOL_TIMEOUT";
/// MCP results longer than this many tokens are saved to a file.
pub const MAX_MCP_OUTPUT_TOKENS: &str = "MAX_MCP_OUTPUT_TOKENS";
/// Deferred MCP tools with ToolSearch: `true`/`false`/`auto:N`.
pub const ENABLE_TOOL_SEARCH: &str = "ENABLE_TOOL_SEARCH";
/// Extended thinking's token budget (below `--max-thinking-tokens`).
pub const MAX_THINKING_TOKENS: &str = "MAX_THINKING_TOKENS";
/// The small-model profile on (`1`) for any provider, or off (`0`) for `local`.
pub const ORBIT_SMALL_MODEL: &str = "ORBIT_SMALL_MODEL";
/// The OS sandbox mode of shell commands (below `--sandbox`).
pub const ORBIT_SANDBOX: &str = "ORBIT_SANDBOX";
/// Retries of a failed model call.
pub const ORBIT_MAX_RETRIES: &str = "ORBIT_MAX_RETRIES";
/// First retry backoff, in milliseconds.
pub const ORBIT_RETRY_BASE_DELAY_MS: &str = "ORBIT_RETRY_BASE_DELAY_MS";
/// How long a silent response stream is waited for, in milliseconds.
pub const ORBIT_IDLE_TIMEOUT_MS: &str = "ORBIT_IDLE_TIMEOUT_MS";
/// How long an `apiKeyHelper` key is used before the helper runs again, in ms.
pub const CLAUDE_CODE_API_KEY_HELPER_TTL_MS: &str = "CLAUDE_CODE_API_KEY_HELPER_TTL_MS";
/// How long one `apiKeyHelper` run may take, in ms.
pub const ORBIT_API_KEY_HELPER_TIMEOUT_MS: &str = "ORBIT_API_KEY_HELPER_TIMEOUT_MS";
/// Proxy of `https://` requests (model, MCP HTTP servers, WebFetch). Process only.
pub const HTTPS_PROXY: &str = "HTTPS_PROXY";
/// Proxy of `http://` requests. Process only.
pub const HTTP_PROXY: &str = "HTTP_PROXY";
/// Hosts reached without the proxy. Process only.
pub const NO_PROXY: &str = "NO_PROXY";
/// A PEM file of certificates added to the trust store. Process only.
pub const NODE_EXTRA_CA_CERTS: &str = "NODE_EXTRA_CA_CERTS";
/// A PEM file that replaces the system trust store. Process only.
pub const SSL_CERT_FILE: &str = "SSL_CERT_FILE";
/// Client certificate (PEM) for mutual TLS. Process only.
pub const CLAUDE_CODE_CLIENT_CERT: &str = "CLAUDE_CODE_CLIENT_CERT";
/// Its unencrypted private key (PEM). Process only.
pub const CLAUDE_CODE_CLIENT_KEY: &str = "CLAUDE_CODE_CLIENT_KEY";
/// Concurrency-safe tools running at once.
pub const ORBIT_MAX_TOOL_USE_CONCURRENCY: &str = "ORBIT_MAX_TOOL_USE_CONCURRENCY";
/// Claude Code's name for [`ORBIT_MAX_TOOL_USE_CONCURRENCY`] (below it).
pub const CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: &str = "CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY";
/// Per-message budget of tool results, in chars.
pub const ORBIT_TOOL_RESULT_BUDGET_CHARS: &str = "ORBIT_TOOL_RESULT_BUDGET_CHARS";

/// `1`/`true`: tools' processes keep the secrets of [`SECRET_ENV_VARS`].
pub const ORBIT_TOOLS_SEE_SECRETS: &str = "ORBIT_TOOLS_SEE_SECRETS";
/// Hosts WebFetch may reach although they resolve to a local address.
pub const ORBIT_WEBFETCH_ALLOW_HOSTS: &str = "ORBIT_WEBFETCH_ALLOW_HOSTS";
/// WebSearch's backend for providers without server-side search:
/// `searxng`, `brave` or `tavily`.
pub const ORBIT_WEBSEARCH_BACKEND: &str = "ORBIT_WEBSEARCH_BACKEND";
/// The search backend's base URL.
pub const ORBIT_WEBSEARCH_URL: &str = "ORBIT_WEBSEARCH_URL";
/// The search backend's API key (tools never see it).
pub const ORBIT_WEBSEARCH_API_KEY: &str = "ORBIT_WEBSEARCH_API_KEY";
/// Claude Code's OAuth token (orbit does not use it; tools never see it).
pub const CLAUDE_CODE_OAUTH_TOKEN: &str = "CLAUDE_CODE_OAUTH_TOKEN";
/// Claude Code's Bedrock bearer token (tools never see it).
pub const AWS_BEARER_TOKEN_BEDROCK: &str = "AWS_BEARER_TOKEN_BEDROCK";
/// `1`/`true`: Claude on Amazon Bedrock (SigV4, `AWS_REGION`).
pub const CLAUDE_CODE_USE_BEDROCK: &str = "CLAUDE_CODE_USE_BEDROCK";
/// `1`/`true`: Claude on Google Vertex AI (`CLOUD_ML_REGION`, `ANTHROPIC_VERTEX_PROJECT_ID`).
pub const CLAUDE_CODE_USE_VERTEX: &str = "CLAUDE_CODE_USE_VERTEX";
/// The passphrase of an encrypted `CLAUDE_CODE_CLIENT_KEY`.
pub const CLAUDE_CODE_CLIENT_KEY_PASSPHRASE: &str = "CLAUDE_CODE_CLIENT_KEY_PASSPHRASE";
/// Bedrock's base URL instead of the region's endpoint.
pub const ANTHROPIC_BEDROCK_BASE_URL: &str = "ANTHROPIC_BEDROCK_BASE_URL";
/// The AWS region (Bedrock).
pub const AWS_REGION: &str = "AWS_REGION";
/// The AWS profile whose credentials sign Bedrock requests.
pub const AWS_PROFILE: &str = "AWS_PROFILE";
/// The Google Cloud project of Vertex AI.
pub const ANTHROPIC_VERTEX_PROJECT_ID: &str = "ANTHROPIC_VERTEX_PROJECT_ID";
/// Vertex AI's region.
pub const CLOUD_ML_REGION: &str = "CLOUD_ML_REGION";
/// Vertex AI's URL before `/projects/…`.
pub const ANTHROPIC_VERTEX_BASE_URL: &str = "ANTHROPIC_VERTEX_BASE_URL";
/// A Google service-account (or user) credentials file for Vertex AI.
pub const GOOGLE_APPLICATION_CREDENTIALS: &str = "GOOGLE_APPLICATION_CREDENTIALS";

/// The cloud provider variable set to a true value (`1`, `true`, `yes`,
/// `on`), Bedrock first, as Claude Code checks them.
pub fn cloud_provider_var<'a>(get: impl Fn(&str) -> Option<&'a str>) -> Option<&'static str> {
    [CLAUDE_CODE_USE_BEDROCK, CLAUDE_CODE_USE_VERTEX]
        .into_iter()
        .find(|name| {
            get(name).is_some_and(|v| {
                ["1", "true", "yes", "on"]
                    .iter()
                    .any(|t| v.trim().eq_ignore_ascii_case(t))
            })
        })
}

/// The credentials orbit (and Claude Code) hold: removed from the
/// environment of the processes tools start (Bash, and MCP servers) unless
/// [`ORBIT_TOOLS_SEE_SECRETS`] is set. `ORBIT_*` variables whose name ends
/// in `_KEY`, `_TOKEN`, `_SECRET` or `_PASSWORD` are removed too
/// ([`crate::tool_env_hidden`]).
pub const SECRET_ENV_VARS: &[&str] = &[
    ANTHROPIC_API_KEY,
    ANTHROPIC_AUTH_TOKEN,
    OPENAI_API_KEY,
    CLAUDE_CODE_OAUTH_TOKEN,
    AWS_BEARER_TOKEN_BEDROCK,
    // Gateway credentials travel as custom headers.
    ANTHROPIC_CUSTOM_HEADERS,
];

/// Endings that make an `ORBIT_*` variable a secret.
pub const SECRET_NAME_SUFFIXES: &[&str] = &["_KEY", "_TOKEN", "_SECRET", "_PASSWORD"];
/// The model's context window in tokens, overriding orbit's table.
pub const ORBIT_CONTEXT_WINDOW: &str = "ORBIT_CONTEXT_WINDOW";
/// Claude Code's: compact automatically at this percentage of the context
/// window (it can only lower the default threshold).
pub const CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: &str = "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE";
/// Claude Code's: attempts at valid `--json-schema` output before giving up.
pub const MAX_STRUCTURED_OUTPUT_RETRIES: &str = "MAX_STRUCTURED_OUTPUT_RETRIES";
/// The managed policy memory file (default `/etc/claude-code/CLAUDE.md`).
pub const ORBIT_MANAGED_MEMORY_PATH: &str = "ORBIT_MANAGED_MEMORY_PATH";

/// One environment variable orbit reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvVar {
    /// The variable's name.
    pub name: &'static str,
    /// What it sets, its default, and who reads it.
    pub meaning: &'static str,
}

/// Every environment variable orbit reads, with its meaning.
pub const ENV_VARS: &[EnvVar] = &[
    EnvVar {
        name: ORBIT_HOME,
        meaning: "Data directory (default `$HOME/.orbit`): settings.json, large tool results, the local model. Process environment only.",
    },
    EnvVar {
        name: HOME,
        meaning: "Home directory: the default data directory and `~/.claude/settings.json`. Process environment only.",
    },
    EnvVar {
        name: CLAUDE_CONFIG_DIR,
        meaning: "Claude Code's configuration directory, read as Claude Code reads it: `settings.json` there instead of `~/.claude/settings.json`, and MCP servers from `$CLAUDE_CONFIG_DIR/.claude.json` instead of `~/.claude.json`. Process environment only.",
    },
    EnvVar {
        name: ORBIT_LOG,
        meaning: "Log filter in env-filter syntax (`orbit_model=trace`, `debug,h2=info`); overrides `-d`. Process environment only.",
    },
    EnvVar {
        name: ORBIT_PROVIDER,
        meaning: "`anthropic`, `openai` or `local`; below `--provider`, above the credential-based choice.",
    },
    EnvVar {
        name: ANTHROPIC_API_KEY,
        meaning: "Anthropic API key, sent as `x-api-key`; selects the anthropic provider.",
    },
    EnvVar {
        name: ANTHROPIC_AUTH_TOKEN,
        meaning: "Alternative credential, sent as `Authorization: Bearer …`; selects the anthropic provider.",
    },
    EnvVar {
        name: ANTHROPIC_BASE_URL,
        meaning: "Messages API base URL (default `https://api.anthropic.com`); selects the anthropic provider.",
    },
    EnvVar {
        name: ANTHROPIC_MODEL,
        meaning: "Model of the anthropic provider (below `--model`, above `model` in settings; default `claude-opus-5-5`). Claude Code's aliases work: `opus`, `sonnet`, `haiku`, `fable`, `best`, `default`, `opusplan`, with or without `[1m]`.",
    },
    EnvVar {
        name: ANTHROPIC_DEFAULT_OPUS_MODEL,
        meaning: "The model the `opus` alias names, and `best`, `default`, the default model, and `opusplan` in plan mode (default: the alias table's), as in Claude Code.",
    },
    EnvVar {
        name: ANTHROPIC_DEFAULT_SONNET_MODEL,
        meaning: "The model the `sonnet` alias names, and `opusplan` outside plan mode (default: the alias table's), as in Claude Code.",
    },
    EnvVar {
        name: ANTHROPIC_DEFAULT_HAIKU_MODEL,
        meaning: "The model the `haiku` alias names (default: the alias table's), and the small fast model unless `ANTHROPIC_SMALL_FAST_MODEL` is set.",
    },
    EnvVar {
        name: ANTHROPIC_SMALL_FAST_MODEL,
        meaning: "The model of side requests with the Anthropic provider (aliases resolve): WebFetch's prompt over the page, WebSearch's server-side search. Default: the catalog's small fast model (haiku); other providers use the session's model.",
    },
    EnvVar {
        name: CLAUDE_CODE_MAX_OUTPUT_TOKENS,
        meaning: "`max_tokens` of every Anthropic request (default: the model's own, as Claude Code sends it), capped at the model's output limit; `--max-tokens` wins. The openai and local providers ignore it (one note).",
    },
    EnvVar {
        name: CLAUDE_CODE_EFFORT_LEVEL,
        meaning: "Reasoning effort sent as `output_config.effort`: `low`, `medium`, `high`, `xhigh`, `max` (stepped down to what the model takes), or `auto` (none sent). As in Claude Code it wins over `--effort` and settings `effortLevel`; default: the model's (`medium` for Claude 5.5 models).",
    },
    EnvVar {
        name: CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING,
        meaning: "A true value (the SDK's `enable_file_checkpointing`) lets the SDK's `rewind_files` restore the files to before a user message's prompt (orbit takes per-prompt checkpoints in every persisted session; `orbit rewind` works without it).",
    },
    EnvVar {
        name: ANTHROPIC_BETAS,
        meaning: "More `anthropic-beta` values, comma-separated, after orbit's own (`claude-code-20250219` and one per feature a request uses); `--betas` adds more.",
    },
    EnvVar {
        name: ANTHROPIC_CUSTOM_HEADERS,
        meaning: "More headers for every Anthropic request, one `Name: value` per line (an `anthropic-beta` there joins the betas).",
    },
    EnvVar {
        name: DISABLE_PROMPT_CACHING,
        meaning: "`1`/`true`: no `cache_control` markers in Anthropic requests (the system prompt and newest message are marked by default).",
    },
    EnvVar {
        name: OPENAI_API_KEY,
        meaning: "OpenAI key, sent as Bearer (optional for local servers); selects the openai provider.",
    },
    EnvVar {
        name: OPENAI_BASE_URL,
        meaning: "OpenAI-compatible base URL with `/v1` (default `https://api.openai.com/v1`); selects the openai provider.",
    },
    EnvVar {
        name: OPENAI_MODEL,
        meaning: "Model of the openai provider (below `--model`, above `model` in settings; default `gpt-4.1`).",
    },
    EnvVar {
        name: ORBIT_OPENAI_FENCED_TOOL_CALLS,
        meaning: "`1`/`true`: turn fenced JSON tool calls in text into tool calls with `--provider openai` (always on for `local`).",
    },
    EnvVar {
        name: ORBIT_SMALL_MODEL,
        meaning: "`1`/`true`: use the small-model profile (lean prompt, four tools, 25 turns by default, recovery turns) with any provider; `0`/`false`: turn it off for `local` (default: on for `local` only).",
    },
    EnvVar {
        name: ORBIT_SANDBOX,
        meaning: "OS sandbox of Bash commands: `read-only`, `workspace-write` or `danger-full-access` (below `--sandbox`, above `sandbox.mode` in settings; default: by permission mode).",
    },
    EnvVar {
        name: ORBIT_MAX_RETRIES,
        meaning: "Retries of a failed model call (default 10).",
    },
    EnvVar {
        name: ORBIT_RETRY_BASE_DELAY_MS,
        meaning: "First retry backoff in ms (default 500; doubles per retry).",
    },
    EnvVar {
        name: ORBIT_IDLE_TIMEOUT_MS,
        meaning: "How long a silent response stream is waited for, in ms (default 90000 anthropic, 300000 openai/local).",
    },
    EnvVar {
        name: CLAUDE_CODE_API_KEY_HELPER_TTL_MS,
        meaning: "How long the key printed by the `apiKeyHelper` settings command is used before the command runs again, in ms (default 300000, Claude Code's; a 401 also runs it again, once).",
    },
    EnvVar {
        name: ORBIT_API_KEY_HELPER_TIMEOUT_MS,
        meaning: "How long one run of the `apiKeyHelper` command may take before the call fails with one error line, in ms (default 600000, Claude Code's).",
    },
    EnvVar {
        name: HTTPS_PROXY,
        meaning: "Proxy for `https://` requests of the model client, MCP HTTP servers and WebFetch (also `https_proxy`, `ALL_PROXY`). WebFetch resolves and checks every host itself before the proxy sees it. Process only.",
    },
    EnvVar {
        name: HTTP_PROXY,
        meaning: "Proxy for `http://` requests (also `http_proxy`). Process only.",
    },
    EnvVar {
        name: NO_PROXY,
        meaning: "Comma-separated hosts, domains and CIDRs reached without the proxy (also `no_proxy`). Process only.",
    },
    EnvVar {
        name: NODE_EXTRA_CA_CERTS,
        meaning: "A PEM file whose certificates are added to the trust store of the model client and WebFetch (as Node does for Claude Code); read when the first `https://` client is built. Process only.",
    },
    EnvVar {
        name: SSL_CERT_FILE,
        meaning: "A PEM file that replaces the system trust store (`SSL_CERT_DIR`: a directory of them). Process only.",
    },
    EnvVar {
        name: CLAUDE_CODE_CLIENT_CERT,
        meaning: "A PEM client certificate for mutual TLS, with `CLAUDE_CODE_CLIENT_KEY` (model client and WebFetch). Process only.",
    },
    EnvVar {
        name: CLAUDE_CODE_CLIENT_KEY,
        meaning: "The client certificate's private key, PEM: unencrypted, or an encrypted PKCS#8 key (`BEGIN ENCRYPTED PRIVATE KEY`) opened with `CLAUDE_CODE_CLIENT_KEY_PASSPHRASE` (a missing or wrong passphrase: the pair is ignored with a warning). Process only.",
    },
    EnvVar {
        name: CLAUDE_CODE_CLIENT_KEY_PASSPHRASE,
        meaning: "The passphrase of an encrypted PKCS#8 `CLAUDE_CODE_CLIENT_KEY` (PBES2: PBKDF2 or scrypt, AES-CBC, as `openssl pkcs8 -topk8` writes it). Process only.",
    },
    EnvVar {
        name: CLAUDE_CODE_USE_BEDROCK,
        meaning: "`1`/`true`: Claude on Amazon Bedrock — `POST /model/<id>/invoke-with-response-stream`, SigV4-signed (or `AWS_BEARER_TOKEN_BEDROCK`), the model's inference profile from the catalog (`claude-opus-5-5` → `us.anthropic.claude-opus-5-5`; a Bedrock id or ARN in `ANTHROPIC_MODEL` is sent as is). Selects the Anthropic request shape; wins over `ANTHROPIC_API_KEY`. `CLAUDE_CODE_SKIP_BEDROCK_AUTH=1` sends no credentials (a gateway signs).",
    },
    EnvVar {
        name: ANTHROPIC_BEDROCK_BASE_URL,
        meaning: "Bedrock's base URL instead of `https://bedrock-runtime.<AWS_REGION>.amazonaws.com` (a gateway, a VPC endpoint).",
    },
    EnvVar {
        name: AWS_REGION,
        meaning: "Bedrock's region (else `AWS_DEFAULT_REGION`; neither: an error before any request). Also the SigV4 signing region.",
    },
    EnvVar {
        name: AWS_PROFILE,
        meaning: "The profile of `~/.aws/credentials` / `~/.aws/config` (`AWS_SHARED_CREDENTIALS_FILE`, `AWS_CONFIG_FILE`) whose keys, SSO login (`aws sso login`) or `credential_process` sign Bedrock requests, after `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN` and before the container endpoint and IMDS (`AWS_EC2_METADATA_DISABLED=true` skips it). Found on the first request.",
    },
    EnvVar {
        name: AWS_BEARER_TOKEN_BEDROCK,
        meaning: "A Bedrock API key, sent as `Authorization: Bearer` instead of a SigV4 signature. Tools never see it.",
    },
    EnvVar {
        name: CLAUDE_CODE_USE_VERTEX,
        meaning: "`1`/`true`: Claude on Google Vertex AI — `POST …/projects/<project>/locations/<region>/publishers/anthropic/models/<model>:streamRawPredict` with a bearer token from Google application default credentials. `CLAUDE_CODE_SKIP_VERTEX_AUTH=1` sends no token.",
    },
    EnvVar {
        name: ANTHROPIC_VERTEX_PROJECT_ID,
        meaning: "The Google Cloud project of Vertex AI (unset: an error before any request).",
    },
    EnvVar {
        name: CLOUD_ML_REGION,
        meaning: "Vertex AI's region (default `us-east5`; `global` uses `aiplatform.googleapis.com`); one model's own region from Claude Code's `VERTEX_REGION_CLAUDE_…` variable (`VERTEX_REGION_CLAUDE_HAIKU_4_5`, `VERTEX_REGION_CLAUDE_4_0_OPUS`, …).",
    },
    EnvVar {
        name: ANTHROPIC_VERTEX_BASE_URL,
        meaning: "Vertex AI's URL before `/projects/…` instead of `https://<region>-aiplatform.googleapis.com/v1`.",
    },
    EnvVar {
        name: GOOGLE_APPLICATION_CREDENTIALS,
        meaning: "A service-account key file (a JWT signed with its key, exchanged at its `token_uri`) or a user's credentials file for Vertex AI; unset: gcloud's `~/.config/gcloud/application_default_credentials.json`, then the metadata server (`GCE_METADATA_HOST`). Found on the first request.",
    },
    EnvVar {
        name: ORBIT_MAX_TOOL_USE_CONCURRENCY,
        meaning: "Concurrency-safe tools run at most this many at once (default 10).",
    },
    EnvVar {
        name: CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY,
        meaning: "Claude Code's name for the same cap, used when the orbit one is unset or invalid.",
    },
    EnvVar {
        name: ORBIT_TOOL_RESULT_BUDGET_CHARS,
        meaning: "Tool results of one message may total this many chars before the largest are saved to files (default 200000).",
    },
    EnvVar {
        name: ORBIT_TOOLS_SEE_SECRETS,
        meaning: "`1`/`true`: Bash (and later MCP servers) keep `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, `OPENAI_API_KEY`, `CLAUDE_CODE_OAUTH_TOKEN`, `AWS_BEARER_TOKEN_BEDROCK`, `ANTHROPIC_CUSTOM_HEADERS` and `ORBIT_*_KEY/_TOKEN/_SECRET/_PASSWORD` in their environment (default: removed). Not settable by project or local settings.",
    },
    EnvVar {
        name: ORBIT_WEBFETCH_ALLOW_HOSTS,
        meaning: "Comma-separated host names (or `*`) WebFetch may reach although they resolve to a loopback, private or link-local address (local development). Not settable by project or local settings.",
    },
    EnvVar {
        name: ORBIT_WEBSEARCH_BACKEND,
        meaning: "WebSearch's search backend: `searxng`, `brave` or `tavily` (default: none; the Anthropic provider searches with the Messages API's server-side web search, the others need a backend).",
    },
    EnvVar {
        name: ORBIT_WEBSEARCH_URL,
        meaning: "The search backend's base URL (required for SearXNG, e.g. `http://127.0.0.1:8888`; Brave and Tavily default to their public APIs).",
    },
    EnvVar {
        name: ORBIT_WEBSEARCH_API_KEY,
        meaning: "The search backend's API key (Brave's subscription token, Tavily's key); kept out of the tools' processes like every `ORBIT_*_KEY`.",
    },
    EnvVar {
        name: ORBIT_CONTEXT_WINDOW,
        meaning: "The model's context window in tokens, for automatic compaction (default: orbit's table by model name, e.g. 1000000 for Claude models, 8192 for the local model; 200000 for Claude 4.6 and older).",
    },
    EnvVar {
        name: CLAUDE_AUTOCOMPACT_PCT_OVERRIDE,
        meaning: "Compact automatically once the next request would pass this percentage (1-100) of the usable window; as in Claude Code it can only lower the default threshold.",
    },
    EnvVar {
        name: MAX_STRUCTURED_OUTPUT_RETRIES,
        meaning: "`--json-schema`: attempts at valid structured output before `error_max_structured_output_retries` (default 5).",
    },
    EnvVar {
        name: ORBIT_MANAGED_MEMORY_PATH,
        meaning: "The managed policy memory file, loaded first into the system prompt (default `/etc/claude-code/CLAUDE.md`, as Claude Code on Linux).",
    },
    EnvVar {
        name: MCP_TIMEOUT,
        meaning: "MCP servers: how long starting and connecting one may take, in ms (default 30000).",
    },
    EnvVar {
        name: MCP_TOOL_TIMEOUT,
        meaning: "MCP servers: how long one tool call may take, in ms, before it is cancelled (default 100000000).",
    },
    EnvVar {
        name: MAX_MCP_OUTPUT_TOKENS,
        meaning: "An MCP tool result longer than this many tokens (×4 chars) is saved to a file and the model gets a preview (default 25000).",
    },
    EnvVar {
        name: MAX_THINKING_TOKENS,
        meaning: "Extended thinking with this token budget on every model call (Anthropic provider; 0 = off, else at least 1024); `--max-thinking-tokens` wins.",
    },
    EnvVar {
        name: ENABLE_TOOL_SEARCH,
        meaning: "Deferred MCP tools with ToolSearch: `true` always (default, as Claude Code), `false` never, `auto` when MCP tool definitions would take more than 10% of the context window (the small-model profile's default), `auto:N` for N%.",
    },
];
