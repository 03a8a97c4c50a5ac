//! The `sandbox` object of a settings file, as written
//! ([`SandboxSection`], [`SandboxNetworkSection`]): part of the file's
//! shape, read by [`super::Settings`]; `crate::sandbox` resolves it.

use serde::Deserialize;

/// The `sandbox` object of a settings file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SandboxSection {
    /// `read-only`, `workspace-write` or `danger-full-access`.
    pub mode: Option<String>,
    /// Extra directories commands may write (`~/` is the home directory,
    /// relative paths are taken from the session cwd).
    pub writable_roots: Vec<String>,
    /// Extra paths commands may not read.
    pub deny_read: Vec<String>,
    /// `network`.
    pub network: SandboxNetworkSection,
}

/// The `sandbox.network` object.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SandboxNetworkSection {
    /// Hosts commands may reach through orbit's proxy (`*.example.com`
    /// matches subdomains).
    pub allowed_domains: Vec<String>,
}
