//! Scoped grants: allow rules that hold for one prompt only — a custom
//! command's `allowed-tools` (and, later, a skill's).
//!
//! Data flow: `QueryEngine::grant_scope` (`crate::prompt_session`, through
//! `crate::turn_permissions`)
//! compiles the rules into a [`GrantScope`] registered in the session's
//! [`GrantScopes`] (held by its `ToolRuntime`); while it lives,
//! the permission gate (`gate::decide`) turns an `Ask` of the session's
//! policy into `Allow` when the same policy with these rules added allows
//! the call. Deny rules, ask rules, plan mode, protected paths and the
//! workspace boundary are decided exactly as without the grant (the scoped
//! policy carries the same rules and mode); a grant only ever adds allow
//! rules. Dropping the scope (the prompt ended, its stream dropped, or an
//! error path) removes it: a grant never outlives the prompt. A leaf: the
//! scopes know nothing of the runtime that holds them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use orbit_permissions::{PermissionDecision, PermissionRequest, Policy, RuleError};

use crate::lock::lock;

/// The grant scopes alive in a session (usually none or one).
#[derive(Debug, Default)]
pub(crate) struct GrantScopes {
    next_id: AtomicU64,
    active: Mutex<Vec<(u64, Arc<Policy>)>>,
}

impl GrantScopes {
    /// Whether a live scope allows a call the session's policy (`main`)
    /// would ask about.
    pub(crate) fn allows(&self, main: &Policy, request: &PermissionRequest<'_>) -> bool {
        let scopes: Vec<Arc<Policy>> = lock(&self.active)
            .iter()
            .map(|(_, p)| Arc::clone(p))
            .collect();
        scopes.iter().any(|scoped| {
            scoped.set_mode(main.mode());
            scoped.decide(request) == PermissionDecision::Allow
        })
    }

    /// Registers `policy` (the session's policy with the granted allow
    /// rules added) until the returned scope is dropped.
    pub(crate) fn grant(self: &Arc<Self>, policy: Policy, errors: Vec<RuleError>) -> GrantScope {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        lock(&self.active).push((id, Arc::new(policy)));
        GrantScope {
            id,
            scopes: Arc::clone(self),
            errors,
        }
    }

    fn remove(&self, id: u64) {
        lock(&self.active).retain(|(i, _)| *i != id);
    }

    /// How many scopes are alive (tests, diagnostics).
    pub(crate) fn len(&self) -> usize {
        lock(&self.active).len()
    }
}

/// Allow rules granted while this value lives (see the module docs).
/// Dropping it ends the grant.
#[derive(Debug)]
pub struct GrantScope {
    id: u64,
    scopes: Arc<GrantScopes>,
    errors: Vec<RuleError>,
}

impl GrantScope {
    /// Rules that did not compile (they grant nothing).
    pub fn errors(&self) -> &[RuleError] {
        &self.errors
    }
}

impl Drop for GrantScope {
    fn drop(&mut self) {
        self.scopes.remove(self.id);
    }
}
