//! Shared helpers: a scratch project dir + data dir, the `orbit` command with
//! a clean environment pointed at a fake server, and parsed output.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::Value;
use tempfile::TempDir;

pub use super::clients::{
    McpServeClient, StreamJsonChild, pane_command, run_for_stderr, sh_quote, spawn_headless,
    spawn_piped, tmux, tmux_new_pane,
};
pub use super::fixtures::{CacheDir, PortServer};

/// Upper bound for one orbit run in these tests.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// A fixed system prompt for tests that snapshot request bodies.
pub const TEST_SYSTEM_PROMPT: &str = "You are a test assistant.";

/// Anthropic's 400 refusal of a request over the context window (what
/// triggers reactive compaction).
pub fn prompt_too_long() -> Reply {
    Reply::api_error(
        400,
        "invalid_request_error",
        "prompt is too long: 212345 tokens > 200000 maximum",
    )
}

/// A temporary project directory (the session cwd) and a temporary home.
pub struct Scratch {
    dir: TempDir,
    home: TempDir,
}

impl Scratch {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    /// The canonical project path (what orbit reports as cwd).
    pub fn path(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    pub fn home(&self) -> PathBuf {
        self.home.path().canonicalize().unwrap()
    }

    /// Writes a file in the project dir and returns its absolute path.
    pub fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.path().join(name);
        std::fs::write(&path, contents).unwrap();
        path
    }

    /// [`Scratch::write`] of an executable (mode 755), e.g. a script.
    pub fn write_executable(&self, name: &str, contents: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt as _;
        let path = self.write(name, contents);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// Writes a file at `rel` below the home dir (e.g.
    /// `.orbit/settings.json`), its parent dirs too; returns its path.
    pub fn write_home(&self, rel: &str, contents: &str) -> PathBuf {
        let path = self.home().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, contents).unwrap();
        path
    }

    /// Replaces the scratch paths in `text` with stable placeholders.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.path().display().to_string(), "[CWD]")
            .replace(&self.home().display().to_string(), "[HOME]")
    }
}

/// `orbit` with only PATH, HOME, ORBIT_HOME and `env` set, run in the scratch dir.
pub fn orbit_with_env(scratch: &Scratch, env: &[(String, String)]) -> Command {
    orbit_at(&scratch.path(), &scratch.home(), env)
}

