//! Issue 38's tool texts that help a small model find its way, through the
//! binary against the fake OpenAI server (documented improvements over
//! Claude Code's texts): Read of a directory keeps the `EISDIR` line and
//! lists the entries; Edit's "String to replace not found" shows the
//! closest lines of the file; a tool call with an escape JSON does not
//! know is read tolerantly, an unreadable one never runs; a text reply to
//! a failed call is the one answer; the local server is kept warm for the
//! keep-alive period and gone after it.

use orbit_test_support::{Completion, FakeOpenAi, OpenAiReply};
use serde_json::json;

use super::common::{Scratch, orbit_with_env, run, run_stream_json_with_env};
use super::small_model::{call, run_openai, text, tool_texts};

/// Read of a directory: Claude Code's `EISDIR` line first, then the
/// directory's entries sorted, directories marked with `/`, an entry a
/// read deny rule covers left out.
#[test]
fn read_of_a_directory_lists_its_entries() {
    let scratch = Scratch::new();
    let src = scratch.path().join("src");
    std::fs::create_dir_all(src.join("lib")).unwrap();
    scratch.write("src/util.py", "x = 1\n");
    scratch.write("src/app.py", "print(1)\n");
    scratch.write("src/secret.txt", "hidden\n");
    let server = FakeOpenAi::start(vec![
        call("r1", "Read", json!({"file_path": "src"})),
        text("done"),
    ]);
    let out = run_openai(
        &scratch,
        &server,
        None,
        &["--disallowedTools", "Read(./src/secret.txt)"],
    );
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let results = tool_texts(&server.bodies()[1]);
    assert_eq!(
        results,
        vec![format!(
            "EISDIR: illegal operation on a directory, read '{}'\nIt is a directory; Read one of \
its files instead. Its entries (3):\napp.py\nlib/\nutil.py",
            src.display()
        )]
    );
}

/// An Edit of app.py that replaces `old` with `print('Hi')`.
fn edit_to_hi(id: &str, old: &str) -> OpenAiReply {
    let input = json!({"file_path": "app.py", "old_string": old, "new_string": "print('Hi')"});
    call(id, "Edit", input)
}

/// Edit whose `old_string` differs from the file by quote style: the
/// not-found text names the closest real lines, which the next Edit copies
/// and which then succeeds. What the model sees is snapshotted.
#[test]
fn edit_not_found_shows_the_closest_lines() {
    let scratch = Scratch::new();
    let app = scratch.write(
        "app.py",
        "import sys\n\ndef main():\n    print(\"Hello, world\")\n    return 0\n",
    );
    let server = FakeOpenAi::start(vec![
        call("r1", "Read", json!({"file_path": "app.py"})),
        edit_to_hi("e1", "print('Hello, world')"),
        edit_to_hi("e2", "print(\"Hello, world\")"),
        text("done"),
    ]);
    let out = run_openai(
        &scratch,
        &server,
        Some("1"),
        &["--permission-mode", "acceptEdits"],
    );
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let results = tool_texts(server.bodies().last().unwrap());
    assert_eq!(results.len(), 3, "{results:?}");
    insta::assert_snapshot!("edit_not_found_closest_lines", results[1]);
    assert!(
        results[1].contains("Line 4:\n    print(\"Hello, world\")"),
        "{}",
        results[1]
    );
    assert_eq!(
        std::fs::read_to_string(&app).unwrap(),
        "import sys\n\ndef main():\n    print('Hi')\n    return 0\n"
    );
}

