//! Building request headers: [`header`] appends one, checked (a name or
//! value that is not valid HTTP is a config error, not a panic) and marked
//! sensitive when it carries a credential, so `Debug` output does not show
//! it; [`bearer`] is the `Authorization: Bearer` header of a token. A leaf
//! below every client, the driver and the cloud authorizers (`crate::auth`).

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};

use crate::ModelError;

/// Appends a header to `headers`; a clear config error when the name or
/// value is not valid in HTTP. Credentials (`authorization`, `x-api-key`)
/// are marked sensitive, so `Debug` output does not show them.
pub(crate) fn header(headers: &mut HeaderMap, name: &str, value: &str) -> Result<(), ModelError> {
    let n = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| ModelError::Config(format!("invalid header name `{name}`")))?;
    let mut v = HeaderValue::from_str(value)
        .map_err(|_| ModelError::Config(format!("invalid value for header `{name}`")))?;
    v.set_sensitive(n == AUTHORIZATION || n.as_str() == "x-api-key");
    headers.append(n, v);
    Ok(())
}

/// `Authorization: Bearer <token>` as headers.
pub(crate) fn bearer(token: &str) -> Result<HeaderMap, ModelError> {
    let mut out = HeaderMap::new();
    header(&mut out, "authorization", &format!("Bearer {token}"))?;
    Ok(out)
}
