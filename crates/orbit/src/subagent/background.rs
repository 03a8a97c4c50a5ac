//! `run_in_background`: a subagent that goes on after its Agent call
//! returned.
//!
//! Data flow: [`SubagentFactory::launch_background`] checks the definition,
//! picks the agent id, lists the task in the parent's
//! [`BackgroundTasks`] (with the token TaskStop cancels) and spawns
//! `run_as` on the runtime with a call whose cancel is that token; the
//! Agent call returns the launch at once. When the subagent ends (done,
//! failed, or stopped: its turn aborted, its tools cancelled), its
//! [`task_notification`] is queued in the registry, which the front end
//! delivers to the parent as a later user message.

use orbit_tool::subagent::{
    BackgroundTask, BackgroundTasks, SubagentLaunch, TaskEnd, task_notification,
};
use orbit_tool::{CallContext, SubagentReport, SubagentRequest, ToolUseContext};
use tokio_util::sync::CancellationToken;

use super::{SubagentFactory, short_id};

impl SubagentFactory {
    /// Starts the subagent in the background; see the module docs.
    pub(super) fn launch_background(
        &self,
        request: SubagentRequest,
        call: &CallContext,
        ctx: &ToolUseContext,
    ) -> Result<SubagentLaunch, String> {
        self.definition(&request)?;
        let agent_id = short_id();
        let output_file = self.sidechain(&agent_id);
        let tasks = BackgroundTasks::of(ctx);
        let stop = CancellationToken::new();
        let mut task_call = call.clone();
        task_call.cancel = stop.clone();
        tasks.start(BackgroundTask {
            id: agent_id.clone(),
            description: request.description.clone(),
            stop,
        });
        let this = self.clone();
        let launch = SubagentLaunch {
            agent_id: agent_id.clone(),
            output_file: output_file.clone(),
        };
        tokio::spawn(async move {
            let description = request.description.clone();
            let outcome = this
                .run_as(&agent_id, request, &task_call, "background")
                .await;
            let report = outcome.unwrap_or_else(|why| SubagentReport {
                text: why,
                agent_id: agent_id.clone(),
                is_error: true,
                ..SubagentReport::default()
            });
            let end = if report.stopped {
                TaskEnd::Killed
            } else if report.is_error {
                TaskEnd::Failed
            } else {
                TaskEnd::Completed
            };
            let notice = task_notification(
                &agent_id,
                &description,
                &task_call.tool_use_id,
                &output_file,
                end,
                Some(&report),
            );
            tasks.finish(&agent_id, notice);
        });
        Ok(launch)
    }
}
