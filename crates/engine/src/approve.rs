//! Asks: when the permission policy answers "ask", the orchestrator awaits
//! the session's [`Approver`] (a terminal prompt, an SDK's `can_use_tool`
//! callback). Without one (headless) an ask is a denial, recorded in
//! `permission_denials` with the policy's reason.
//!
//! An [`Approval::AllowAlways`] answer adds its rule to the session's
//! policy at once and, when the engine was given a settings file
//! (`EngineConfig::rules_file`, in the CLI the project's file in the
//! user's data directory, `orbit_config::saved_rules`), appends it to that file's
//! `permissions.allow` for later sessions.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

/// One call waiting for a human's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    /// The tool's name.
    pub tool_name: String,
    /// The tool_use id of the call.
    pub tool_use_id: String,
    /// The input the model sent.
    pub input: Value,
    /// Why the call was not allowed outright (the policy's reason).
    pub reason: String,
    /// The call's subject for a person (`npm test`, `src/main.rs`).
    pub subject: String,
    /// The rule "always allow" would add (see
    /// `orbit_permissions::suggested_rule`); None when no rule can express it.
    pub suggested_rule: Option<String>,
}

/// A human's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run this call.
    Allow,
    /// Run this call and allow calls matching `rule` from now on (the
    /// suggested rule, or one the person wrote).
    AllowAlways {
        /// An allow rule in Claude Code's syntax.
        rule: String,
    },
    /// Run the call with this input instead (an SDK's `updatedInput`); it
    /// goes through the same parse, validation and deny rules as the
    /// model's.
    AllowWithInput {
        /// The replacement input.
        input: Value,
    },
    /// Do not run it; `reason` (or the policy's) is what the model is told.
    Deny {
        /// Why, in the person's words.
        reason: Option<String>,
    },
}

/// Answers asks. The engine awaits it while the call waits (other calls of
/// the batch go on); implementations may take as long as a person needs.
#[async_trait]
pub trait Approver: Send + Sync {
    /// The answer for `request`.
    async fn approve(&self, request: &ApprovalRequest) -> Approval;

    /// The answer for a call a subagent makes (its session's approver is a
    /// [`SubagentApprover`] over this one). By default asked as the
    /// session's own; a prompt names the subagent, an SDK sends its id.
    async fn approve_for(&self, request: &ApprovalRequest, agent: &AskingAgent) -> Approval {
        let _ = agent;
        self.approve(request).await
    }
}

/// The subagent a call belongs to, as the person or SDK is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskingAgent {
    /// Its id (`a` + 16 hex digits, as the SubagentStart hook gives it).
    pub agent_id: String,
    /// Its type (`subagent_type`: `Explore`, a project agent's name).
    pub agent_type: String,
}

/// A subagent's approver: every ask goes to its parent's approver through
/// [`Approver::approve_for`], naming the subagent (the innermost one when
/// subagents nest). None is lost: the parent's approver answers or denies.
pub struct SubagentApprover {
    parent: SharedApprover,
    agent: AskingAgent,
}

impl SubagentApprover {
    /// `parent`'s asks made by `agent`, shareable as an engine's approver.
    pub fn shared(parent: SharedApprover, agent: AskingAgent) -> SharedApprover {
        SharedApprover(Arc::new(Self { parent, agent }))
    }
}

#[async_trait]
impl Approver for SubagentApprover {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        self.parent.0.approve_for(request, &self.agent).await
    }

    async fn approve_for(&self, request: &ApprovalRequest, agent: &AskingAgent) -> Approval {
        self.parent.0.approve_for(request, agent).await
    }
}

/// A shared approver that [`crate::EngineConfig`] can hold (Debug, Clone).
#[derive(Clone)]
pub struct SharedApprover(pub Arc<dyn Approver>);

impl fmt::Debug for SharedApprover {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SharedApprover(..)")
    }
}
