//! Custom slash commands outside the interactive UI (issue 31, "Commands
//! everywhere"): `orbit -p "/name args"` and the SDK's user messages expand
//! `.claude/commands/*.md` through `orbit-commands` as Claude Code 2.1.332
//! does — front matter, `$ARGUMENTS`/`$N`, `!`cmd`` output and `@file`
//! attachments, `allowed-tools` granted for that prompt only, `model` for
//! that prompt; an untrusted folder's commands get neither; hostile
//! command files do not stop orbit; `init` lists the commands.

use std::time::Duration;

use orbit_test_support::files::put;
use orbit_test_support::{Completion, FakeAnthropic, FakeOpenAi, OpenAiReply, Reply, body};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, StreamJsonChild, lines_with, run, run_orbit};
use super::harness::{assert_contains, orbit_ok, run_beside_a_fifo, stream_json_ok_with_env};

/// A run that must end well within the suite's timeout (a FIFO would hang).
const RUN_LIMIT: Duration = Duration::from_secs(20);

/// Every text of the first request's last user message, joined.
fn sent_text(body: &Value) -> String {
    body::last_message_texts(body).join("\n")
}

/// The model a request body asked for ("" when none).
fn sent_model(body: &Value) -> String {
    body["model"].as_str().unwrap_or_default().to_string()
}

/// The run succeeded and its request asked for the session's model, not
/// the command's `haiku`.
fn assert_ran_with_the_session_model(out: &Outcome, body: &Value) {
    assert_eq!(out.code, 0, "{}", out.stderr);
    let model = sent_model(body);
    assert!(!model.contains("haiku"), "{model}");
}

const REVIEW: &str = "---\n\
description: Review a file\n\
argument-hint: [file]\n\
allowed-tools: Bash(touch:*), Bash(echo:*)\n\
model: haiku\n\
---\n\
Review $ARGUMENTS first=$0 second=$1 third=$2\n\
Shell: !`touch made-by-command && echo touched-it`\n\
File: @notes.txt\n";

#[test]
fn p_review_sends_the_expanded_command_with_front_matter_shell_and_file() {
    let scratch = Scratch::new();
    put(&scratch.path(), ".claude/commands/review.md", REVIEW);
    scratch.write("notes.txt", "NOTES-CONTENT-31\n");
    let server = FakeAnthropic::start(vec![Reply::text("reviewed")]);
    let out = orbit_ok(
        &scratch,
        &server,
        &["-p", "/review src/lib.rs extra", "--trust-project"],
    );
    assert_eq!(out.stdout.trim(), "reviewed");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 1);
    let text = sent_text(&bodies[0]);
    for needle in [
        "<command-name>/review</command-name>",
        "<command-args>src/lib.rs extra</command-args>",
        "Review src/lib.rs extra first=src/lib.rs second=extra third=$2",
        "Shell: touched-it",
        "File: @notes.txt",
        "Called the Read tool with the following input:",
        "NOTES-CONTENT-31",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from {text}");
    }
    // `allowed-tools` let the `!` command write (a headless ask is a denial).
    assert!(scratch.path().join("made-by-command").exists());
    // `model: haiku` for this prompt.
    let model = sent_model(&bodies[0]);
    assert!(model.contains("haiku"), "{model}");
}

#[test]
fn an_unknown_slash_name_is_sent_as_typed() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    orbit_ok(&scratch, &server, &["-p", "/nosuch thing"]);
    assert_eq!(sent_text(&server.bodies()[0]), "/nosuch thing");
}

/// A command whose expansion the gate refuses is not sent: one error line
/// names the pattern. A `!` command is a Bash call; an `@file` is a Read
/// call, and one outside the workspace asks, which headless is a refusal.
#[test]
fn a_refused_shell_command_or_file_refuses_the_prompt_with_one_line() {
    // (command, its file, how the error line starts)
    let cases = [
        (
            "deny",
            "Run: !`touch made-by-deny`\n",
            "orbit: error: /deny: shell command permission check failed for pattern \"!`touch made-by-deny`\"",
        ),
        (
            "peek",
            "Look at @~/secret.txt and @/dev/zero\n",
            "orbit: error: /peek: Read permission check failed for \"@~/secret.txt\"",
        ),
    ];
    for (name, text, start) in cases {
        let scratch = Scratch::new();
        std::fs::write(scratch.home().join("secret.txt"), "SECRET-31\n").unwrap();
        put(
            &scratch.path(),
            &format!(".claude/commands/{name}.md"),
            text,
        );
        let server = FakeAnthropic::start(vec![Reply::text("never")]);
        let prompt = format!("/{name}");
        let out = run_orbit(&scratch, &server, &["-p", &prompt, "--trust-project"]);
        let line = out.one_error_line("(the prompt was not sent)");
        assert!(line.starts_with(start), "{line}");
        assert!(line.ends_with("(the prompt was not sent)"), "{line}");
        assert!(server.requests().is_empty(), "{name}");
        assert!(!scratch.path().join("made-by-deny").exists());
    }
}

