//! Output styles through the binary against the fake server: the
//! `outputStyle` setting changes the first request's system prompt as
//! Claude Code 2.1.332 does (its "Output Style" first sentence, the style's
//! text and reminder at the end) and the init line's `output_style`; a
//! project's style file loads only in a trusted folder; `/output-style`
//! in the UI (tmux) lists the styles and switches the next request's.

use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::json;

use super::clients::Pane;
use super::common::{Scratch, run_stream_json};

/// The init line's `output_style` and the first request's system text.
fn run(scratch: &Scratch, flags: &[&str]) -> (String, String, String) {
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let out = run_stream_json(scratch, &server, "hi", flags);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let init = out
        .lines()
        .into_iter()
        .find(|l| l["subtype"] == "init")
        .unwrap();
    let system = body::system_text(&server.bodies()[0]);
    (
        init["output_style"].as_str().unwrap().to_string(),
        system,
        out.stderr,
    )
}

#[test]
fn a_builtin_style_changes_the_system_prompt_and_the_init_line() {
    let scratch = Scratch::new();
    let (style, system, _) = run(&scratch, &[]);
    assert_eq!(style, "default");
    assert!(!system.contains("# Output Style"), "{system}");
    let plain_start = system.clone();

    scratch.write_home(
        ".orbit/settings.json",
        &json!({"outputStyle": "Explanatory"}).to_string(),
    );
    let (style, system, _) = run(&scratch, &[]);
    assert_eq!(style, "Explanatory");
    assert!(
        system.starts_with(
            "You are orbit. You are an interactive agent that helps users according to your \"Output Style\""
        ),
        "{system}"
    );
    assert!(system.contains("# Output Style: Explanatory\nYou are an interactive CLI tool"));
    assert!(system.contains("★ Insight"), "{system}");
    assert!(system.ends_with(
        "Explanatory output style is active. Remember to follow the specific guidelines for this style."
    ));
    // The rest of orbit's prompt stays (tool guidance, environment).
    let environment = plain_start.find("# Environment").unwrap();
    assert!(system.contains(&plain_start[environment..environment + 40]));
}

#[test]
fn a_project_style_loads_only_in_a_trusted_folder() {
    for trusted in [false, true] {
        let scratch = Scratch::new();
        std::fs::create_dir_all(scratch.path().join(".claude/output-styles")).unwrap();
        scratch.write(
            ".claude/output-styles/pirate.md",
            "---\nname: Pirate\ndescription: Arr\n---\nAlways answer like a pirate.\n",
        );
        scratch.write(
            ".claude/settings.json",
            &json!({"outputStyle": "Pirate"}).to_string(),
        );
        let flags: &[&str] = if trusted { &["--trust-project"] } else { &[] };
        let (style, system, stderr) = run(&scratch, flags);
        assert_eq!(
            system.contains("Always answer like a pirate."),
            trusted,
            "{system}"
        );
        if trusted {
            assert_eq!(style, "Pirate");
            assert!(system.contains(
                "# Output Style: Pirate\nAlways answer like a pirate.\n\nPirate output style is active."
            ));
            // keep-coding-instructions is false: orbit's coding rules go.
            assert!(!system.contains("Never guess file contents"), "{system}");
        } else {
            assert_eq!(style, "default");
            assert!(stderr.contains("not a known output style"), "{stderr}");
        }
    }
}

#[test]
fn output_style_in_the_ui_lists_and_switches() {
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![Reply::text("First."), Reply::text("Second.")]);
    let pane = Pane::start(&scratch, &server.env(), &[]);
    pane.wait_for("ctx ");
    pane.submit("/output-style");
    let screen = pane.wait_for("Learning");
    assert!(
        screen.contains("● default") && screen.contains("Explanatory"),
        "{screen}"
    );
    pane.submit("one");
    pane.wait_for("First.");
    pane.submit("/output-style learning");
    pane.wait_for("Output style set to Learning");
    pane.submit("two");
    pane.wait_for("Second.");
    let bodies = server.bodies();
    assert!(!body::system_text(&bodies[0]).contains("# Output Style"));
    let second = body::system_text(&bodies[1]);
    assert!(second.contains("# Output Style: Learning"), "{second}");
    assert!(second.starts_with("You are orbit. You are an interactive agent"));
    pane.exit();
}
