//! An approver's replacement input goes through step 1 again; when the
//! tool is not ready at that moment (an MCP server reconnecting), the call
//! awaits it as the model's own call would, instead of being told that "A
//! PreToolUse hook denied this call" (no hook ran).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use orbit_engine::{Approval, ApprovalRequest, Approver, SharedApprover};
use orbit_permissions::PermissionMode;
use orbit_test_support::{FakeAnthropic, Reply};
use orbit_tool::{
    Readiness, ResultLimit, Tool, ToolCall, ToolError, ToolOutput, ToolReadyFuture, ToolUseContext,
};
use serde_json::{Value, json};

use super::support::{TestTool, config, engine, last_results, result_text, run};

/// A tool that is not ready while `reconnecting` is set; awaiting it
/// (`Tool::ready`) finishes the reconnect.
struct Reconnecting {
    inner: Arc<dyn Tool>,
    reconnecting: Arc<AtomicBool>,
}

impl Tool for Reconnecting {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn description(&self) -> &str {
        self.inner.description()
    }
    fn input_schema(&self) -> &Value {
        self.inner.input_schema()
    }
    fn result_limit(&self) -> ResultLimit {
        self.inner.result_limit()
    }
    fn parse(&self, input: Value, ctx: &ToolUseContext) -> Result<Box<dyn ToolCall>, ToolError> {
        self.inner.parse(input, ctx)
    }
    fn readiness(&self) -> Readiness {
        if self.reconnecting.load(Ordering::SeqCst) {
            Readiness::NotYet {
                within: Duration::from_secs(5),
            }
        } else {
            Readiness::Ready
        }
    }
    fn ready(&self) -> ToolReadyFuture<'_> {
        self.reconnecting.store(false, Ordering::SeqCst);
        Box::pin(std::future::ready(Ok(())))
    }
}

/// Allows with another input, and the tool starts reconnecting meanwhile.
struct Replaces {
    reconnecting: Arc<AtomicBool>,
}

#[async_trait]
impl Approver for Replaces {
    async fn approve(&self, _request: &ApprovalRequest) -> Approval {
        self.reconnecting.store(true, Ordering::SeqCst);
        Approval::AllowWithInput {
            input: json!({"say": "replaced"}),
        }
    }
}

#[tokio::test]
async fn a_replacement_input_awaits_a_tool_that_is_not_ready() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Remote", json!({"say": "original"})),
        Reply::text("done"),
    ]);
    let reconnecting = Arc::new(AtomicBool::new(false));
    let inner = TestTool::new("Remote", |input, _| async move {
        ToolOutput::text(format!("said {}", input["say"].as_str().unwrap_or("?")))
    })
    .writes()
    .arc();
    let tool: Arc<dyn Tool> = Arc::new(Reconnecting {
        inner,
        reconnecting: Arc::clone(&reconnecting),
    });
    let mut cfg = config(&root);
    cfg.permissions.mode = PermissionMode::Default;
    cfg.approver = Some(SharedApprover(Arc::new(Replaces { reconnecting })));
    let mut engine = engine(&server, cfg, vec![tool]);
    run(&mut engine, "go").await;
    let results = last_results(engine.messages());
    let text = result_text(&results[0]);
    assert!(!text.contains("PreToolUse hook"), "{text}");
    assert_eq!(text, "said replaced");
    assert!(!results[0].is_error());
}
