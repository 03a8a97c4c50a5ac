//! Shared test harness: the real `AnthropicClient` pointed at a
//! `FakeAnthropic`, an engine in a temp dir, test-only tools built from
//! closures, and helpers over the event stream.

use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures::StreamExt;
use futures::future::BoxFuture;
use orbit_engine::{EngineConfig, QueryEngine};
use orbit_model::ModelClient;
use orbit_model::anthropic::{AnthropicClient, AnthropicConfig};
use orbit_permissions::{PermissionConfig, PermissionMode};
use orbit_protocol::{
    ContentBlock, EngineEvent, Message, ResultSubtype, Role, TerminalResult, ToolResultBlock,
};
use orbit_test_support::{FakeAnthropic, Turn};
use orbit_tool::{
    CallContext, CallFacts, ResultLimit, Tool, ToolError, ToolInfo, ToolOutput, ToolRegistry,
    ToolUseContext, TypedTool, typed,
};
use serde_json::{Value, json};
use tempfile::TempDir;

pub const MODEL: &str = "claude-sonnet-4-5";

/// The real client against the fake server, configured from the
/// server's environment as the CLI would be (base URL, test key, 1 ms
/// backoff), with 2 retries capped at 5 ms.
pub fn client(server: &FakeAnthropic) -> Arc<dyn ModelClient> {
    let env = server.env();
    let lookup = |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let mut config = AnthropicConfig::from_lookup(lookup);
    config.retry.max_retries = 2;
    config.retry.max_delay_ms = 5;
    Arc::new(AnthropicClient::new(config).expect("client"))
}

pub fn config(dir: &Path) -> EngineConfig {
    EngineConfig {
        model: MODEL.into(),
        system_prompt: "You are a test.".into(),
        max_tokens: 1024,
        permissions: PermissionConfig {
            mode: PermissionMode::BypassPermissions,
            headless: true,
            ..PermissionConfig::default()
        },
        session_id: "session-test".into(),
        cwd: dir.to_path_buf(),
        data_dir: dir.join(".orbit"),
        ..EngineConfig::default()
    }
}

pub fn engine(
    server: &FakeAnthropic,
    config: EngineConfig,
    tools: Vec<Arc<dyn Tool>>,
) -> QueryEngine {
    let mut registry = ToolRegistry::new();
    for t in tools {
        registry.register(t);
    }
    QueryEngine::new(config, client(server), registry)
}

/// A built-in tool by name, as `default_tools()` registers it.
pub fn builtin(name: &str) -> Arc<dyn Tool> {
    orbit_tools::builtin::default_tools()
        .find(name)
        .unwrap_or_else(|| panic!("no built-in tool {name}"))
}

/// Runs one call the way the engine does (parse → validate → call),
/// without the engine's policy.
pub async fn run_tool(
    tool: &Arc<dyn Tool>,
    input: Value,
    ctx: &ToolUseContext,
    call: &CallContext,
) -> Result<ToolOutput, ToolError> {
    let mut prepared = tool.parse(input, ctx)?;
    prepared.validate(ctx).await?;
    prepared.call(ctx, call).await
}

/// Runs one prompt to the end and returns every event.
pub async fn run(engine: &mut QueryEngine, prompt: &str) -> Vec<EngineEvent> {
    let stream = engine.submit_message(prompt.to_string());
    tokio::time::timeout(Duration::from_secs(30), stream.collect::<Vec<_>>())
        .await
        .expect("turn finished within 30 s")
}

/// Runs a prompt and aborts `settle` after the first event `trigger`
/// matches; returns the result and the time from abort to result.
pub async fn run_and_abort(
    engine: &mut QueryEngine,
    settle: Duration,
    trigger: impl Fn(&EngineEvent) -> bool,
) -> (TerminalResult, Duration) {
    let handle = engine.abort_handle();
    let mut stream = engine.submit_message("go".into());
    let mut aborted_at = None;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let event = tokio::time::timeout_at(deadline, stream.next())
            .await
            .expect("the turn ended")
            .expect("a result before the stream ends");
        if aborted_at.is_none() && trigger(&event) {
            tokio::time::sleep(settle).await;
            handle.abort();
            aborted_at = Some(Instant::now());
        }
        if let EngineEvent::Result(r) = event {
            let at = aborted_at.expect("aborted before the result");
            return (r, at.elapsed());
        }
    }
}

pub fn result(events: &[EngineEvent]) -> &TerminalResult {
    match events.last() {
        Some(EngineEvent::Result(r)) => r,
        other => panic!("last event is not a result: {other:?}"),
    }
}

