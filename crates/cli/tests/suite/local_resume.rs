//! Issue 11's new-user walkthrough on the real local model: a task, Ctrl-C
//! (SIGINT) while its tool runs, then `orbit -c -p "go on"` finishes it.
//! The 1.5B model ran `go run check.go` after "go on", and after
//! "continue" re-ran the script until the repeat guard stopped it, until
//! the local chat template said what an interrupted call's result means
//! ("The user stopped this call before it finished.") and showed the
//! stopped call again; the second test reads that rendering back from the
//! real llama-server.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::time::{Duration, Instant};

use orbit_local::{LocalPaths, LocalServer, ServerOptions};
use serde_json::{Value, json};

use super::common::{Scratch, orbit_process, run};
use super::interrupt::{exit_within_10s, sigint};
use super::local_model::{
    describe, lines, local_turn, orbit_local_cmd, real_data_dir, result_line,
};

/// How long the first run may take to start its tool (a cold llama-server
/// and the first reply on two loaded cores).
const TOOL_START_TIMEOUT: Duration = Duration::from_secs(300);

const TASK: &str = "Run ./check.sh with the Bash tool and tell me its RESULT line.";
const RESULT_LINE: &str = "7 files checked, 0 errors";

#[test]
fn local_model_goes_on_after_ctrl_c_mid_tool() {
    let _turn = local_turn();
    let scratch = Scratch::new();
    // The script hangs until the test has interrupted it once; the second
    // run (after `fast` exists) prints its result at once.
    scratch.write_executable(
        "check.sh",
        &format!(
            "#!/bin/sh\necho collecting...\ntouch started\n[ -f fast ] || sleep 60\necho \"RESULT: {RESULT_LINE}\"\n"
        ),
    );
    // `orbit_local_cmd` links the prepared runtime into the scratch home;
    // the first run is a process of its own, to be interrupted.
    let _ = orbit_local_cmd(&scratch);
    let mut child = orbit_process(&scratch, &[])
        .args(["-p", TASK, "--allowedTools", "Bash"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = scratch.path().join("started");
    let deadline = Instant::now() + TOOL_START_TIMEOUT;
    while !started.exists() {
        if Instant::now() > deadline || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            panic!("the model never ran ./check.sh");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    sigint(&child);
    let (status, _) = exit_within_10s(child, "SIGINT");
    assert_eq!(status.code(), Some(130));
    std::fs::write(scratch.path().join("fast"), "").unwrap();

    let mut cmd = orbit_local_cmd(&scratch);
    cmd.args([
        "-c",
        "-p",
        "go on",
        "--allowedTools",
        "Bash",
        "--output-format",
        "stream-json",
        "--verbose",
    ]);
    let out = run(cmd);
    let lines = lines(&out);
    let result = result_line(&lines);
    assert_eq!(result["subtype"], "success", "{}", describe(&out));
    assert!(
        result["result"]
            .as_str()
            .unwrap_or_default()
            .contains(RESULT_LINE),
        "{}",
        describe(&out)
    );
}

/// The prompt llama-server renders for `messages` with orbit's chat
/// template (its `/apply-template` endpoint: the template, no model).
fn rendered_prompt(server: &LocalServer, messages: &Value) -> String {
    let body = json!({ "messages": messages }).to_string();
    let addr = server.base_url().trim_start_matches("http://").to_string();
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /apply-template HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, payload) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{response}");
    let parsed: Value = serde_json::from_str(payload).unwrap();
    parsed["prompt"].as_str().unwrap().to_string()
}

/// After an interrupted call the template says the call was stopped and
/// shows it again as the model writes calls; any other result gets the
/// usual invitation to answer and no call. (Without the call shown, "go
/// on" made the model run `go run main.go` in 5 of 40 replays.)
#[test]
fn the_chat_template_shows_an_interrupted_call_again() {
    let _turn = local_turn();
    let paths = LocalPaths::in_data_dir(&real_data_dir());
    let server = match LocalServer::acquire(&paths, &ServerOptions::default()) {
        Ok(s) => s,
        Err(e) => panic!("the runtime is set up but llama-server did not start: {e}"),
    };
    let call_block =
        "```json\n{\"name\": \"Bash\", \"arguments\": {\"command\": \"./check.sh\"}}\n```";
    let cases = [
        (
            "[Request interrupted by user for tool use]",
            format!(
                "The user stopped this call before it finished. If the user asks you to go on, make the call again:\n{call_block}<|im_end|>\n<|im_start|>user\ngo on<|im_end|>"
            ),
            true,
        ),
        (
            "RESULT: 7 files checked, 0 errors",
            "If this result answers the request, reply now with the answer in plain text; otherwise make your next tool call.<|im_end|>\n<|im_start|>user\ngo on<|im_end|>".to_string(),
            false,
        ),
    ];
    for (result, expected_tail, shows_call_again) in cases {
        let messages = json!([
            {"role": "system", "content": "S"},
            {"role": "user", "content": TASK},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "Bash", "arguments": "{\"command\":\"./check.sh\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": result},
            {"role": "user", "content": "go on"},
        ]);
        let prompt = rendered_prompt(&server, &messages);
        let after_result = prompt
            .split_once(&format!("{result}\n</tool_response>\n"))
            .map(|(_, rest)| rest)
            .unwrap_or_else(|| panic!("no tool response in {prompt}"));
        assert!(
            after_result.starts_with(&expected_tail),
            "result {result:?}:\n{prompt}"
        );
        // The call block appears once (the assistant's turn), or twice when
        // the template shows the stopped call again.
        let blocks = prompt.matches(call_block).count();
        assert_eq!(blocks, if shows_call_again { 2 } else { 1 }, "{prompt}");
    }
    drop(server);
}
