//! AWS Signature Version 4, recomputed for a captured request, following
//! AWS's specification ("Create a signed AWS API request"): canonical
//! request (method, URI with each path segment encoded again, query,
//! the signed headers, their names, the body's SHA-256) → string to sign
//! (algorithm, `x-amz-date`, scope, the canonical request's hash) → HMAC
//! chain of the secret over date, region, service and `aws4_request`.

use ring::{digest, hmac};

use crate::http::CapturedRequest;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn mac(key: &[u8], data: &str) -> Vec<u8> {
    let key = hmac::Key::new(hmac::HMAC_SHA256, key);
    hmac::sign(&key, data.as_bytes()).as_ref().to_vec()
}

/// RFC 3986 encoding of everything but the unreserved characters
/// (`A-Z a-z 0-9 - _ . ~`), per byte, upper-case hex.
fn uri_encode(text: &str) -> String {
    const UNRESERVED: &str = "-_.~";
    let keep = |c: char| c.is_ascii_alphanumeric() || UNRESERVED.contains(c);
    text.chars()
        .flat_map(|c| {
            let mut utf8 = [0u8; 4];
            let bytes = c.encode_utf8(&mut utf8).as_bytes().to_vec();
            match keep(c) {
                true => vec![c.to_string()],
                false => bytes.iter().map(|b| format!("%{b:02X}")).collect(),
            }
        })
        .collect()
}

/// The signature SigV4 gives `request` with this secret, as a hex string,
/// from the `Authorization` header's scope and signed headers; or why it
/// cannot be computed.
pub fn expected_signature(request: &CapturedRequest, secret: &str) -> Result<String, String> {
    let auth = request
        .header("authorization")
        .ok_or("no authorization header")?;
    let rest = auth
        .strip_prefix("AWS4-HMAC-SHA256 ")
        .ok_or("not AWS4-HMAC-SHA256")?;
    let part = |name: &str| {
        rest.split(", ")
            .find_map(|p| p.trim().strip_prefix(name))
            .ok_or(format!("no {name} in the authorization header"))
    };
    let credential = part("Credential=")?;
    let signed_headers = part("SignedHeaders=")?;
    let scope = credential.split_once('/').ok_or("bad credential")?.1;
    let mut scope_parts = scope.split('/');
    let (date, region, service) = (
        scope_parts.next().ok_or("no date")?,
        scope_parts.next().ok_or("no region")?,
        scope_parts.next().ok_or("no service")?,
    );
    let amz_date = request.header("x-amz-date").ok_or("no x-amz-date")?;
    let (path, query) = request.path.split_once('?').unwrap_or((&request.path, ""));
    let canonical_uri: Vec<String> = path.split('/').map(uri_encode).collect();
    let mut canonical = format!(
        "{}\n{}\n{}\n",
        request.method,
        canonical_uri.join("/"),
        query
    );
    for name in signed_headers.split(';') {
        let value = request
            .header(name)
            .ok_or(format!("signed header {name} missing"))?;
        let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
        canonical.push_str(&format!("{name}:{value}\n"));
    }
    let body_hash = hex(digest::digest(&digest::SHA256, request.raw_body.as_bytes()).as_ref());
    canonical.push_str(&format!("\n{signed_headers}\n{body_hash}"));
    let string_to_sign = format!(
        "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
        hex(digest::digest(&digest::SHA256, canonical.as_bytes()).as_ref())
    );
    let key = [date, region, service, "aws4_request"]
        .iter()
        .fold(format!("AWS4{secret}").into_bytes(), |key, part| {
            mac(&key, part)
        });
    Ok(hex(&mac(&key, &string_to_sign)))
}

/// Checks `request`'s SigV4 signature against one computed with `secret`.
pub fn verify(request: &CapturedRequest, secret: &str) -> Result<(), String> {
    let expected = expected_signature(request, secret)?;
    let auth = request.header("authorization").unwrap_or_default();
    let sent = auth
        .rsplit_once("Signature=")
        .map(|(_, s)| s.trim())
        .unwrap_or_default();
    if sent == expected {
        Ok(())
    } else {
        Err(format!("signature {sent} != recomputed {expected}"))
    }
}
