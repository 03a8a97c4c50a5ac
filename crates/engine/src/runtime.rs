//! [`ToolRuntime`]: what every tool call of a session shares — the tools,
//! the tool context, the compiled permission policy, the approver, the
//! rules file, result storage, the concurrency cap, the handle denials
//! are recorded in (`crate::denials`, owned by the session) and the hook
//! points. `QueryEngine` and `ToolRunner` build it with
//! [`ToolRuntime::new`]; the orchestrator, the gate and the executor read it.

use std::sync::Arc;

use orbit_permissions::Policy;
use orbit_protocol::PermissionDenial;
use orbit_tool::{ToolRegistry, ToolUseContext};

use crate::approve::SharedApprover;
use crate::config::EngineConfig;
use crate::denials::Denials;
use crate::grants::GrantScopes;
use crate::hooks::HookPoints;
use crate::results::ToolResultStorage;

/// Everything a tool call needs, shared by all calls of a session.
#[derive(Debug)]
pub(crate) struct ToolRuntime {
    /// The tools the model may call.
    pub(crate) tools: ToolRegistry,
    /// Session context handed to every tool call.
    pub(crate) context: ToolUseContext,
    /// Permission mode and rules, compiled for the project root.
    pub(crate) permissions: Arc<Policy>,
    /// Who answers asks; None = headless (an ask is a denial).
    pub(crate) approver: Option<SharedApprover>,
    /// Where "always allow" answers are persisted (None: this session only).
    pub(crate) rules_file: Option<std::path::PathBuf>,
    /// Where oversized results are persisted.
    pub(crate) storage: ToolResultStorage,
    /// X2: at most this many tools execute at once (≥ 1).
    pub(crate) max_concurrency: usize,
    /// P1: every call the permission gate refused, recorded when it is
    /// refused (the session's handle: the session owns the list).
    denials: Denials,
    /// The session's hooks (PreToolUse, PermissionRequest, Notification,
    /// PostToolUse, PostToolUseFailure are consulted here).
    pub(crate) hooks: HookPoints,
    /// Adds text to finished calls' results (`crate::attachments`).
    pub(crate) attachments: Option<Arc<dyn crate::attachments::ResultAttachments>>,
    /// Allow rules granted for one prompt (`crate::grants`).
    pub(crate) grants: Arc<GrantScopes>,
    /// Told before and after each writing call (`crate::checkpoint`).
    pub(crate) checkpoints: Option<Arc<dyn crate::checkpoint::Checkpoints>>,
}

impl ToolRuntime {
    /// The runtime of a session configured by `config`: its policy
    /// compiled for the (canonical) project root `context` was made for (a rule that
    /// does not compile is logged), searches filtered by the read deny
    /// rules, results persisted under the session's directory, the hooks
    /// told `transcript` (empty when there is none), denials recorded in
    /// `denials`.
    pub(crate) fn new(
        config: &EngineConfig,
        tools: ToolRegistry,
        mut context: ToolUseContext,
        transcript: std::path::PathBuf,
        denials: Denials,
    ) -> Self {
        let project_root = context.project_root.clone();
        let policy = Arc::new(Policy::new(&config.permissions, &project_root));
        for err in policy.errors() {
            tracing::error!(%err, "a permission rule does not compile; it allows nothing and a deny or ask rule covers its whole tool");
        }
        // Searches leave out what read deny rules cover (and Bash lists
        // what git tracks only when such rules exist).
        if policy.has_read_deny_rules() {
            let filter = Arc::clone(&policy);
            context.set_read_filter(move |path| filter.is_read_denied(path));
        }
        let storage = ToolResultStorage::new(&config.data_dir, &project_root, &config.session_id);
        let hooks = HookPoints::new(
            config.hooks.clone(),
            &config.session_id,
            transcript,
            &project_root,
            config.permissions.mode.as_str(),
        );
        Self {
            tools,
            context,
            permissions: policy,
            approver: config.approver.clone(),
            rules_file: config.rules_file.clone(),
            storage,
            max_concurrency: config.max_tool_use_concurrency.max(1),
            denials,
            hooks,
            grants: Arc::default(),
            attachments: config.result_attachments.clone(),
            checkpoints: config.checkpoints.clone(),
        }
    }

    pub(crate) fn record_denial(&self, denial: PermissionDenial) {
        self.denials.record(denial);
    }

    /// The recorded denials of the calls with these tool_use ids.
    pub(crate) fn denials_of(&self, ids: &[&str]) -> Vec<PermissionDenial> {
        self.denials.read(|all| {
            all.iter()
                .filter(|d| ids.contains(&d.tool_use_id.as_str()))
                .cloned()
                .collect()
        })
    }
}
