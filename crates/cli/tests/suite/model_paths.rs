//! Issue 29 leftovers, through the real `orbit` binary against the fake
//! Anthropic server:
//!
//! - paths the model names to hang orbit or fill its memory — a FIFO in
//!   the project, a link to `/dev/zero`, `/dev/stdin`, a 100 MB file: the
//!   run ends quickly and the next request tells the model what each path
//!   is (`… it is a FIFO, not a regular file`, `File is too large to edit
//!   (100MB) …`);
//! - names a project chose, printed by orbit itself: an MCP server named
//!   with an OSC 52 clipboard write and a title change in `.mcp.json`
//!   shows them as text in `orbit mcp list` and in the warning that names
//!   unapproved servers.
//!
//! `ORBIT_TEST_BIN=/path/to/orbit` runs the cases against another build
//! (how they were seen to fail before the fix).

use std::path::Path;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use orbit_test_support::files::{large_text_file, mkfifo};
use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::json;

use super::common::{Scratch, orbit_with_env, run, tool_results_text};

/// A run that blocked on a FIFO would never end; a healthy one takes a
/// fraction of this.
const RUN_LIMIT: Duration = Duration::from_secs(20);
/// The "large file" of the issue, in bytes.
const LARGE_FILE_BYTES: u64 = 100 * 1024 * 1024;
/// An MCP server name with an OSC 52 clipboard write, a title change and
/// an 8-bit CSI screen clear.
const HOSTILE_NAME: &str = "evil\x1b]52;c;aGk=\x07\x1b]0;PWNED\x07\u{9b}2J";
/// [`HOSTILE_NAME`] as orbit must print it.
const HOSTILE_NAME_SHOWN: &str = "evil␛]52;c;aGk=␇␛]0;PWNED␇␛[2J";

/// `orbit` (or `$ORBIT_TEST_BIN`) in the scratch project, pointed at
/// `server` when there is one.
fn orbit(scratch: &Scratch, server: Option<&FakeAnthropic>) -> Command {
    let env = server.map(FakeAnthropic::env).unwrap_or_default();
    let std_cmd = orbit_with_env(scratch, &env);
    let Some(bin) = std::env::var_os("ORBIT_TEST_BIN") else {
        return std_cmd;
    };
    let mut cmd = Command::new(bin);
    cmd.env_clear()
        .envs(std_cmd.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .current_dir(scratch.path())
        .timeout(RUN_LIMIT);
    cmd
}

/// No ESC, BEL or C1 control reached `text`.
fn assert_no_raw_controls(text: &str) {
    let raw: Vec<char> = text
        .chars()
        .filter(|c| matches!(*c, '\x1b' | '\x07' | '\u{80}'..='\u{9f}'))
        .collect();
    assert!(raw.is_empty(), "raw controls {raw:?} in {text:?}");
}

#[test]
fn hostile_paths_the_model_names_end_the_run_with_their_errors_in_the_next_requests() {
    let scratch = Scratch::new();
    let cwd = scratch.path();
    let fifo = cwd.join("pipe");
    mkfifo(&fifo);
    let zeros = cwd.join("zeros");
    std::os::unix::fs::symlink("/dev/zero", &zeros).unwrap();
    let big = cwd.join("big.txt");
    large_text_file(&big, LARGE_FILE_BYTES);
    let s = |p: &Path| p.display().to_string();
    // (the call, what the next request must tell the model)
    let cases = [
        (
            ("Read", json!({ "file_path": s(&fifo) })),
            format!("Cannot read {}: it is a FIFO, not a regular file", s(&fifo)),
        ),
        (
            ("Read", json!({ "file_path": s(&zeros) })),
            format!(
                "Cannot read {}: it is a character device, not a regular file",
                s(&zeros)
            ),
        ),
        (
            ("Read", json!({ "file_path": "/dev/stdin" })),
            "Cannot read /dev/stdin: it is a FIFO, not a regular file".to_string(),
        ),
        (
            (
                "Edit",
                json!({ "file_path": s(&fifo), "old_string": "a", "new_string": "b" }),
            ),
            format!("Cannot edit {}: it is a FIFO, not a regular file", s(&fifo)),
        ),
        (
            (
                "Edit",
                json!({ "file_path": s(&big), "old_string": "text", "new_string": "b" }),
            ),
            "File is too large to edit (100MB). Maximum editable file size is 16MB.".to_string(),
        ),
        (
            ("Write", json!({ "file_path": s(&zeros), "content": "x" })),
            format!(
                "Cannot write {}: it is a character device, not a regular file",
                s(&zeros)
            ),
        ),
    ];
    let mut replies: Vec<Reply> = cases
        .iter()
        .enumerate()
        .map(|(i, ((tool, input), _))| Reply::tool_use(format!("toolu_{i}"), *tool, input.clone()))
        .collect();
    replies.push(Reply::text("done"));
    let server = FakeAnthropic::start(replies);
    let mut cmd = orbit(&scratch, Some(&server));
    // stdin a pipe (written empty and closed): /dev/stdin is a FIFO.
    cmd.args(["-p", "go", "--output-format", "text"])
        .args(["--permission-mode", "bypassPermissions"])
        .write_stdin("")
        .timeout(RUN_LIMIT);
    let started = Instant::now();
    let out = run(cmd);
    let took = started.elapsed();
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert!(took < RUN_LIMIT, "the run took {took:?}");
    assert!(out.stdout.contains("done"), "{}", out.stdout);
    let bodies = server.bodies();
    assert_eq!(bodies.len(), cases.len() + 1);
    let mut failures = Vec::new();
    for (i, ((tool, _), expected)) in cases.iter().enumerate() {
        let told = tool_results_text(&bodies[i + 1]);
        if !told.contains(expected.as_str()) {
            failures.push(format!(
                "{tool} #{i}: expected {expected:?}\n  told {told:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Nothing was changed, nothing was read whole.
    assert_eq!(std::fs::metadata(&big).unwrap().len(), LARGE_FILE_BYTES);
}

/// `.mcp.json` with a server named [`HOSTILE_NAME`] whose command carries a
/// title change too.
fn hostile_mcp_json(scratch: &Scratch) {
    let doc = json!({
        "mcpServers": {
            HOSTILE_NAME: { "command": "true\x1b]2;CMD-TITLE\x07", "args": [] }
        }
    });
    scratch.write(".mcp.json", &doc.to_string());
}

#[test]
fn mcp_list_prints_a_hostile_server_name_and_command_visibly() {
    let scratch = Scratch::new();
    hostile_mcp_json(&scratch);
    let mut cmd = orbit(&scratch, None);
    cmd.args(["mcp", "list"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_no_raw_controls(&out.stdout);
    assert!(
        out.stdout.contains(HOSTILE_NAME_SHOWN) && out.stdout.contains("true␛]2;CMD-TITLE␇"),
        "{:?}",
        out.stdout
    );
}

#[test]
fn the_unapproved_servers_warning_prints_a_hostile_name_visibly() {
    let scratch = Scratch::new();
    hostile_mcp_json(&scratch);
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let mut cmd = orbit(&scratch, Some(&server));
    cmd.args(["-p", "go", "--output-format", "text", "--trust-project"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_no_raw_controls(&out.stderr);
    let line = out
        .stderr
        .lines()
        .find(|l| l.contains("not starting MCP servers"))
        .unwrap_or_else(|| panic!("no warning in {:?}", out.stderr));
    assert!(line.contains(HOSTILE_NAME_SHOWN), "{line:?}");
}
