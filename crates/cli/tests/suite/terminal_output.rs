//! Issue 29, class 10: terminal control bytes from the model or a tool
//! never reach the terminal raw. Through the real `orbit` binary against
//! the fake server: `-p --output-format text` (stdout and the stderr error
//! lines) keeps colour but shows every other control visibly, while
//! stream-json stays byte-exact; and the interactive UI in a tmux pane keeps
//! the pane's title and tmux's clipboard untouched by model and tool text.

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use orbit_test_support::{FakeAnthropic, Reply, Turn};
use serde_json::json;

use super::common::{
    Scratch, orbit, pane_command, run, run_orbit, sh_quote, tmux, tmux_new_pane, tool_results_text,
};

/// OSC 52 (write "hi" to the clipboard), a title change, a screen clear.
const HOSTILE: &str = "\x1b]52;c;aGk=\x07\x1b]0;PWNED-TITLE\x07\x1b[2J";
/// The Bash command whose output is [`HOSTILE`] plus a title change.
const HOSTILE_COMMAND: &str = r"printf '\033]52;c;aGk=\007\033]2;PWNED-TOOL\007\033[2Jtool-done\n'";
/// How long a tmux screen may take to show what the test waits for.
const SCREEN_TIMEOUT: Duration = Duration::from_secs(20);

/// Numbers this process's tmux servers.
static NEXT_PANE: AtomicUsize = AtomicUsize::new(0);

/// Every ESC in `text` starts an SGR sequence without conceal (`ESC [
/// digits/;/: m`, no parameter 8); no other C0 control but `\n`, `\t` and
/// `\r` before `\n`, no DEL, no C1 control. Returns what is wrong, if anything.
fn raw_controls(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut wrong = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\x1b' {
            let mut j = i + 1;
            let sgr = chars.get(j) == Some(&'[') && {
                j += 1;
                while chars
                    .get(j)
                    .is_some_and(|c| c.is_ascii_digit() || *c == ';' || *c == ':')
                {
                    j += 1;
                }
                chars.get(j) == Some(&'m')
            };
            let params: String = chars[(i + 2).min(j)..j].iter().collect();
            if !sgr || params.split(';').any(|p| p.trim_start_matches('0') == "8") {
                let seq: String = chars[i..(j + 1).min(chars.len())].iter().collect();
                wrong.push(format!("{seq:?} at char {i}"));
            }
            i = j + 1;
            continue;
        }
        let crlf = c == '\r' && chars.get(i + 1) == Some(&'\n');
        if c.is_control() && c != '\n' && c != '\t' && !crlf {
            wrong.push(format!("{c:?} at char {i}"));
        }
        i += 1;
    }
    wrong
}

/// A fake model that runs [`HOSTILE_COMMAND`] then answers with hostile
/// text, one OSC split across two deltas.
fn hostile_server() -> FakeAnthropic {
    FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Bash", json!({ "command": HOSTILE_COMMAND })),
        Reply::turn(Turn::new().text_chunks(&[
            "\x1b[31mred\x1b[0m \x1b[8msecret\x1b[0m ",
            HOSTILE,
            " \u{9b}2J \x1b]2;SPLIT",
            "-TITLE\x07 over\rwrite\r\n\tend \x1b",
        ])),
    ])
}

