//! Custom slash commands from real `.claude/commands` and `.orbit/commands`
//! directories, their expansion, and the slash popup offering them.

use orbit_composer::custom::{CustomCommand, Scope, load_custom_commands};
use orbit_composer::{Composer, ComposerConfig, ComposerEvent, Submission};

use super::support::{feed, screen, text_with_cursor, write};

/// A home and a project with commands in all four directories.
fn dirs() -> (tempfile::TempDir, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let h = home.path();
    let p = project.path();
    write(
        h,
        ".claude/commands/review.md",
        "---\ndescription: Review (home)\n---\nReview $ARGUMENTS\n",
    );
    write(
        h,
        ".claude/commands/standup.md",
        "# Write my standup\n\nSummarise yesterday.\n",
    );
    write(
        h,
        ".orbit/commands/deploy.md",
        "---\ndescription: \"Deploy to $1\"\nmodel: x\n---\n\nDeploy to $1 with tag $2.\n",
    );
    write(h, ".claude/commands/notes.txt", "not a command");
    write(
        p,
        ".claude/commands/review.md",
        "---\ndescription: 'Review (project)'\n---\nReview carefully: $ARGUMENTS\n",
    );
    write(
        p,
        ".orbit/commands/frontend/component.md",
        "Create the $1 component.\n",
    );
    write(p, ".orbit/commands/plain.md", "Explain the code.\n");
    (home, project)
}

#[test]
fn commands_load_from_both_dirs_with_the_project_winning() {
    let (home, project) = dirs();
    let commands = load_custom_commands(project.path(), Some(home.path()));
    let summary: Vec<String> = commands
        .iter()
        .map(|c| {
            let from = if c.source.starts_with(project.path()) {
                "project"
            } else {
                "home"
            };
            format!("{} | {} | {from}", c.name, c.description)
        })
        .collect();
    let expected = [
        "deploy | Deploy to $1 | home",
        "frontend:component | Create the $1 component. | project",
        "plain | Explain the code. | project",
        "review | Review (project) | project",
        "standup | Write my standup | home",
    ];
    assert_eq!(summary, expected);
    let review = &commands[3];
    assert_eq!(review.body, "Review carefully: $ARGUMENTS\n");
    // Without a home only the project's commands.
    let names: Vec<String> = load_custom_commands(project.path(), None)
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names, ["frontend:component", "plain", "review"]);
}

/// The expansion itself is `orbit_commands::expand_arguments` (its table
/// of placeholder cases lives there); a command loaded here expands
/// through it.
#[test]
fn expand_fills_arguments() {
    let command = CustomCommand {
        name: "x".into(),
        description: String::new(),
        body: "Deploy to $0 with tag $1.".into(),
        source: "x.md".into(),
        scope: Scope::Project,
        front: Default::default(),
    };
    assert_eq!(
        command.expand("staging v1.2"),
        "Deploy to staging with tag v1.2."
    );
}

#[test]
fn the_slash_popup_offers_builtin_and_custom_commands() {
    let (home, project) = dirs();
    // The UI lists the built-ins, then the custom commands.
    let mut commands: Vec<(String, String)> = vec![
        ("compact".into(), "Summarise the conversation".into()),
        ("cost".into(), "Show the session cost".into()),
        ("review".into(), "Built-in review".into()),
    ];
    let custom = load_custom_commands(project.path(), Some(home.path()));
    commands.extend(
        custom
            .iter()
            .map(|c| (c.name.clone(), c.description.clone())),
    );
    let make = || {
        Composer::new(ComposerConfig {
            project_root: project.path().to_path_buf(),
            commands: commands.clone(),
            ..ComposerConfig::default()
        })
    };
    // (keys, text with cursor afterwards)
    let cases: &[(&str, &str)] = &[
        ("/fro<Tab>", "/frontend:component |"),
        ("/co<Down><Tab>", "/cost |"),
        ("/dep<Tab>staging", "/deploy staging|"),
        ("/xyz<Tab>", "/xyz|"),
        ("/co<Esc><Tab>", "/co|"),
        ("say /co<Tab>", "say /co|"),
    ];
    for (keys, expected) in cases {
        let mut c = make();
        feed(&mut c, keys);
        assert_eq!(text_with_cursor(&mut c), *expected, "{keys:?}");
    }
    // Enter on the popup runs the highlighted command.
    let mut c = make();
    let events = feed(&mut c, "/stand<Enter>");
    assert_eq!(
        events.last(),
        Some(&ComposerEvent::Submit(Submission::Command {
            name: "standup".into(),
            args: String::new(),
        }))
    );
    // A built-in wins over a custom command of the same name in the popup.
    let mut c = make();
    feed(&mut c, "/");
    let shown = screen(&c, 80);
    assert!(
        shown
            .lines()
            .any(|l| l.starts_with("  /review ") && l.ends_with(" Built-in review")),
        "{shown}"
    );
    assert!(!shown.contains("Review (project)"), "{shown}");
    assert_eq!(shown.matches("/review").count(), 1, "{shown}");
}