/// `orbit` run in `cwd` with only PATH, HOME (`home`), ORBIT_HOME
/// (`home/.orbit`) and `env` set.
pub fn orbit_at(cwd: &Path, home: &Path, env: &[(String, String)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_orbit"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("ORBIT_HOME", home.join(".orbit"))
        .current_dir(cwd)
        .timeout(RUN_TIMEOUT);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// Fails with every entry of `failures` (the cases of a table that did
/// not hold) when there is any.
pub fn assert_no_failures(failures: &[String], cases: usize) {
    assert!(
        failures.is_empty(),
        "{} of {cases} failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// [`orbit_with_env`] as a plain `std::process::Command`, for tests that
/// wire stdin/stdout themselves (assert_cmd always pipes both). No timeout:
/// callers bound the wait.
pub fn orbit_process(scratch: &Scratch, env: &[(String, String)]) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_orbit"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", scratch.home())
        .env("ORBIT_HOME", scratch.home().join(".orbit"))
        .current_dir(scratch.path())
        .envs(env.iter().map(|(k, v)| (k, v)));
    cmd
}

/// Waits for `child` up to `limit`; kills it and panics when it is still running.
pub fn wait_within(child: &mut std::process::Child, limit: Duration) -> std::process::ExitStatus {
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("orbit still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The texts of the tool_results in a captured request body, one per line
/// (what the model was told the tools did).
pub fn tool_results_text(body: &Value) -> String {
    orbit_test_support::body::tool_results(body)
        .into_iter()
        .map(|t| t.text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text of the first user message of a captured request body.
pub fn first_user_text(body: &Value) -> String {
    match &body["messages"][0]["content"] {
        Value::String(t) => t.clone(),
        other => other[0]["text"].as_str().unwrap_or_default().to_string(),
    }
}

/// `orbit` pointed at `server` (base URL, test key, 1 ms retry backoff).
pub fn orbit(scratch: &Scratch, server: &FakeAnthropic) -> Command {
    orbit_with_env(scratch, &server.env())
}

/// `orbit ARGS…` pointed at `server`, run to its end.
pub fn run_orbit(scratch: &Scratch, server: &FakeAnthropic, args: &[&str]) -> Outcome {
    let mut cmd = orbit(scratch, server);
    cmd.args(args);
    run(cmd)
}

/// What a finished run printed.
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    /// stdout parsed as JSON lines.
    pub fn lines(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect()
    }

    /// `field` of every line whose `key` is `value` (e.g. the `event` of
    /// every `type: stream_event` line).
    pub fn field_where(&self, key: &str, value: &str, field: &str) -> Vec<Value> {
        self.lines()
            .into_iter()
            .filter(|l| l[key] == value)
            .map(|l| l[field].clone())
            .collect()
    }

    /// `type` or `type/subtype` of every line (assistant/user have no subtype).
    pub fn kinds(&self) -> Vec<String> {
        self.lines().iter().map(kind).collect()
    }

    /// The run failed (exit 1) with `line` as its only stderr line.
    pub fn assert_error_line(&self, line: &str) {
        assert_eq!(self.code, 1, "stderr: {}", self.stderr);
        assert_eq!(self.stderr.trim(), line);
    }

    /// The run failed (exit 1) with one stderr line, an `orbit: error: `
    /// line that says `needle`; that line.
    pub fn one_error_line(&self, needle: &str) -> &str {
        assert_eq!(self.code, 1, "stderr: {}", self.stderr);
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "stderr: {}", self.stderr);
        assert!(lines[0].starts_with("orbit: error: "), "{}", self.stderr);
        assert!(
            lines[0].contains(needle),
            "no {needle:?} in {}",
            self.stderr
        );
        lines[0]
    }

    /// The run failed (exit 1) and stderr says `needle`.
    pub fn assert_error_containing(&self, needle: &str) {
        assert_eq!(self.code, 1, "stderr: {}", self.stderr);
        assert!(self.stderr.contains(needle), "{}", self.stderr);
    }

    /// The last stdout line, which must be the result.
    pub fn result(&self) -> Value {
        let last = self.lines().pop().expect("no output lines");
        assert_eq!(last["type"], "result", "last line is not a result: {last}");
        last
    }
}

pub fn kind(line: &Value) -> String {
    let t = line["type"].as_str().unwrap_or("?");
    match line["subtype"].as_str() {
        Some(s) if t == "system" => format!("{t}/{s}"),
        _ => t.to_string(),
    }
}

/// The content blocks of type `block_type` in the stream-json lines of type
/// `line_type` (`assistant` / `user`), in order.
pub fn blocks<'a>(
    lines: &'a [Value],
    line_type: &'a str,
    block_type: &'a str,
) -> impl Iterator<Item = Value> + 'a {
    lines
        .iter()
        .filter(move |l| l["type"] == line_type)
        .flat_map(|l| {
            l["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(move |b| b["type"] == block_type)
}

pub fn run(mut cmd: Command) -> Outcome {
    let out = cmd.output().unwrap();
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `orbit -p PROMPT --output-format stream-json EXTRA…` against `server`.
pub fn run_stream_json(
    scratch: &Scratch,
    server: &FakeAnthropic,
    prompt: &str,
    extra: &[&str],
) -> Outcome {
    run_stream_json_with_env(scratch, &server.env(), prompt, extra)
}

/// `orbit -p hi --output-format stream-json EXTRA…` in a fresh scratch dir
/// against a model that answers `answer`: the dir, the server (for its
/// requests) and the outcome.
pub fn run_answered(answer: &str, extra: &[&str]) -> (Scratch, FakeAnthropic, Outcome) {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text(answer)]);
    let out = run_stream_json(&scratch, &server, "hi", extra);
    (scratch, server, out)
}

/// [`run_stream_json`] with only `env` (besides PATH and the homes) set.
pub fn run_stream_json_with_env(
    scratch: &Scratch,
    env: &[(String, String)],
    prompt: &str,
    extra: &[&str],
) -> Outcome {
    let mut cmd = orbit_with_env(scratch, env);
    cmd.args(["-p", prompt, "--output-format", "stream-json"])
        .args(extra);
    run(cmd)
}

/// A fake model that calls Bash with each `(id, input)`, one call per
/// turn, then answers `answer`.
pub fn bash_calls(calls: &[(&str, Value)], answer: &str) -> FakeAnthropic {
    let mut replies: Vec<Reply> = calls
        .iter()
        .map(|(id, input)| Reply::tool_use(*id, "Bash", input.clone()))
        .collect();
    replies.push(Reply::text(answer));
    FakeAnthropic::start(replies)
}

/// All of a child's captured pipe (`child.stdout.take()` / `.stderr`), as text.
pub fn drain(pipe: Option<impl std::io::Read>) -> String {
    let mut text = String::new();
    pipe.expect("a piped stream")
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// The lines of `text` (a run's stderr, a log) that contain `needle`.
pub fn lines_with<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

/// `path` as a string (for tool inputs).
pub fn s(path: &Path) -> String {
    path.display().to_string()
}

/// A fake model that calls Bash with each input in turn (ids `toolu_0`,
/// `toolu_1`, …), one call per turn, then answers "done".
pub fn bash_inputs_then_done(inputs: impl IntoIterator<Item = Value>) -> FakeAnthropic {
    let mut replies: Vec<Reply> = inputs
        .into_iter()
        .enumerate()
        .map(|(i, input)| Reply::tool_use(format!("toolu_{i}"), "Bash", input))
        .collect();
    replies.push(Reply::text("done"));
    FakeAnthropic::start(replies)
}

/// What the model was told of its first call: the tool_result text of the
/// server's second request ("" when there was none).
pub fn first_call_results(server: &FakeAnthropic) -> String {
    server
        .requests()
        .get(1)
        .map(|r| tool_results_text(&r.body))
        .unwrap_or_default()
}

/// What the model was told of each call in turn: the tool_result text of
/// every request after the first.
pub fn call_results(server: &FakeAnthropic) -> Vec<String> {
    server
        .requests()
        .iter()
        .skip(1)
        .map(|r| tool_results_text(&r.body))
        .collect()
}

/// `git ARGS` in `dir` as a test's own setup step (committer `t`, `HOME`
/// = `home`, no system config), asserted to succeed.
pub fn git_in(dir: &Path, home: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// `orbit -p --input-format stream-json --output-format stream-json
/// --verbose EXTRA…` pointed at `server`, fed `lines` (one JSON value per
/// line) with stdin closed after them, run to its end; the run must
/// succeed. Returns stdout.
pub fn stream_json_session(
    scratch: &Scratch,
    server: &FakeAnthropic,
    lines: &[Value],
    extra: &[&str],
) -> String {
    use std::io::Write as _;

    let mut child = orbit_process(scratch, &server.env())
        .args(["-p", "--input-format", "stream-json"])
        .args(["--output-format", "stream-json", "--verbose"])
        .args(extra)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// A stream-json `user` line with this text.
pub fn sdk_user_line(text: &str) -> Value {
    serde_json::json!({"type": "user", "message": {"role": "user", "content": text},
        "parent_tool_use_id": null, "session_id": ""})
}