/// The turn ended in success, answering `answer`.
pub fn assert_succeeded(events: &[EngineEvent], answer: &str) {
    let r = result(events);
    assert_eq!(
        (r.subtype, r.result.as_str()),
        (ResultSubtype::Success, answer)
    );
}

/// Every tool_use of an assistant message is answered, in order, by the
/// next message, which is a user message (L2).
pub fn assert_paired(messages: &[Message]) {
    for (i, m) in messages.iter().enumerate() {
        let uses: Vec<&str> = m.tool_uses().map(|t| t.id.as_str()).collect();
        if uses.is_empty() {
            continue;
        }
        let next = messages
            .get(i + 1)
            .unwrap_or_else(|| panic!("tool_use at {i} unanswered"));
        assert_eq!(next.role, Role::User);
        let answered: Vec<&str> = next
            .tool_results()
            .map(|r| r.tool_use_id.as_str())
            .collect();
        assert_eq!(answered, uses, "results of message {i} in tool_use order");
    }
}

/// The tool_result blocks of the last user message.
pub fn last_results(messages: &[Message]) -> Vec<ToolResultBlock> {
    messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User && m.tool_results().next().is_some())
        .map(|m| m.tool_results().cloned().collect())
        .unwrap_or_default()
}

pub fn result_text(r: &ToolResultBlock) -> String {
    r.content.as_text()
}

/// What the last user message answered each call: (text, is_error).
pub fn last_said(messages: &[Message]) -> Vec<(String, bool)> {
    last_results(messages)
        .iter()
        .map(|r| (result_text(r), r.is_error()))
        .collect()
}

/// Ids of the ToolResult events, in emission order.
pub fn released_ids(events: &[EngineEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::ToolResult { result, .. } => Some(result.tool_use_id.clone()),
            _ => None,
        })
        .collect()
}

pub fn assistant_texts(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .map(Message::text)
        .collect()
}

pub fn tool_use_ids(message: &Message) -> Vec<String> {
    message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse(t) => Some(t.id.clone()),
            _ => None,
        })
        .collect()
}

/// A turn calling each `(id, tool, input)` in order.
pub fn turn_of(calls: &[(&str, &str, Value)]) -> Turn {
    calls.iter().fold(Turn::new(), |t, (id, name, input)| {
        t.tool_use(*id, *name, input.clone())
    })
}

/// The number of events of `turn` before its `message_delta` (the last two
/// events are message_delta and message_stop): a fault after that many
/// events strikes right after the turn's last block so far.
pub fn events_through_blocks(turn: &Turn) -> usize {
    turn.event_count() - 2
}

/// A shared, ordered log of what tools did.
#[derive(Clone, Default)]
pub struct Log(Arc<Mutex<Vec<String>>>);

impl Log {
    pub fn push(&self, entry: impl Into<String>) {
        self.0.lock().unwrap().push(entry.into());
    }

