//! A repository's own `.mcp.json` through the real `orbit` binary: which
//! of its servers start (trusted folder and approval by settings), the
//! `${VAR}` expansion of its entries, and the end of the server's process
//! group with the run. The servers are the Python fixture of `mcp`.

use serde_json::json;

use super::common::{Scratch, run_stream_json_with_env};
use super::mcp::{calls, py_script, python, results};

/// `.mcp.json` comes with the repository: its servers start only in a
/// trusted folder (issue 13) and when approved — by the user's settings, or
/// by the project's own once the folder is trusted; `${VAR}` and
/// `${VAR:-default}` are expanded; the server's process group ends with the
/// run.
#[test]
fn project_servers_start_only_when_trusted_and_approved() {
    let approve_all = r#"{"enableAllProjectMcpServers": true}"#;
    let by_name = r#"{"enabledMcpjsonServers": ["py"]}"#;
    // (case, trusted, --settings, project settings, starts)
    type Case<'a> = (&'a str, bool, Option<&'a str>, Option<&'a str>, bool);
    let cases: [Case; 6] = [
        (
            "untrusted, approved by name",
            false,
            Some(by_name),
            None,
            false,
        ),
        (
            "untrusted, the project approves itself",
            false,
            None,
            Some(approve_all),
            false,
        ),
        ("no approval", true, None, None, false),
        (
            "the project approves itself",
            true,
            None,
            Some(approve_all),
            true,
        ),
        ("approved by name", true, Some(by_name), None, true),
        (
            "approved, then disabled",
            true,
            Some(r#"{"enableAllProjectMcpServers": true, "disabledMcpjsonServers": ["py"]}"#),
            None,
            false,
        ),
    ];
    for (case, trusted, flag_settings, project_settings, starts) in cases {
        let scratch = Scratch::new();
        let pidfile = scratch.path().join("server.pid");
        scratch.write(
            ".mcp.json",
            &json!({"mcpServers": {"py": {
                "command": "${ORBIT_TEST_PYTHON}",
                "args": ["${ORBIT_TEST_SCRIPT}", "${TRANSPORT:-stdio}"],
                "env": {"PY_MCP_PIDFILE": pidfile.display().to_string()}
            }}})
            .to_string(),
        );
        if let Some(settings) = project_settings {
            std::fs::create_dir_all(scratch.path().join(".orbit")).unwrap();
            scratch.write(".orbit/settings.json", settings);
        }
        let server = calls(&[("mcp__py__add", json!({"a": 3, "b": 4}))]);
        let mut env = server.env();
        env.push(("ORBIT_TEST_PYTHON".into(), python()));
        env.push(("ORBIT_TEST_SCRIPT".into(), py_script()));
        let mut args = vec![];
        if let Some(settings) = flag_settings {
            args.extend(["--settings", settings]);
        }
        if trusted {
            args.push("--trust-project");
        }
        let out = run_stream_json_with_env(&scratch, &env, "add", &args);
        assert_eq!(out.code, 0, "{case}: {}", out.stderr);
        assert_eq!(
            out.stderr.contains("is not a trusted folder")
                && out.stderr.contains("its MCP servers (")
                && out.stderr.contains(".mcp.json"),
            !trusted,
            "{case}: {}",
            out.stderr
        );
        let got = results(&server);
        if starts {
            assert_eq!(got, [("3+4=7".to_string(), false)], "{case}");
            assert!(
                !out.stderr.contains("not approved"),
                "{case}: {}",
                out.stderr
            );
            // The group is signalled as the run ends; a Python server
            // takes a moment to exit, so it gets a bounded grace.
            let pid: i32 = std::fs::read_to_string(&pidfile).unwrap().parse().unwrap();
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
            while !orbit_test_support::process::live_members_of_group(pid).is_empty()
                && std::time::Instant::now() < deadline
            {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            assert!(
                orbit_test_support::process::live_members_of_group(pid).is_empty(),
                "{case}: the server's process group outlived the run by 5 s"
            );
        } else {
            assert_eq!(
                got,
                [(
                    "<tool_use_error>Error: No such tool available: mcp__py__add</tool_use_error>"
                        .to_string(),
                    true
                )],
                "{case}"
            );
            assert!(!pidfile.exists(), "{case}: an unapproved server started");
            let disabled = case.contains("disabled");
            assert_eq!(
                trusted && !disabled,
                out.stderr
                    .contains("not starting MCP servers of .mcp.json that were not approved: py."),
                "{case}: {}",
                out.stderr
            );
        }
    }
}