/// A Bash call streamed with `\;` inside its JSON string (an escape JSON
/// does not know) runs with the characters kept literally and its other
/// fields intact; a call that still cannot be read (cut JSON, or a string
/// that swallowed the fields after it) is answered with the parse text and
/// never runs.
#[test]
fn tool_calls_with_unknown_escapes_run_and_unreadable_calls_do_not() {
    let scratch = Scratch::new();
    scratch.write("a.tmp", "");
    scratch.write("keep.txt", "");
    let raw = |id: &str, args: &str| {
        OpenAiReply::completion(Completion::new().tool_call_raw(id, "Bash", &[args]))
    };
    let server = FakeOpenAi::start(vec![
        raw(
            "b1",
            r#"{"command": "find . -name '*.tmp' -exec rm {} \;", "timeout": 60000, "description": "Delete tmp files"}"#,
        ),
        raw("b2", r#"{"command": "touch cut.txt", "timeout": "#),
        raw(
            "b3",
            r#"{"command": "touch swallowed.txt \", timeout: 60, description: \""}"#,
        ),
        text("done"),
    ]);
    let out = run_openai(&scratch, &server, None, &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let results = tool_texts(server.bodies().last().unwrap());
    assert_eq!(results.len(), 3, "{results:?}");
    assert!(!results[0].contains("tool_use_error"), "{}", results[0]);
    assert!(!scratch.path().join("a.tmp").exists());
    assert!(scratch.path().join("keep.txt").exists());
    for (result, file) in results[1..].iter().zip(["cut.txt", "swallowed.txt"]) {
        assert!(
            result.starts_with(
                "<tool_use_error>InputValidationError: Bash was called with input that could not be parsed as JSON."
            ),
            "{result}"
        );
        assert!(!scratch.path().join(file).exists(), "{file}");
    }
    // The assistant turn sent back keeps the command as it ran.
    let calls = server.bodies()[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .unwrap()["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .unwrap()
        .to_string();
    let args: serde_json::Value = serde_json::from_str(&calls).unwrap();
    assert_eq!(
        args["command"], "find . -name '*.tmp' -exec rm {} \\;",
        "{calls}"
    );
    assert_eq!(args["timeout"], 60000);
}

/// One answer per question (a replayed transcript shape of the five seen
/// in the UI): a test run that fails as expected (`Exit code 1`), then the
/// model's plain-text answer. The answer ends the run: no after-error
/// reminder is sent, so the model is never asked again and its second
/// answer — here a line of the prompt's worked examples — never surfaces.
#[test]
fn a_text_reply_to_a_failed_call_is_the_one_answer() {
    let scratch = Scratch::new();
    scratch.write("test_calc.py", "def test_add():\n    assert 1 + 1 == 3\n");
    let answer = "The test fails: test_add expects 1 + 1 == 3.";
    let example_line = "The file app.cfg contains the line level=debug.";
    let server = FakeOpenAi::start(vec![
        call(
            "b1",
            "Bash",
            json!({"command": "echo 'FAILED test_calc.py::test_add'; exit 1"}),
        ),
        text(answer),
        text(example_line),
    ]);
    let out = run_openai(&scratch, &server, Some("1"), &["--allowedTools", "Bash"]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(out.result()["result"], answer);
    assert_eq!(server.request_count(), 2);
    let results = tool_texts(&server.bodies()[1]);
    assert_eq!(results, vec!["Exit code 1\nFAILED test_calc.py::test_add"]);
    assert!(!out.stdout.contains(example_line), "{}", out.stdout);
}

/// Stand-in llama-server for the keep-alive test: appends its pid to
/// `fake.pids` at each start, answers `/health` and every chat request with
/// "hi".
const KEPT_LLAMA_SERVER: &str = orbit_test_support::llama_server_script!(
    r#"
open(os.path.join(root, "fake.pids"), "a").write("%d\n" % os.getpid())
"#,
    r#"
    def do_POST(self):
        self.rfile.read(int(self.headers["content-length"]))
        self.reply_sse([chunk({"content": "hi"}), chunk({}, "stop")])
"#
);

/// Whether `pid` runs (a zombie counts as ended).
fn pid_runs(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
        !state.is_some_and(|s| s.starts_with('Z') || s.starts_with('X'))
    })
}

/// A warm model (issue 38), with a short keep-alive (`ORBIT_LOCAL_KEEP_ALIVE=3`;
/// an interactive run gets 300 s): the first run leaves the shared server
/// up, `orbit local status` shows it and when it stops, the second run
/// reuses it (the stand-in started once), and once the period has passed
/// without use no server and no `orbit local serve` is left.
#[test]
fn a_kept_server_serves_the_next_run_and_is_gone_after_the_idle_period() {
    kept_server_case(None);
}

/// The same through a renamed copy of the binary (`orbit-renamed`, as a
/// versioned install or a benchmark names it): it still shares the warm
/// server (it once fell back to a private one while its tip said "stays
/// loaded").
#[test]
fn a_renamed_orbit_binary_keeps_the_server_too() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("orbit-renamed");
    std::fs::copy(env!("CARGO_BIN_EXE_orbit"), &copy).unwrap();
    kept_server_case(Some(&copy));
}

fn kept_server_case(binary: Option<&std::path::Path>) {
    let scratch = Scratch::new();
    let paths =
        orbit_test_support::stub_local_runtime(&scratch.home().join(".orbit"), KEPT_LLAMA_SERVER);
    let env = vec![("ORBIT_LOCAL_KEEP_ALIVE".to_string(), "3".to_string())];
    let run_stream_json_with_env =
        |scratch: &Scratch, env: &[(String, String)], prompt: &str, extra: &[&str]| {
            let Some(binary) = binary else {
                return run_stream_json_with_env(scratch, env, prompt, extra);
            };
            let mut cmd = assert_cmd::Command::new(binary);
            cmd.env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", scratch.home())
                .env("ORBIT_HOME", scratch.home().join(".orbit"))
                .envs(env.iter().map(|(k, v)| (k, v)))
                .current_dir(scratch.path())
                .timeout(std::time::Duration::from_secs(60))
                .args(["-p", prompt, "--output-format", "stream-json"])
                .args(extra);
            run(cmd)
        };
    let first = run_stream_json_with_env(&scratch, &env, "hi", &[]);
    assert_eq!(first.code, 0, "stderr: {}", first.stderr);
    assert_eq!(first.result()["result"], "hi");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(paths.server_record()).unwrap()).unwrap();
    let pid = record["pid"].as_u64().unwrap() as u32;
    let serve_pid = record["serve_pid"].as_u64().unwrap() as u32;
    let cleanup = || {
        for p in [pid, serve_pid] {
            if pid_runs(p) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(p as i32),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    };
    let status = run({
        let mut cmd = orbit_with_env(&scratch, &env);
        cmd.args(["local", "status"]);
        cmd
    });
    let shown = status.stdout.clone();
    let second = run_stream_json_with_env(&scratch, &env, "hi again", &[]);
    let starts = std::fs::read_to_string(paths.root().join("fake.pids")).unwrap();
    let started = std::time::Instant::now();
    while (pid_runs(pid) || pid_runs(serve_pid)) && started.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let left = pid_runs(pid) || pid_runs(serve_pid);
    cleanup();
    assert!(
        shown.contains(&format!("warm server: http://127.0.0.1:{}", record["port"])),
        "{shown}"
    );
    assert!(shown.contains("stops: in "), "{shown}");
    assert_eq!(second.code, 0, "stderr: {}", second.stderr);
    assert_eq!(starts.lines().count(), 1, "{starts}");
    assert!(!left, "a server outlived the keep-alive period");
    assert!(!paths.server_record().exists());
}
