//! The `local` provider's wiring through the binary, without the real
//! model: a stand-in `llama-server` (python) in a scratch data dir answers
//! `/health` and `/v1/chat/completions` and records each request body.
//! Checks what the real-model tests cannot pin down: with no key set the
//! local provider is chosen, the request is the lean local profile (four
//! tools, short prompt, temperature 0, seed 42, one tool call per reply),
//! fenced-JSON recovery is on,
//! and the private server is stopped when the run ends.

use std::time::{Duration, Instant};

use orbit_local::LocalPaths;
use serde_json::{Value, json};

use super::common::{Scratch, orbit_process, run_stream_json_with_env, wait_within};

/// Largest first request of the local profile, in bytes (docs/LOCAL.md and
/// docs/PERFORMANCE.md report ≈ 10.1 KB, most of it the worked examples that
/// llama.cpp's prompt cache keeps warm; the default profile is ≈ 10 KB).
const LOCAL_FIRST_REQUEST_MAX_BYTES: usize = 10 * 1024;

/// Stand-in llama-server: reply N (0-based) is the Nth `REPLIES` entry,
/// streamed as one content delta; writes its pid and every request body.
const FAKE_LLAMA_SERVER: &str = orbit_test_support::llama_server_script!(
    r#"
open(os.path.join(root, "fake.pid"), "w").write(str(os.getpid()))
REPLIES = [
    "```json\n{\"name\": \"Read\", \"arguments\": {\"file_path\": \"config.txt\"}}\n```",
    "MAGIC is 48213.",
]
count = [0]
"#,
    r#"
    def do_POST(self):
        raw = self.rfile.read(int(self.headers["content-length"]))
        with open(os.path.join(root, "requests.jsonl"), "ab") as f:
            f.write(raw + b"\n")
        text = REPLIES[min(count[0], len(REPLIES) - 1)]
        count[0] += 1
        self.reply_sse([chunk({"content": text}), chunk({}, "stop")])
"#
);

/// A scratch data dir whose local runtime looks set up, with the stand-in.
fn fake_local_runtime(scratch: &Scratch) -> LocalPaths {
    orbit_test_support::stub_local_runtime(&scratch.home().join(".orbit"), FAKE_LLAMA_SERVER)
}

/// Whether `pid` runs (a zombie nobody reaped yet has ended).
fn pid_alive(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the parenthesised command name.
    let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
    !state.is_some_and(|s| s.starts_with('Z') || s.starts_with('X'))
}

