//! The AskUserQuestion tool: the model asks the user one to four
//! multiple-choice questions (Claude Code's schema: `questions` with
//! `question`, `header`, `options` of `label`/`description`, `multiSelect`;
//! `answers` filled by whoever asks the person).
//!
//! Facts: [`CallFacts::asks_user`] — the permission gate puts every call
//! to the person: the terminal UI's question dialog or an SDK's
//! `can_use_tool`, which answer by allowing the call with the input's
//! `answers` filled (`{"question text": "chosen label"}`, several labels
//! joined with `, `). Headless (no one to ask) the gate refuses the call
//! with a clear "no user can answer" reason.
//!
//! Flow: input → validate (1–4 questions, 2–4 options each) → the gate's
//! ask → call: the answers as one text, in the order asked.

use std::collections::BTreeMap;

use async_trait::async_trait;
use orbit_tool::{CallFacts, ToolError, ToolInfo, ToolOutput, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::{CallContext, ToolUseContext};

/// The tool's name.
pub const ASK_USER_TOOL_NAME: &str = orbit_tool::plan::ASK_USER_TOOL_NAME;

const DESCRIPTION: &str = "Ask the user one to four multiple-choice questions and wait for the answers.\n\n\
Use it only when you are blocked on a choice that is the user's to make and that you cannot settle \
from the request, the code or a sensible default; otherwise pick the obvious option, say so, and go \
on. Each question must stand on its own (the user may see only the dialog): name what you are asking \
about. Give 2-4 distinct options with a short label and a description of what choosing it means; put \
a recommended option first with \"(Recommended)\" after its label. The user can always type an \
answer of their own instead. In plan mode, ask before you finish the plan, never to ask whether the \
plan is ready (ExitPlanMode does that).";

// One option. (Plain comments: doc comments would reach the model.)
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[schemars(inline)]
pub struct QuestionOption {
    /// The choice as the user sees it (1-5 words)
    pub label: String,
    /// What choosing it means
    pub description: String,
    /// Optional content shown while the option is focused
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
}

// One question.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[schemars(inline)]
pub struct Question {
    /// The complete question, ending with a question mark
    pub question: String,
    /// A very short label for the question (at most 12 characters)
    pub header: String,
    /// 2-4 distinct choices (an "Other" answer is always offered)
    #[schemars(length(min = 2, max = 4))]
    pub options: Vec<QuestionOption>,
    /// Whether several options may be chosen
    #[serde(rename = "multiSelect", default)]
    pub multi_select: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AskUserQuestionInput {
    /// The questions to ask (1-4)
    #[schemars(length(min = 1, max = 4))]
    pub questions: Vec<Question>,
    /// The user's answers by question text, filled in by the dialog
    #[serde(default)]
    pub answers: Option<BTreeMap<String, String>>,
    /// Optional notes per question, filled in by the dialog
    #[serde(default)]
    pub annotations: Option<BTreeMap<String, Value>>,
    /// Optional metadata, not shown to the user
    #[serde(default)]
    pub metadata: Option<Value>,
}

/// What a call carries to its result: the questions, in order, and the
/// answers.
pub struct Answered {
    questions: Vec<Question>,
    answers: BTreeMap<String, String>,
}

/// The AskUserQuestion tool.
pub struct AskUserQuestionTool;

/// The result text for `answered`: each question with its answer, in the
/// order asked.
pub fn answers_text(answered: &Answered) -> String {
    if answered.answers.is_empty() {
        return "The user closed the questions without answering. Go on with sensible defaults \
                and say which you chose."
            .to_string();
    }
    let pairs: Vec<String> = answered
        .questions
        .iter()
        .filter_map(|q| {
            let answer = answered.answers.get(&q.question)?;
            Some(format!("\"{}\"=\"{}\"", q.question, answer))
        })
        .collect();
    format!(
        "The user answered your questions: {}. Continue with these answers in mind.",
        pairs.join(", ")
    )
}

#[async_trait]
impl TypedTool for AskUserQuestionTool {
    type Input = AskUserQuestionInput;
    type Plan = Answered;

    fn facts(&self, input: &AskUserQuestionInput, _ctx: &ToolUseContext) -> CallFacts {
        let subject = input
            .questions
            .first()
            .map(|q| q.question.clone())
            .unwrap_or_default();
        CallFacts {
            asks_user: true,
            ..CallFacts::about(subject)
        }
    }

    async fn validate(
        &self,
        input: AskUserQuestionInput,
        _ctx: &ToolUseContext,
    ) -> Result<Answered, ToolError> {
        let refuse = |why: &str| Err(ToolError::RespondToModel(why.to_string()));
        if input.questions.is_empty() || input.questions.len() > 4 {
            return refuse("Ask between 1 and 4 questions.");
        }
        if let Some(q) = input
            .questions
            .iter()
            .find(|q| q.options.len() < 2 || q.options.len() > 4)
        {
            return Err(ToolError::RespondToModel(format!(
                "\"{}\" needs 2 to 4 options.",
                q.question
            )));
        }
        let answers = input.answers.unwrap_or_default();
        Ok(Answered {
            questions: input.questions,
            answers,
        })
    }

    async fn call(
        &self,
        answered: Answered,
        _ctx: &ToolUseContext,
        _call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(answers_text(&answered)))
    }

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(ASK_USER_TOOL_NAME, DESCRIPTION)
            .with_search_hint("ask the user a multiple-choice question")
    }
}
