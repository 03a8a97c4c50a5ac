//! P1 through the binary: headless default mode denies Bash (an ask with
//! no one to ask), the denial is reported; `--allowedTools`,
//! `--disallowedTools` and `--dangerously-skip-permissions` take effect;
//! acceptEdits runs the commands that only manage files.

use orbit_test_support::{FakeAnthropic, body};
use serde_json::json;

use super::common::{Scratch, bash_calls, run_answered, run_stream_json};
use super::harness::stream_json_ok;

fn bash_then_text(command: &str) -> FakeAnthropic {
    bash_calls(&[("toolu_1", json!({"command": command}))], "finished")
}

#[test]
fn headless_default_mode_denies_bash_and_reports_it() {
    let scratch = Scratch::new();
    let server = bash_then_text("echo ran > ran.txt");
    let out = stream_json_ok(&scratch, &server, "write a file", &[]);
    assert!(
        !scratch.path().join("ran.txt").exists(),
        "a denied command ran"
    );
    let result = out.result();
    assert_eq!(result["subtype"], "success");
    assert_eq!(
        result["permission_denials"],
        json!([{"tool_name": "Bash", "tool_use_id": "toolu_1", "tool_input": {"command": "echo ran > ran.txt"}}])
    );
    let requests = server.requests();
    let denied = body::tool_results(&requests[1].body);
    assert_eq!(denied.len(), 1);
    assert_eq!(denied[0].tool_use_id, "toolu_1");
    assert!(
        denied[0].is_error,
        "a denial is an error result: {denied:?}"
    );
}

#[test]
fn allowed_tools_and_skip_permissions_let_bash_run() {
    for flags in [
        &["--allowedTools", "Read,Bash"][..],
        &["--dangerously-skip-permissions"][..],
    ] {
        let scratch = Scratch::new();
        let server = bash_then_text("echo ran > ran.txt");
        let out = run_stream_json(&scratch, &server, "write a file", flags);
        assert_eq!(out.code, 0, "{flags:?} stderr: {}", out.stderr);
        assert_eq!(out.result()["permission_denials"], json!([]), "{flags:?}");
        assert_eq!(
            std::fs::read_to_string(scratch.path().join("ran.txt")).unwrap(),
            "ran\n",
            "{flags:?}"
        );
    }
}

/// acceptEdits runs the shell commands that only manage files (Claude
/// Code's mkdir, touch, rm, rmdir, mv, cp, sed -i) inside the workspace,
/// and still denies headless what it would ask for: other commands, a
/// recursive rm, a sed program that runs a command, a path outside.
#[test]
fn accept_edits_runs_file_management_commands_inside_the_workspace() {
    // (command, runs, file that shows it, content then)
    let table = [
        (
            "sed -i 's/foo/double/g' funcs.py",
            true,
            "funcs.py",
            Some("def double(x): pass\n"),
        ),
        (
            "mv funcs.py renamed.py",
            true,
            "renamed.py",
            Some("def foo(x): pass\n"),
        ),
        (
            "mkdir -p build && touch build/.keep",
            true,
            "build/.keep",
            Some(""),
        ),
        ("rm -r keep", false, "keep/a.txt", Some("a\n")),
        ("sed -i '1e touch PWNED' funcs.py", false, "PWNED", None),
        ("echo x > made.txt", false, "made.txt", None),
        (
            "cp funcs.py ../outside-copy.py",
            false,
            "funcs.py",
            Some("def foo(x): pass\n"),
        ),
    ];
    for (command, runs, shows, content) in table {
        let scratch = Scratch::new();
        scratch.write("funcs.py", "def foo(x): pass\n");
        std::fs::create_dir(scratch.path().join("keep")).unwrap();
        scratch.write("keep/a.txt", "a\n");
        let server = bash_then_text(command);
        let flags = ["--permission-mode", "acceptEdits"];
        let out = run_stream_json(&scratch, &server, "do it", &flags);
        assert_eq!(out.code, 0, "{command}: {}", out.stderr);
        let denials = out.result()["permission_denials"].as_array().unwrap().len();
        assert_eq!(denials, usize::from(!runs), "{command}");
        let got = std::fs::read_to_string(scratch.path().join(shows)).ok();
        assert_eq!(got.as_deref(), content, "{command}");
        assert!(!scratch.path().join("PWNED").exists(), "{command}");
    }
}

#[test]
fn disallowed_tool_is_not_offered_to_the_model() {
    let (_scratch, server, out) = run_answered("ok", &["--disallowed-tools", "Bash Write"]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let names = body::tool_names(&server.requests()[0].body);
    assert!(names.contains(&"Read".to_string()), "{names:?}");
    assert!(!names.contains(&"Bash".to_string()), "{names:?}");
    assert!(!names.contains(&"Write".to_string()), "{names:?}");
    let init_tools = out.lines()[0]["tools"].clone();
    assert_eq!(init_tools, json!(names));
}

#[test]
fn add_dir_lets_a_bash_cd_outside_the_project_persist() {
    let scratch = Scratch::new();
    let outside = tempfile::tempdir().unwrap();
    let outside_path = outside.path().canonicalize().unwrap();
    let cd = format!("cd {}", outside_path.display());
    let script = || {
        bash_calls(
            &[
                ("toolu_1", json!({"command": cd})),
                ("toolu_2", json!({"command": "pwd"})),
            ],
            "finished",
        )
    };
    // Without --add-dir the cd is undone and the next command runs at home.
    let server = script();
    stream_json_ok(&scratch, &server, "go", &["--dangerously-skip-permissions"]);
    let requests = server.requests();
    let first = body::tool_results(&requests[1].body);
    assert!(
        first[0].text.starts_with("Shell cwd was reset to "),
        "{first:?}"
    );
    let pwd = body::tool_results(&requests[2].body);
    assert_eq!(
        pwd[0].text,
        scratch.path().canonicalize().unwrap().display().to_string()
    );

    // With --add-dir the directory is allowed and the cd persists.
    let server = script();
    let dir = outside_path.display().to_string();
    let flags = ["--dangerously-skip-permissions", "--add-dir", dir.as_str()];
    stream_json_ok(&scratch, &server, "go", &flags);
    let pwd = body::tool_results(&server.requests()[2].body);
    assert_eq!(pwd[0].text, dir);

    // A missing directory stops the run before any model call.
    let server = script();
    let out = run_stream_json(&scratch, &server, "go", &["--add-dir", "/no/such/dir"]);
    out.assert_error_containing("--add-dir /no/such/dir");
    assert_eq!(server.request_count(), 0);
}
