//! `orbit mcp add|add-json|list|get|remove` and `orbit mcp serve`, through
//! the binary (see `mcp.rs` for the servers).

use serde_json::{Value, json};

use super::common::Scratch;
use super::mcp::*;

/// `orbit mcp add|add-json|list|get|remove` write Claude Code's shapes to
/// the scope's file and read them back.
#[test]
fn mcp_subcommands_edit_each_scope() {
    let scratch = Scratch::new();
    let run = |args: &[&str]| {
        let out = super::common::run({
            let mut cmd = super::common::orbit_with_env(&scratch, &[]);
            cmd.arg("mcp").args(args);
            cmd
        });
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        out.stdout
    };
    run(&[
        "add", "-e", "K=v", "fs", "--", "npx", "-y", "server", "/tmp",
    ]);
    run(&[
        "add",
        "--scope",
        "user",
        "--transport",
        "http",
        "-H",
        "Authorization: Bearer ${TOKEN}",
        "web",
        "http://127.0.0.1:9/mcp",
    ]);
    run(&[
        "add-json",
        "--scope",
        "project",
        "py",
        r#"{"command": "python3", "args": ["s.py"]}"#,
    ]);
    let local: Value = serde_json::from_str(
        &std::fs::read_to_string(scratch.path().join(".orbit/settings.local.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        local["mcpServers"]["fs"],
        json!({"type": "stdio", "command": "npx", "args": ["-y", "server", "/tmp"], "env": {"K": "v"}})
    );
    let user: Value = serde_json::from_str(
        &std::fs::read_to_string(scratch.home().join(".orbit/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        user["mcpServers"]["web"],
        json!({"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}})
    );
    assert_eq!(
        scratch.redact(&run(&["list"])),
        "fs: npx -y server /tmp (local config: [CWD]/.orbit/settings.local.json)\npy: python3 s.py (project config: [CWD]/.mcp.json)\nweb: http://127.0.0.1:9/mcp (http) (user config: [HOME]/.orbit/settings.json)\n"
    );
    assert_eq!(
        scratch.redact(&run(&["get", "web"])),
        "web:\n  Scope: user config\n  File: [HOME]/.orbit/settings.json\n  Type: http\n  http://127.0.0.1:9/mcp (http)\n"
    );
    run(&["remove", "fs"]);
    assert!(!run(&["list"]).contains("fs:"));
    let out = super::common::run({
        let mut cmd = super::common::orbit_with_env(&scratch, &[]);
        cmd.args(["mcp", "get", "fs"]);
        cmd
    });
    out.assert_error_line("orbit: error: no MCP server named fs");
}

/// `orbit mcp serve` used by an MCP client (orbit itself, as a user would
/// configure it): a read-only call runs, a Bash call is refused by the
/// serving side's headless permission gate, and `--allowedTools` on
/// `serve` lets it run — with the settings' `env` (the entry blanks the
/// variable, so only the serving side's own settings can fill it).
#[test]
fn orbit_serves_its_tools_over_mcp() {
    for (serve_args, bash_runs) in [(vec![], false), (vec!["--allowedTools", "Bash"], true)] {
        let scratch = Scratch::new();
        let file = scratch.write("hello.txt", "hello from a file\n");
        scratch.write_home(".orbit/settings.json", r#"{"env": {"SERVE_FOO": "bar"}}"#);
        let mut args = vec!["mcp".to_string(), "serve".to_string()];
        args.extend(serve_args.iter().map(|s| s.to_string()));
        let entry =
            json!({"command": env!("CARGO_BIN_EXE_orbit"), "args": args, "env": {"SERVE_FOO": ""}});
        let server = calls(&[
            (
                "mcp__orbit__Read",
                json!({"file_path": file.display().to_string()}),
            ),
            (
                "mcp__orbit__Bash",
                json!({"command": "echo ran=$SERVE_FOO > ran.txt"}),
            ),
        ]);
        // The client side allows the server's tools; the serving side decides.
        run_with(
            &scratch,
            &server,
            &config(&[("orbit", entry)]),
            &["--allowedTools", "mcp__orbit"],
        );
        let got = results(&server);
        assert_eq!(
            got[0],
            ("1\thello from a file\n2\t".to_string(), false),
            "{serve_args:?}"
        );
        assert_eq!(
            scratch.path().join("ran.txt").exists(),
            bash_runs,
            "{serve_args:?}: {got:?}"
        );
        if bash_runs {
            assert_eq!(
                std::fs::read_to_string(scratch.path().join("ran.txt")).unwrap(),
                "ran=bar\n"
            );
        }
        if !bash_runs {
            assert_eq!(
                got[1],
                (
                    "orbit requested permissions to use Bash, but you haven't granted it yet."
                        .to_string(),
                    true
                )
            );
        }
    }
}