#[test]
fn an_untrusted_projects_command_gets_no_allowed_tools_and_no_model() {
    let scratch = Scratch::new();
    put(&scratch.path(), ".claude/commands/review.md", REVIEW);
    put(
        &scratch.path(),
        ".claude/commands/fast.md",
        "---\nmodel: haiku\nallowed-tools: Bash(touch:*)\n---\nSay hi.\n",
    );
    // The `!` command needs the grant it no longer gets: refused.
    let server = FakeAnthropic::start(vec![Reply::text("never")]);
    let out = run_orbit(&scratch, &server, &["-p", "/review x"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let notes = lines_with(&out.stderr, "not trusted");
    assert_eq!(notes.len(), 1, "{}", out.stderr);
    assert_contains(&out.stderr, "permission check failed");
    assert!(server.requests().is_empty());
    assert!(!scratch.path().join("made-by-command").exists());
    // Without `!`: sent, with the session's model, one note line.
    let server = FakeAnthropic::start(vec![Reply::text("hi")]);
    let out = run_orbit(&scratch, &server, &["-p", "/fast"]);
    assert_ran_with_the_session_model(&out, &server.bodies()[0]);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert_contains(&out.stderr, "/fast: this folder is not trusted");
}

/// A Claude model named by a command cannot serve another provider's
/// session: ignored with one note, the session's model is used.
#[test]
fn a_commands_model_is_ignored_with_one_note_for_another_provider() {
    let scratch = Scratch::new();
    put(
        &scratch.home(),
        ".claude/commands/fast.md",
        "---\nmodel: haiku\n---\nSay hi.\n",
    );
    let server = FakeOpenAi::start(vec![OpenAiReply::completion(
        Completion::new().text("hi").usage(4, 1),
    )]);
    let mut cmd = super::common::orbit_with_env(&scratch, &server.env());
    cmd.args(["-p", "/fast"]);
    let out = run(cmd);
    assert_ran_with_the_session_model(&out, &server.bodies()[0]);
    assert_eq!(
        lines_with(&out.stderr, "/fast"),
        ["orbit: note: /fast: model haiku ignored: the provider is openai"],
        "{}",
        out.stderr
    );
}

/// Two SDK user messages: the command's `allowed-tools` let the model's
/// `touch` run during its own prompt, and are gone for the next prompt.
#[test]
fn the_allowed_tools_grant_does_not_outlive_its_prompt() {
    let scratch = Scratch::new();
    put(
        &scratch.path(),
        ".claude/commands/grant.md",
        "---\nallowed-tools: Bash(touch:*)\n---\nTouch the files.\n",
    );
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Bash", json!({"command": "touch during-grant"})),
        Reply::text("first done"),
        Reply::tool_use("toolu_2", "Bash", json!({"command": "touch after-grant"})),
        Reply::text("second done"),
    ]);
    let mut client = StreamJsonChild::spawn(&scratch, &server.env(), &["--trust-project"]);
    client.send_control("init_1", "initialize");
    for prompt in ["/grant", "touch another file"] {
        client.send_user(prompt);
    }
    let (status, lines) = client.finish(RUN_LIMIT);
    let stdout = format!("{lines:#?}");
    assert!(status.success(), "{status}: {stdout}");
    assert!(scratch.path().join("during-grant").exists(), "{stdout}");
    assert!(!scratch.path().join("after-grant").exists(), "{stdout}");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 4);
    assert!(sent_text(&bodies[0]).contains("Touch the files."));
    let denied = super::common::tool_results_text(&bodies[3]);
    assert!(
        denied.to_lowercase().contains("permission") || denied.contains("approval"),
        "{denied}"
    );
    // The `initialize` answer lists the commands as Claude Code does: the
    // custom ones, then the built-ins.
    let answer = lines
        .iter()
        .find(|l| l["type"] == "control_response")
        .unwrap_or_else(|| panic!("{stdout}"));
    let commands = &answer["response"]["response"]["commands"];
    assert_eq!(
        commands[0],
        json!({"name": "grant", "description": "Touch the files. (project)", "argumentHint": ""})
    );
    let names: Vec<&str> = commands
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "grant", "compact", "context", "cost", "model", "clear", "init"
        ]
    );
    let init = lines.iter().find(|l| l["subtype"] == "init").unwrap();
    assert_eq!(init["slash_commands"], json!(names));
}

