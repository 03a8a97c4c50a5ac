//! The `Skill` tool's way to the session's skills ([`SkillLibrary`]) and
//! the grants a tool opens for the rest of the user's turn
//! ([`TurnGrants`]).
//!
//! Data flow: the session assembly (`orbit`) implements [`SkillLibrary`]
//! over the skills it found and hands it to the tool; the tool lists
//! [`SkillLibrary::listing`] in its description, and a call loads one
//! skill ([`SkillLibrary::load`]: its text and the allow rules it grants).
//! The rules go to the session's [`TurnGrants`] (a context extension): the
//! engine installs the granter when it builds the session (its one
//! scoped-grant mechanism) and ends every grant when the user's turn ends.
//! No granter (a runner without turns): nothing is granted.

use std::any::Any;
use std::sync::{Arc, Mutex};

use crate::context::ToolUseContext;

/// What a loaded skill gives the model and the session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillLoad {
    /// The skill's name as listed.
    pub name: String,
    /// What the model reads: the skill's folder and its instructions.
    pub text: String,
    /// Allow rules (permission-rule syntax) for the rest of the turn.
    pub allowed_tools: Vec<String>,
}

/// The skills a session offers. Implemented by the session assembly.
pub trait SkillLibrary: Send + Sync {
    /// The skills' names.
    fn names(&self) -> Vec<String>;
    /// `- name: description` lines for the tool's description (within the
    /// library's size budget).
    fn listing(&self) -> String;
    /// The skill `name` with `args` filled; None when there is no such
    /// skill.
    fn load(&self, name: &str, args: &str) -> Option<SkillLoad>;
}

/// Opens a grant of allow rules: the guard (dropping it ends the grant)
/// and the rules that did not compile, as lines.
pub type TurnGranter = dyn Fn(&[String]) -> (Box<dyn Any + Send + Sync>, Vec<String>) + Send + Sync;

/// Context extension key of the session's [`TurnGrants`].
const TURN_GRANTS_KEY: &str = "orbit.turn_grants";

/// Grants that hold until the current user turn ends (see the module docs).
#[derive(Default)]
pub struct TurnGrants {
    granter: Mutex<Option<Arc<TurnGranter>>>,
    held: Mutex<Vec<Box<dyn Any + Send + Sync>>>,
    /// The skills loaded in this turn (a second call is answered briefly).
    loaded: Mutex<Vec<String>>,
}

impl std::fmt::Debug for TurnGrants {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnGrants")
            .field("held", &self.held())
            .finish()
    }
}

impl TurnGrants {
    /// The session's grants (every clone of `ctx` shares them).
    pub fn of(ctx: &ToolUseContext) -> Arc<Self> {
        ctx.extension(TURN_GRANTS_KEY, Self::default)
    }

    /// How grants are opened (the engine's scoped-grant mechanism).
    pub fn set_granter(&self, granter: Arc<TurnGranter>) {
        *lock(&self.granter) = Some(granter);
    }

    /// Grants `rules` until [`Self::end_turn`]; `Ok` holds the rules that
    /// did not compile, `Err` says nothing could be granted here.
    pub fn grant(&self, rules: &[String]) -> Result<Vec<String>, String> {
        if rules.is_empty() {
            return Ok(Vec::new());
        }
        let granter = lock(&self.granter).clone();
        let Some(granter) = granter else {
            return Err("this session has no turns to grant tools for".to_string());
        };
        let (guard, errors) = granter(rules);
        lock(&self.held).push(guard);
        Ok(errors)
    }

    /// Ends every grant of the turn (the engine calls it when a turn ends)
    /// and forgets what the turn loaded.
    pub fn end_turn(&self) {
        let ended = std::mem::take(&mut *lock(&self.held));
        drop(ended);
        lock(&self.loaded).clear();
    }

    /// Records that `skill` is loaded in this turn; false when it already
    /// was.
    pub fn first_load(&self, skill: &str) -> bool {
        let mut loaded = lock(&self.loaded);
        if loaded.iter().any(|s| s == skill) {
            return false;
        }
        loaded.push(skill.to_string());
        true
    }

    /// How many grants are held.
    pub fn held(&self) -> usize {
        lock(&self.held).len()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn grants_last_until_the_turn_ends() {
        let ctx = ToolUseContext::new("s", "/".into(), "/tmp".into());
        let grants = TurnGrants::of(&ctx);
        assert!(grants.grant(&["Bash(ls:*)".into()]).is_err());
        let live = Arc::new(());
        let probe = Arc::clone(&live);
        grants.set_granter(Arc::new(move |_rules: &[String]| {
            (
                Box::new(Arc::clone(&probe)) as Box<dyn Any + Send + Sync>,
                vec!["bad".into()],
            )
        }));
        assert_eq!(
            TurnGrants::of(&ctx.clone()).grant(&["X".into()]).unwrap(),
            ["bad"]
        );
        assert_eq!(Arc::strong_count(&live), 3);
        grants.end_turn();
        assert_eq!(Arc::strong_count(&live), 2);
        assert_eq!(grants.held(), 0);
        assert!(grants.first_load("a") && !grants.first_load("a"));
        grants.end_turn();
        assert!(grants.first_load("a"));
    }
}