#[test]
fn text_output_shows_control_sequences_visibly_and_keeps_colour() {
    let scratch = Scratch::new();
    let server = hostile_server();
    let mut cmd = orbit(&scratch, &server);
    cmd.args(["-p", "go", "--output-format", "text"])
        .args(["--permission-mode", "bypassPermissions"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    // The Bash output really carried the bytes to the model.
    let told = tool_results_text(&server.bodies()[1]);
    assert!(told.contains("\x1b]2;PWNED-TOOL\x07"), "{told:?}");
    let wrong = raw_controls(&out.stdout);
    assert!(
        wrong.is_empty(),
        "raw controls on stdout: {wrong:?}\n{:?}",
        out.stdout
    );
    for shown in [
        "\x1b[31mred\x1b[0m",
        "␛]52;c;aGk=␇",
        "␛]0;PWNED-TITLE␇",
        "␛[2J ␛[2J ␛]2;SPLIT-TITLE␇",
        "over␍write\r\n\tend ␛",
    ] {
        assert!(out.stdout.contains(shown), "{shown:?} in {:?}", out.stdout);
    }
    assert!(!out.stdout.contains("\x1b[8m"), "{:?}", out.stdout);
}

#[test]
fn stream_json_output_keeps_the_model_text_byte_exact() {
    let scratch = Scratch::new();
    let server = hostile_server();
    let mut cmd = orbit(&scratch, &server);
    cmd.args(["-p", "go", "--output-format", "stream-json", "--verbose"])
        .args(["--permission-mode", "bypassPermissions"]);
    let out = run(cmd);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let result = out.result();
    let text = result["result"].as_str().unwrap_or_default();
    assert!(text.contains(HOSTILE), "{text:?}");
    assert!(
        text.contains("\u{9b}2J") && text.contains("over\rwrite"),
        "{text:?}"
    );
    let wrong = raw_controls(&out.stdout);
    assert!(
        wrong.iter().all(|w| w.contains("\\u{9b}")),
        "JSON escapes C0 (C1 passes as it is, as JSON allows): {wrong:?}"
    );
}

#[test]
fn error_lines_on_stderr_show_control_sequences_visibly() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::api_error(
        400,
        "invalid_request_error",
        "bad \x1b]0;PWNED-TITLE\x07 request \u{9b}2J",
    )]);
    let out = run_orbit(&scratch, &server, &["-p", "go", "--output-format", "text"]);
    assert_eq!(out.code, 1, "stderr: {}", out.stderr);
    let wrong = raw_controls(&out.stderr);
    assert!(wrong.is_empty(), "raw controls on stderr: {wrong:?}");
    assert!(
        out.stderr.contains("bad ␛]0;PWNED-TITLE␇ request ␛[2J"),
        "{:?}",
        out.stderr
    );
}

/// Kills its tmux session when the test ends (its server then exits).
struct Session(String);

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.0, "kill-session", "-t", &self.0])
            .output();
    }
}

#[test]
fn tui_leaves_the_pane_title_and_clipboard_alone() {
    let scratch = Scratch::new();
    let server = hostile_server();
    let name = format!(
        "orbit-term-{}-{}",
        std::process::id(),
        NEXT_PANE.fetch_add(1, Ordering::Relaxed)
    );
    // The pane waits for a signal before orbit starts, so the title is set
    // and OSC 52 is accepted from the pane (a leaked sequence would show in
    // `pane_title` / `list-buffers`) before orbit prints anything.
    let go = format!("{name}-go");
    let line = format!(
        "tmux wait-for {}; {}; echo \"[orbit exited $?]\"; sleep 600",
        sh_quote(&go),
        pane_command(
            &scratch,
            &server.env(),
            &["--permission-mode", "bypassPermissions", "go"]
        )
    );
    tmux_new_pane(&name, &name, &scratch.path(), &line);
    let session = Session(name.clone());
    tmux(&name, &["set-option", "-s", "set-clipboard", "on"]);
    tmux(&name, &["set-option", "-s", "escape-time", "0"]);
    tmux(&name, &["select-pane", "-t", &name, "-T", "clean-title"]);
    tmux(&name, &["wait-for", "-S", &go]);
    let started = Instant::now();
    let screen = loop {
        let screen = tmux(
            &name,
            &["capture-pane", "-p", "-J", "-S", "-2000", "-t", &name],
        );
        if screen.contains("write") && !screen.contains("✻ Working") {
            break screen;
        }
        assert!(
            started.elapsed() < SCREEN_TIMEOUT,
            "waited for the answer; the screen:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let title = tmux(
        &name,
        &["display-message", "-p", "-t", &name, "#{pane_title}"],
    );
    let buffers = tmux(&name, &["list-buffers"]);
    assert_eq!(title.trim(), "clean-title", "the screen:\n{screen}");
    assert_eq!(
        buffers.trim(),
        "",
        "OSC 52 reached tmux; the screen:\n{screen}"
    );
    // The sequences are shown, not dropped silently.
    for shown in ["␛]0;PWNED-TITLE␇", "␛]2;SPLIT-TITLE␇", "␛]2;PWNED-TOOL␇"] {
        assert!(
            screen.contains(shown),
            "{shown:?} not on the screen:\n{screen}"
        );
    }
    drop(session);
}