    pub fn entries(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    /// Asserts the log holds each of `wanted` (in any order, among others).
    pub fn assert_has(&self, wanted: &[&str]) {
        let entries = self.entries();
        for entry in wanted {
            assert!(
                entries.iter().any(|e| e == entry),
                "no {entry}: {entries:?}"
            );
        }
    }
}

type Behavior = Arc<dyn Fn(Value, CallContext) -> BoxFuture<'static, ToolOutput> + Send + Sync>;

/// Builder methods that set one field of a [`TestTool`] to a fixed value.
macro_rules! switches {
    ($($(#[$doc:meta])* $name:ident: $field:ident = $value:expr;)*) => {$(
        $(#[$doc])*
        pub fn $name(mut self) -> Self {
            self.$field = $value;
            self
        }
    )*};
}

/// A test-only tool whose behaviour is a closure.
pub struct TestTool {
    name: String,
    schema: Value,
    safe: bool,
    read_only: bool,
    panic_in_safety_check: bool,
    validate_error: Option<String>,
    /// `validate_input` takes this long (ignoring cancellation).
    validate_delay: Duration,
    cancels_siblings: bool,
    behavior: Behavior,
}

impl TestTool {
    pub fn new<F, Fut>(name: &str, behavior: F) -> Self
    where
        F: Fn(Value, CallContext) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = ToolOutput> + Send + 'static,
    {
        Self {
            name: name.into(),
            schema: json!({"type": "object", "additionalProperties": true}),
            safe: true,
            read_only: true,
            panic_in_safety_check: false,
            validate_error: None,
            validate_delay: Duration::ZERO,
            cancels_siblings: false,
            behavior: Arc::new(move |input, call| Box::pin(behavior(input, call))),
        }
    }

    switches! {
        /// Not concurrency-safe: runs alone (X1).
        unsafe_: safe = false;
        /// Not read-only: a call may have a side effect.
        writes: read_only = false;
        /// Its `facts` panic.
        panicking_safety_check: panic_in_safety_check = true;
        /// Its failure cancels running siblings that share this fact (X5),
        /// as Bash's does.
        cancels_siblings: cancels_siblings = true;
    }

    pub fn schema(mut self, schema: Value) -> Self {
        self.schema = schema;
        self
    }

    /// `validate_input` fails with this business-rule message.
    pub fn rejecting(mut self, message: &str) -> Self {
        self.validate_error = Some(message.into());
        self
    }

    /// `validate_input` sleeps this long first (and does not watch the
    /// cancel token, like a slow business check).
    pub fn slow_validation(mut self, delay: Duration) -> Self {
        self.validate_delay = delay;
        self
    }

    pub fn arc(self) -> Arc<dyn Tool> {
        typed(self)
    }
}

#[async_trait]
impl TypedTool for TestTool {
    type Input = Value;
    type Plan = Value;

    fn info(&self) -> ToolInfo<'_> {
        ToolInfo::new(&self.name, "A test tool.")
            .with_result_limit(ResultLimit::PersistOver(100_000))
    }

    fn input_schema(&self) -> Value {
        self.schema.clone()
    }

    fn facts(&self, input: &Value, _ctx: &ToolUseContext) -> CallFacts {
        if self.panic_in_safety_check {
            panic!("safety check exploded");
        }
        CallFacts {
            read_only: self.read_only,
            concurrency_safe: self.safe,
            failure_cancels_siblings: self.cancels_siblings,
            subject: input["command"].as_str().unwrap_or_default().to_string(),
            ..CallFacts::default()
        }
    }

    async fn validate(&self, input: Value, _ctx: &ToolUseContext) -> Result<Value, ToolError> {
        tokio::time::sleep(self.validate_delay).await;
        match &self.validate_error {
            Some(message) => Err(ToolError::RespondToModel(message.clone())),
            None => Ok(input),
        }
    }

    async fn call(
        &self,
        input: Value,
        _ctx: &ToolUseContext,
        call: &CallContext,
    ) -> Result<ToolOutput, ToolError> {
        Ok((self.behavior)(input, call.clone()).await)
    }
}

/// Sleeps `ms` milliseconds unless `call` is cancelled first, logging
/// `end:ID` or `cancelled:ID`; returns `done` or `cancelled` accordingly.
pub async fn sleep_unless_cancelled(
    log: &Log,
    call: &CallContext,
    ms: u64,
    done: ToolOutput,
    cancelled: ToolOutput,
) -> ToolOutput {
    let (entry, output) = tokio::select! {
        _ = tokio::time::sleep(Duration::from_millis(ms)) => ("end", done),
        _ = call.cancel.cancelled() => ("cancelled", cancelled),
    };
    log.push(format!("{entry}:{}", call.tool_use_id));
    output
}

/// A tool that sleeps `input.ms` milliseconds (or until cancelled), logging
/// `start:ID` and `end:ID` / `cancelled:ID`.
pub fn sleeper(name: &str, log: &Log) -> TestTool {
    let log = log.clone();
    TestTool::new(name, move |input, call| {
        let log = log.clone();
        async move {
            let ms = input.get("ms").and_then(Value::as_u64).unwrap_or(0);
            log.push(format!("start:{}", call.tool_use_id));
            let done = ToolOutput::text(format!("slept {ms} ms"));
            sleep_unless_cancelled(&log, &call, ms, done, ToolOutput::error("cancelled")).await
        }
    })
}

/// A value that lives in a temp dir of its own, removed when it is
/// dropped; it derefs to the value.
pub struct InTempDir<T> {
    value: T,
    _dir: TempDir,
}

impl<T> InTempDir<T> {
    /// `make`'s value for a fresh temp dir.
    pub fn new(make: impl FnOnce(&Path) -> T) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let value = make(dir.path());
        Self { value, _dir: dir }
    }
}

impl<T> Deref for InTempDir<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for InTempDir<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

/// An engine over `server` with `tools` and the test [`config`], its cwd
/// and data dir a temp dir.
pub fn temp_engine(server: &FakeAnthropic, tools: Vec<Arc<dyn Tool>>) -> InTempDir<QueryEngine> {
    InTempDir::new(|dir| engine(server, config(dir), tools))
}

/// A [`temp_engine`] whose one tool, `Slow`, sleeps and logs to `log`.
pub fn slow_engine(server: &FakeAnthropic, log: &Log) -> InTempDir<QueryEngine> {
    temp_engine(server, vec![sleeper("Slow", log).arc()])
}
