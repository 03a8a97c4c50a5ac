//! Skills (issue 33) through the binary against the fake server: a
//! project's `.claude/skills/NAME/SKILL.md` is offered by name and
//! description in the `Skill` tool's description, its body reaches the
//! model only after a `Skill` call; a script in the skill's folder runs
//! through Bash with the skill's `allowed-tools` (default mode, headless:
//! no one to ask) and the grant ends with the user's turn; an untrusted
//! folder's skills do not load; `/name` invokes one; `init` lists them.

use std::time::Duration;

use orbit_test_support::files::put;
use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, StreamJsonChild, tool_results_text};
use super::harness::{assert_contains, orbit_ok, run_beside_a_fifo};

const RUN_LIMIT: Duration = Duration::from_secs(30);
/// Only in the body of the skill, never in its front matter.
const BODY_MARKER: &str = "SKILL-BODY-MARKER-33";
/// What the script prints when it runs.
const SCRIPT_MARKER: &str = "ENTRY-FROM-SCRIPT-33";
const SCRIPT: &str = "bash .claude/skills/changelog/scripts/entry.sh";

/// A project with the `changelog` skill: a description, a body, a script
/// (it writes `entry-made`) and the `allowed-tools` rule that lets it run.
fn project_with_skill() -> Scratch {
    let scratch = Scratch::new();
    put(
        &scratch.path(),
        ".claude/skills/changelog/SKILL.md",
        &format!(
            "---\nname: changelog\ndescription: Write the changelog entry for the last commit\n\
             allowed-tools: Bash({SCRIPT}:*)\n---\n# Changelog\n\n{BODY_MARKER}: run \
             `scripts/entry.sh` from this folder, then write the entry for $ARGUMENTS.\n"
        ),
    );
    put(
        &scratch.path(),
        ".claude/skills/changelog/scripts/entry.sh",
        &format!("touch entry-made\necho {SCRIPT_MARKER}\n"),
    );
    scratch
}

/// The model runs the skill's script with `arg`.
fn script_call(id: &str, arg: &str) -> Reply {
    Reply::tool_use(id, "Bash", json!({"command": format!("{SCRIPT} {arg}")}))
}

/// The model loads the `changelog` skill.
fn skill_call(id: &str) -> Reply {
    Reply::tool_use(id, "Skill", json!({"skill": "changelog"}))
}

/// The stream-json `system/init` line of a run.
fn init_line(out: &Outcome) -> Value {
    out.lines()
        .into_iter()
        .find(|l| l["subtype"] == "init")
        .expect("an init line")
}

/// The whole request body as text.
fn text_of(body: &Value) -> String {
    body.to_string()
}

/// The `Skill` tool's description in a request (None: not offered).
fn skill_description(body: &Value) -> Option<String> {
    body["tools"]
        .as_array()?
        .iter()
        .find(|t| t["name"] == "Skill")
        .map(|t| t["description"].as_str().unwrap_or_default().to_string())
}

#[test]
fn a_project_skill_is_listed_first_and_its_body_loads_only_when_called() {
    let scratch = project_with_skill();
    let server = FakeAnthropic::start(vec![
        // Before the skill is loaded its script is not allowed (headless:
        // an ask is a denial).
        script_call("toolu_1", "early"),
        Reply::tool_use(
            "toolu_2",
            "Skill",
            json!({"skill": "changelog", "args": "v1.2"}),
        ),
        script_call("toolu_3", "v1.2"),
        Reply::text("entry written"),
    ]);
    let out = orbit_ok(
        &scratch,
        &server,
        &[
            "-p",
            "write the changelog entry for the last commit",
            "--trust-project",
        ],
    );
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 4, "{}", out.stderr);
    // First request: name and description only.
    let listed = skill_description(&bodies[0]).expect("Skill offered");
    assert_contains(
        &listed,
        "- changelog: Write the changelog entry for the last commit",
    );
    assert!(!text_of(&bodies[0]).contains(BODY_MARKER));
    let early = tool_results_text(&bodies[1]);
    assert!(!text_of(&bodies[1]).contains(BODY_MARKER));
    assert!(!early.contains(SCRIPT_MARKER), "{early}");
    // After the call: the body with its arguments and the folder's path.
    let loaded = tool_results_text(&bodies[2]);
    let dir = scratch
        .path()
        .canonicalize()
        .unwrap()
        .join(".claude/skills/changelog");
    for needle in [
        "Launching skill: changelog".to_string(),
        format!("Base directory for this skill: {}", dir.display()),
        format!(
            "{BODY_MARKER}: run `scripts/entry.sh` from this folder, then write the entry for v1.2."
        ),
    ] {
        assert!(loaded.contains(&needle), "{needle:?} missing from {loaded}");
    }
    // The script runs with the skill's allowed-tools, no ask.
    let ran = tool_results_text(&bodies[3]);
    assert!(ran.contains(SCRIPT_MARKER), "{ran}");
    assert!(scratch.path().join("entry-made").exists());
}

