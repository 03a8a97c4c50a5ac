//! A fake Vertex AI (`POST …/publishers/anthropic/models/<model>:streamRawPredict`,
//! answered with the Messages API's SSE) and a fake Google token endpoint
//! (`POST /token`) that checks a service account's signed JWT.
//!
//! Data flow: a test scripts [`VertexTurn`]s (an Anthropic [`Turn`]: the
//! same DSL, usage and faults) for [`FakeVertex`], and starts a
//! [`FakeGoogleToken`] whose replies are access tokens; [`service_account`]
//! writes a key file (an RSA key made by `openssl`) whose `token_uri` is
//! that endpoint, and [`vertex_env`] points orbit at both. The test then
//! reads the bearer tokens and URL paths of the captured requests, and
//! [`verify_jwt`] checks a token request's assertion (claims and RS256
//! signature) with the key's public half.

use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Value, json};

use crate::anthropic::Turn;
use crate::fake::{Dialect, FakeServer, ReplyOf};
use crate::http::{CapturedRequest, WireReply};

/// The project of [`vertex_env`].
pub const PROJECT: &str = "orbit-test-project";
/// The region of [`vertex_env`].
pub const REGION: &str = "us-east5";
/// The service account of [`service_account`].
pub const CLIENT_EMAIL: &str = "orbit-test@orbit-test-project.iam.gserviceaccount.com";

/// One streamed Vertex answer: an Anthropic turn over SSE.
#[derive(Debug, Clone)]
pub struct VertexTurn(pub Turn);

/// One scripted answer of the fake Vertex AI.
pub type VertexReply = ReplyOf<VertexTurn>;

/// The fake Vertex AI. Dropping it stops the server.
pub type FakeVertex = FakeServer<VertexTurn>;

crate::bedrock::turn_dialect! {
    VertexTurn: POST ":streamRawPredict" under "/v1",
    env "ANTHROPIC_VERTEX_BASE_URL" "ANTHROPIC_VERTEX_PROJECT_ID",
    server error "api_error", ids "msg_vrtx_",
    render |wire| wire, error body <Turn as Dialect>::error_body
}

/// A token endpoint's answer (`POST /token`).
#[derive(Debug, Clone)]
pub struct GoogleToken;

/// The fake Google token endpoint.
pub type FakeGoogleToken = FakeServer<GoogleToken>;

impl Dialect for GoogleToken {
    const ROUTE: &'static str = "/token";
    const BASE_PATH: &'static str = "/token";
    const ENV_BASE_URL: &'static str = "ORBIT_TEST_GOOGLE_TOKEN_URI";
    const ENV_API_KEY: &'static str = "ORBIT_TEST_GOOGLE_TOKEN";
    const SERVER_ERROR_TYPE: &'static str = "server_error";
    const ID_PREFIX: &'static str = "tok_";
    const MODEL: &'static str = "";

    fn with_text(_text: &str) -> Self {
        GoogleToken
    }

    fn render(&self, _position: usize) -> WireReply {
        WireReply::json(200, "{}")
    }

    fn error_body(error_type: &str, message: &str) -> String {
        json!({ "error": error_type, "error_description": message }).to_string()
    }
}

/// A token endpoint reply: `access_token` valid for `expires_in` seconds.
pub fn access_token(token: &str, expires_in: u64) -> ReplyOf<GoogleToken> {
    ReplyOf::status(
        200,
        json!({"access_token": token, "expires_in": expires_in, "token_type": "Bearer"})
            .to_string(),
    )
}

/// Writes `dir/key.pem` (a new RSA key, `openssl genpkey`) and
/// `dir/service-account.json` naming `token_uri`; the JSON file's path.
pub fn service_account(dir: &Path, token_uri: &str) -> PathBuf {
    let pem = dir.join("key.pem");
    let status = std::process::Command::new("openssl")
        .args([
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-out",
        ])
        .arg(&pem)
        .stderr(std::process::Stdio::null())
        .status();
    assert!(status.is_ok_and(|s| s.success()), "openssl genpkey failed");
    let private_key = std::fs::read_to_string(&pem).unwrap_or_default();
    let key = json!({
        "type": "service_account",
        "project_id": PROJECT,
        "private_key_id": "k1",
        "private_key": private_key,
        "client_email": CLIENT_EMAIL,
        "token_uri": token_uri,
    });
    let path = dir.join("service-account.json");
    std::fs::write(&path, key.to_string()).unwrap_or_default();
    path
}

/// Environment for `orbit` against `vertex`: Vertex on, its URL, the
/// project and region, the key file, fast retries.
pub fn vertex_env(vertex: &FakeVertex, key_file: &Path) -> Vec<(String, String)> {
    let mut env = vertex.env();
    env.retain(|(k, _)| k != VertexTurn::ENV_API_KEY);
    env.extend(
        [
            ("CLAUDE_CODE_USE_VERTEX", "1"),
            ("ANTHROPIC_VERTEX_PROJECT_ID", PROJECT),
            ("CLOUD_ML_REGION", REGION),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string())),
    );
    env.push((
        "GOOGLE_APPLICATION_CREDENTIALS".into(),
        key_file.display().to_string(),
    ));
    env
}

/// Checks a token request: a JWT-bearer grant whose assertion names the
/// service account, the cloud-platform scope and `token_uri` as audience,
/// signed RS256 with the key in `pem_file`.
pub fn verify_jwt(
    request: &CapturedRequest,
    pem_file: &Path,
    token_uri: &str,
) -> Result<(), String> {
    let form: Vec<(String, String)> = request
        .raw_body
        .split('&')
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            Some((k.to_string(), percent_decode(v)))
        })
        .collect();
    let field = |name: &str| form.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    if field("grant_type").as_deref() != Some("urn:ietf:params:oauth:grant-type:jwt-bearer") {
        return Err(format!("not a JWT-bearer grant: {}", request.raw_body));
    }
    let assertion = field("assertion").ok_or("no assertion")?;
    let parts: Vec<&str> = assertion.split('.').collect();
    let [head, claims, signature] = parts[..] else {
        return Err("the assertion is not a JWT".into());
    };
    let decode = |part: &str| URL_SAFE_NO_PAD.decode(part).map_err(|e| e.to_string());
    let claims: Value = serde_json::from_slice(&decode(claims)?).map_err(|e| e.to_string())?;
    let want = [
        ("iss", CLIENT_EMAIL),
        ("aud", token_uri),
        ("scope", "https://www.googleapis.com/auth/cloud-platform"),
    ];
    for (key, value) in want {
        if claims[key] != value {
            return Err(format!("claim {key} is {} not {value}", claims[key]));
        }
    }
    let pem = std::fs::read_to_string(pem_file).map_err(|e| e.to_string())?;
    let der: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    let der = STANDARD.decode(der).map_err(|e| e.to_string())?;
    let pair = ring::signature::RsaKeyPair::from_pkcs8(&der).map_err(|e| e.to_string())?;
    let public = ring::signature::UnparsedPublicKey::new(
        &ring::signature::RSA_PKCS1_2048_8192_SHA256,
        ring::signature::KeyPair::public_key(&pair)
            .as_ref()
            .to_vec(),
    );
    public
        .verify(
            format!("{head}.{}", parts[1]).as_bytes(),
            &decode(signature)?,
        )
        .map_err(|_| "the JWT signature does not verify".to_string())
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
