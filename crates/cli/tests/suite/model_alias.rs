//! Issue 9, item 18: `--model sonnet|opus|haiku` (and `ANTHROPIC_MODEL`)
//! resolve to current model ids for the Anthropic provider; `-v` prints the
//! version like `--version`.

use orbit_test_support::{FakeAnthropic, Reply};

use super::common::{Scratch, orbit, orbit_with_env, run};

#[test]
fn model_aliases_resolve_to_model_ids_in_the_request() {
    let cases: [(&[&str], Option<&str>, &str); 6] = [
        // Claude Code 2.1.332's ids for its aliases.
        (&["--model", "sonnet"], None, "claude-sonnet-5-5"),
        (&["--model", "opus"], None, "claude-opus-5-5"),
        (&["--model", "haiku"], None, "claude-haiku-5-5"),
        (&[], Some("haiku"), "claude-haiku-5-5"),
        (&[], Some("opus"), "claude-opus-5-5"),
        // Full ids pass through unchanged.
        (
            &["--model", "claude-3-5-haiku-20241022"],
            None,
            "claude-3-5-haiku-20241022",
        ),
    ];
    for (args, env_model, want) in cases {
        let scratch = Scratch::new();
        let server = FakeAnthropic::start(vec![Reply::text("ok")]);
        let mut cmd = orbit(&scratch, &server);
        if let Some(model) = env_model {
            cmd.env("ANTHROPIC_MODEL", model);
        }
        cmd.args(["-p", "hi", "--output-format", "stream-json"])
            .args(args);
        let out = run(cmd);
        assert_eq!(out.code, 0, "{args:?} {env_model:?}: {}", out.stderr);
        assert_eq!(
            server.requests()[0].body["model"],
            want,
            "{args:?} {env_model:?}"
        );
        assert_eq!(out.lines()[0]["model"], want, "init line");
    }
}

#[test]
fn short_v_prints_the_version_like_long_version() {
    let scratch = Scratch::new();
    let version = |flag: &str| {
        let mut cmd = orbit_with_env(&scratch, &[]);
        cmd.arg(flag);
        let out = run(cmd);
        assert_eq!(out.code, 0, "{flag}: {}", out.stderr);
        out.stdout
    };
    let long = version("--version");
    assert!(long.starts_with("orbit "), "{long}");
    assert_eq!(version("-v"), long);
    assert_eq!(version("-V"), long);
}