#[test]
fn an_untrusted_folders_skills_do_not_load() {
    let scratch = project_with_skill();
    put(
        &scratch.home(),
        ".claude/skills/notes/SKILL.md",
        "---\ndescription: Take meeting notes\n---\nNotes body\n",
    );
    let server = FakeAnthropic::start(vec![skill_call("toolu_1"), Reply::text("done")]);
    let out = orbit_ok(
        &scratch,
        &server,
        &["-p", "hi", "--output-format", "stream-json", "--verbose"],
    );
    let bodies = server.bodies();
    let listed = skill_description(&bodies[0]).expect("the user's skill is offered");
    assert!(listed.contains("- notes: Take meeting notes"), "{listed}");
    assert!(!text_of(&bodies[0]).contains("changelog"));
    let refused = tool_results_text(&bodies[1]);
    assert!(refused.contains("Unknown skill: changelog"), "{refused}");
    assert!(!text_of(&bodies[1]).contains(BODY_MARKER));
    let init = init_line(&out);
    assert_eq!(init["skills"], json!(["notes"]));
}

#[test]
fn p_slash_skill_sends_its_body_and_init_lists_it() {
    let scratch = project_with_skill();
    let server = FakeAnthropic::start(vec![script_call("toolu_1", "v2"), Reply::text("done")]);
    let out = orbit_ok(
        &scratch,
        &server,
        &[
            "-p",
            "/changelog v2",
            "--trust-project",
            "--output-format",
            "stream-json",
            "--verbose",
        ],
    );
    let bodies = server.bodies();
    let sent = body::last_message_texts(&bodies[0]).join("\n");
    assert_contains(&sent, "<command-name>/changelog</command-name>");
    assert!(sent.contains(&format!("{BODY_MARKER}: run")), "{sent}");
    assert!(sent.contains("write the entry for v2."), "{sent}");
    // The typed skill's allowed-tools hold for its prompt.
    assert!(tool_results_text(&bodies[1]).contains(SCRIPT_MARKER));
    let init = init_line(&out);
    assert_eq!(init["skills"], json!(["changelog"]));
    // Claude Code lists skills among the slash commands too.
    assert_eq!(init["slash_commands"][0], "changelog");
}

/// Two SDK prompts: the skill's grant lets its script run in the turn that
/// loaded it and is gone in the next turn.
#[test]
fn a_skills_grant_ends_with_the_users_turn() {
    let scratch = project_with_skill();
    let server = FakeAnthropic::start(vec![
        skill_call("toolu_1"),
        script_call("toolu_2", "one"),
        Reply::text("first done"),
        script_call("toolu_3", "two"),
        Reply::text("second done"),
    ]);
    let mut client = StreamJsonChild::spawn(&scratch, &server.env(), &["--trust-project"]);
    client.send_user("use the changelog skill");
    client.send_user("run the script again");
    let (status, lines) = client.finish(RUN_LIMIT);
    assert!(status.success(), "{lines:#?}");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 5);
    assert!(tool_results_text(&bodies[2]).contains(SCRIPT_MARKER));
    let second = tool_results_text(&bodies[4]);
    assert!(!second.contains(SCRIPT_MARKER), "{second}");
}

#[test]
fn a_fifo_skill_file_is_one_warning_and_does_not_hang() {
    let server = run_beside_a_fifo(
        ".claude/skills/fifo/SKILL.md",
        &["-p", "hi", "--trust-project"],
        RUN_LIMIT,
    );
    assert!(skill_description(&server.bodies()[0]).is_none());
}

/// A small model that calls Skill again for a loaded skill gets a short
/// answer instead of the body once more (it looped on it before).
#[test]
fn a_second_call_for_a_loaded_skill_is_answered_briefly() {
    let scratch = project_with_skill();
    let server = FakeAnthropic::start(vec![
        skill_call("toolu_1"),
        skill_call("toolu_2"),
        Reply::text("done"),
    ]);
    orbit_ok(&scratch, &server, &["-p", "changelog", "--trust-project"]);
    let again = tool_results_text(&server.bodies()[2]);
    assert!(again.contains("already loaded in this turn"), "{again}");
    assert!(!again.contains(BODY_MARKER), "{again}");
}

/// `/changelog v3` typed in the terminal UI loads the skill as `-p` does,
/// and the completion popup offers it.
#[test]
fn tui_slash_skill_sends_its_body() {
    let scratch = project_with_skill();
    let server = FakeAnthropic::start(vec![Reply::text("Entry written.")]);
    let pane = super::clients::Pane::start(&scratch, &server.env(), &["--trust-project"]);
    pane.tmux(&["send-keys", "-t", &pane.name, "-l", "/chang"]);
    pane.wait_for("Write the changelog entry for the last commit");
    pane.keys(&["C-u"]);
    pane.submit("/changelog v3");
    pane.wait_for("Entry written.");
    let sent = body::last_message_texts(&server.bodies()[0]).join("\n");
    assert_contains(&sent, "<command-name>/changelog</command-name>");
    assert!(sent.contains("write the entry for v3."), "{sent}");
}