#[test]
fn with_no_key_the_local_profile_runs_lean_and_stops_its_server() {
    let scratch = Scratch::new();
    scratch.write("config.txt", "MAGIC=48213\n");
    let paths = fake_local_runtime(&scratch);
    // No key, no --provider, no settings: the local model is the default.
    let prompt = "What is the value of MAGIC in config.txt?";
    let out = run_stream_json_with_env(&scratch, &[], prompt, &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let init = &out.lines()[0];
    assert_eq!(init["model"], orbit_local::MODEL_NAME);
    assert_eq!(init["apiKeySource"], "none");
    assert_eq!(
        init["tools"],
        serde_json::json!(["Read", "Write", "Edit", "Bash"])
    );
    assert_eq!(out.result()["result"], "MAGIC is 48213.");

    let log = std::fs::read_to_string(paths.root().join("requests.jsonl")).unwrap();
    let raw: Vec<&str> = log.lines().collect();
    assert_eq!(raw.len(), 2, "{log}");
    // Shown with `--nocapture`: docs/PERFORMANCE.md quotes it.
    eprintln!("first local-profile request: {} bytes", raw[0].len());
    assert!(
        raw[0].len() < LOCAL_FIRST_REQUEST_MAX_BYTES,
        "first local request is {} bytes (limit {LOCAL_FIRST_REQUEST_MAX_BYTES})",
        raw[0].len()
    );
    let first: Value = serde_json::from_str(raw[0]).unwrap();
    assert_eq!(first["model"], orbit_local::MODEL_NAME);
    assert_eq!(first["temperature"], 0.0);
    assert_eq!(first["seed"], orbit_local::LOCAL_SEED);
    let names: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, orbit_profile::SMALL.tools);
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(system.starts_with("You are orbit"), "{system}");
    // A few sentences, one concrete call per kind of task and four worked
    // examples (issue 17): under 6 KB, and all of it before the working
    // directory, so a fixed prefix llama.cpp's prompt cache keeps warm.
    eprintln!("local system prompt: {} bytes", system.len());
    assert!(system.len() < 6 * 1024, "local system prompt: {system}");
    let cwd_at = system.find("Working directory:").unwrap();
    assert!(
        system[..cwd_at].contains("Examples of whole tasks"),
        "{system}"
    );
    // One tool call per reply (a small model chains guesses otherwise).
    assert_eq!(first["parallel_tool_calls"], json!(false));

    // The fenced block came back as text and was recovered as a Read call,
    // so the second request carries its result as a `tool` message.
    let second: Value = serde_json::from_str(raw[1]).unwrap();
    // llama.cpp's prompt cache, asked for explicitly on every request.
    assert_eq!(
        (&first["cache_prompt"], &second["cache_prompt"]),
        (&json!(true), &json!(true))
    );
    let messages = second["messages"].as_array().unwrap();
    let last = &messages[messages.len() - 1];
    assert_eq!(last["role"], "tool");
    // The small profile's Read leaves out the empty line after the final
    // newline (`ReadView`): Claude Code's view shows `2\t` here (see the
    // next test), which a 1.5B model took for a line to fill.
    assert_eq!(last["content"], "1\tMAGIC=48213");

    // The private server ends with the run.
    let pid: i32 = std::fs::read_to_string(paths.root().join("fake.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while pid_alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !pid_alive(pid),
        "llama-server {pid} still runs after orbit exited"
    );
}

/// `ORBIT_SMALL_MODEL=0` turns the small-model profile off for `local`:
/// every built-in tool, the default system prompt, no default turn limit,
/// Read's lines as Claude Code shows them (the request still goes to the
/// local server, with `cache_prompt`).
#[test]
fn orbit_small_model_0_turns_the_profile_off_for_local() {
    let scratch = Scratch::new();
    scratch.write("config.txt", "MAGIC=48213\n");
    let paths = fake_local_runtime(&scratch);
    let mut cmd =
        super::common::orbit_with_env(&scratch, &[("ORBIT_SMALL_MODEL".into(), "0".into())]);
    cmd.args(["-p", "What is MAGIC?", "--output-format", "stream-json"]);
    let out = super::common::run(cmd);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let tools = out.lines()[0]["tools"].as_array().unwrap().len();
    assert!(tools > orbit_profile::SMALL.tools.len(), "{tools} tools");
    let log = std::fs::read_to_string(paths.root().join("requests.jsonl")).unwrap();
    let first: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(first["tools"].as_array().unwrap().len(), tools);
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("# Using tools"),
        "default prompt expected: {system}"
    );
    assert_eq!(first["cache_prompt"], true);
    // Read as Claude Code shows it: the final newline's empty line 2.
    let second: Value = serde_json::from_str(log.lines().nth(1).unwrap()).unwrap();
    let messages = second["messages"].as_array().unwrap();
    assert_eq!(
        messages[messages.len() - 1]["content"],
        "1\tMAGIC=48213\n2\t"
    );
}

/// Stand-in llama-server that answers `/health` and never answers a chat
/// request (orbit is mid-turn for as long as the test wants); writes its
/// pid and a `posted` marker.
const HANGING_LLAMA_SERVER: &str = orbit_test_support::llama_server_script!(
    r#"
open(os.path.join(root, "fake.pid"), "w").write(str(os.getpid()))
"#,
    r#"
    def do_POST(self):
        open(os.path.join(root, "posted"), "w").write("1")
        time.sleep(120)
"#
);

/// Longest time the private server may outlive a SIGKILLed orbit.
const SERVER_GONE_WITHIN: Duration = Duration::from_secs(2);

#[test]
fn a_sigkilled_orbit_takes_its_private_server_with_it() {
    let scratch = Scratch::new();
    let paths = orbit_test_support::stub_local_runtime(
        &scratch.home().join(".orbit"),
        HANGING_LLAMA_SERVER,
    );
    let mut orbit = orbit_process(&scratch, &[])
        .args(["-p", "hello", "--output-format", "stream-json"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Mid-turn: the chat request reached the server.
    let posted = paths.root().join("posted");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !posted.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(posted.exists(), "the request never reached the stand-in");
    let pid: i32 = std::fs::read_to_string(paths.root().join("fake.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(pid_alive(pid));

    orbit.kill().unwrap(); // SIGKILL: no Drop runs in orbit
    wait_within(&mut orbit, Duration::from_secs(10));
    let killed_at = Instant::now();
    while pid_alive(pid) && killed_at.elapsed() < SERVER_GONE_WITHIN {
        std::thread::sleep(Duration::from_millis(20));
    }
    let outlived = pid_alive(pid);
    if outlived {
        // Do not leak the stand-in this test started (through orbit).
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    assert!(
        !outlived,
        "llama-server {pid} outlived the killed orbit by {SERVER_GONE_WITHIN:?}"
    );
}
