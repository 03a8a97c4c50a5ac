//! Per-attempt request authorization for the cloud providers: Bedrock's
//! SigV4 signature (or its bearer token) and Vertex's OAuth bearer token.
//!
//! Data flow: a client built for a cloud provider gives its transport an
//! [`Authorizer`] (`driver::Transport::set_authorizer`). Before each
//! attempt the driver (`driver::attempt::send`) hands it the request's URL,
//! the headers it will send and the body; the headers it returns are added
//! to the request. Credentials are found on the first call (not at start)
//! and cached by the authorizer; a 401 makes the driver call
//! [`Authorizer::invalidate`] and retry once, so an expired token is
//! fetched again.

use bytes::Bytes;
use futures::future::BoxFuture;
use reqwest::header::HeaderMap;

use crate::ModelError;

/// Adds the credentials of one attempt.
pub(crate) trait Authorizer: Send + Sync + std::fmt::Debug {
    /// The headers that authorize a `POST url` with `headers` and `body`.
    fn authorize<'a>(
        &'a self,
        url: &'a str,
        headers: &'a HeaderMap,
        body: &'a Bytes,
    ) -> BoxFuture<'a, Result<HeaderMap, ModelError>>;

    /// The server refused the credentials: find them again next time.
    fn invalidate(&self);
}