#[test]
fn a_fifo_command_file_does_not_hang_and_is_named_once() {
    let server = run_beside_a_fifo(".claude/commands/fifo.md", &["-p", "/fifo x"], RUN_LIMIT);
    assert_eq!(sent_text(&server.bodies()[0]), "/fifo x");
}

#[test]
fn init_lists_user_and_namespaced_project_commands() {
    let scratch = Scratch::new();
    let claude_dir = scratch.home().join("claude-config");
    put(&claude_dir, "commands/standup.md", "Write my standup.\n");
    // Not read: CLAUDE_CONFIG_DIR replaces ~/.claude.
    put(&scratch.home(), ".claude/commands/ignored.md", "x\n");
    put(
        &scratch.path(),
        ".claude/commands/frontend/component.md",
        "Make $0.\n",
    );
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let mut env = server.env();
    env.push(("CLAUDE_CONFIG_DIR".into(), claude_dir.display().to_string()));
    let out = stream_json_ok_with_env(&scratch, &env, "/frontend:component Button", &["--verbose"]);
    let init = out.lines().into_iter().next().unwrap();
    assert_eq!(
        init["slash_commands"],
        json!([
            "frontend:component",
            "standup",
            "compact",
            "context",
            "cost",
            "model",
            "clear",
            "init"
        ])
    );
    assert!(sent_text(&server.bodies()[0]).contains("Make Button."));
}

/// UserPromptExpansion hooks run when a custom command expands, with
/// Claude Code 2.1.332's fields (observed: `expansion_type`,
/// `command_name`, `command_args`, `command_source`, `prompt`); their
/// `additionalContext` joins the prompt as Claude Code words it, and a
/// block (exit 2) refuses the prompt with its text, nothing sent. The
/// matcher is the command's name.
#[test]
fn user_prompt_expansion_hooks_see_the_command_add_context_and_block() {
    let scratch = Scratch::new();
    put(
        &scratch.path(),
        ".claude/commands/review.md",
        "Review $ARGUMENTS.\n",
    );
    put(
        &scratch.path(),
        ".claude/commands/deploy.md",
        "Deploy it.\n",
    );
    let log = scratch.path().join("upe.json");
    let settings = json!({"hooks": {"UserPromptExpansion": [
        {"matcher": "review", "hooks": [{"type": "command", "command": format!(
            "cat > {}; echo '{{\"hookSpecificOutput\":{{\"hookEventName\":\"UserPromptExpansion\",\"additionalContext\":\"EXTRA-CTX\"}}}}'",
            log.display()
        )}]},
        {"matcher": "deploy", "hooks": [{"type": "command", "command": "echo not on Fridays >&2; exit 2"}]}
    ]}});
    put(
        &scratch.home(),
        ".claude/settings.json",
        &settings.to_string(),
    );

    let server = FakeAnthropic::start(vec![Reply::text("reviewed")]);
    orbit_ok(&scratch, &server, &["-p", "/review src/x.rs"]);
    let input: Value = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "UserPromptExpansion");
    assert_eq!(input["expansion_type"], "slash_command");
    assert_eq!(input["command_name"], "review");
    assert_eq!(input["command_args"], "src/x.rs");
    assert_eq!(input["command_source"], "projectSettings");
    assert_eq!(input["prompt"], "/review src/x.rs");
    let sent = sent_text(&server.bodies()[0]);
    assert!(sent.contains("Review src/x.rs."), "{sent}");
    assert_contains(
        &sent,
        "UserPromptExpansion hook additional context: EXTRA-CTX",
    );

    let server = FakeAnthropic::start(vec![Reply::text("must not be asked")]);
    let out = run_orbit(&scratch, &server, &["-p", "/deploy"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(server.request_count(), 0);
    assert_contains(
        &out.stderr,
        "/deploy: UserPromptExpansion operation blocked by hook: not on Fridays",
    );
}
