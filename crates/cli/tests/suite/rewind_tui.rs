//! Issue 34 in the interactive UI (tmux): `/rewind` opens a picker of the
//! session's prompts with the files each changed; choosing one restores
//! the code only. Esc Esc opens the same picker; a file changed outside
//! orbit is overwritten only after the confirmation picker's yes.

use super::clients::Pane;
use super::common::Scratch;
use super::rewind::write_then_bash;

#[test]
fn rewind_picker_restores_the_code_of_a_chosen_prompt() {
    let scratch = Scratch::new();
    let a = scratch.path().join("a.txt");
    let server = write_then_bash(&scratch, "echo two > b.txt");
    let pane = Pane::start(
        &scratch,
        &server.env(),
        &["--permission-mode", "bypassPermissions"],
    );
    pane.submit("first prompt");
    pane.wait_for("wrote a");
    pane.submit("second prompt");
    pane.wait_for("wrote b");
    assert!(scratch.path().join("b.txt").exists());

    pane.submit("/rewind");
    pane.wait_for("Rewind the files to before which prompt?");
    pane.wait_for("2. second prompt — changed b.txt +1 -0");
    pane.wait_for("1. first prompt — changed a.txt +1 -0");
    // The newest prompt is selected first.
    pane.keys(&["Enter"]);
    pane.wait_for("Rewound the files to before prompt 2: removed b.txt;");
    assert!(!scratch.path().join("b.txt").exists());
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "one\n");

    // Esc Esc opens the picker too; a.txt edited by the user asks first.
    std::fs::write(&a, "mine\n").unwrap();
    // Two presses as a person makes them: two bytes read together are
    // one Esc to the terminal parser.
    pane.keys(&["Escape"]);
    std::thread::sleep(std::time::Duration::from_millis(150));
    pane.keys(&["Escape"]);
    pane.wait_for("Rewind the files to before which prompt?");
    pane.keys(&["Down", "Enter"]);
    pane.wait_for("Changed outside orbit since the checkpoint: a.txt. Overwrite?");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "mine\n");
    pane.keys(&["Up", "Enter"]);
    pane.wait_for("Rewound the files to before prompt 1: removed a.txt;");
    assert!(!a.exists());
    pane.exit();
}
