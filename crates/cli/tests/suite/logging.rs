//! Issue 9, item 19: `tracing` output reaches the user. By default warnings
//! only, one `orbit: warning: …` line each on stderr; `-d` adds debug lines;
//! `--debug-file PATH` sends them to the file instead of stderr; `ORBIT_LOG`
//! takes an env-filter.

use orbit_test_support::{FakeAnthropic, Reply};

use super::common::{Outcome, Scratch, lines_with, orbit, run};

/// An env value orbit cannot parse (the engine warns and uses its default).
const BAD_ENV: (&str, &str) = ("ORBIT_TOOL_RESULT_BUDGET_CHARS", "lots");

fn run_with(scratch: &Scratch, args: &[&str], env: &[(&str, &str)]) -> (Outcome, FakeAnthropic) {
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let mut cmd = orbit(scratch, &server);
    cmd.args(["-p", "hi"]).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    (run(cmd), server)
}

fn debug_lines(text: &str) -> usize {
    lines_with(text, " DEBUG ").len()
}

#[test]
fn a_bad_env_value_prints_one_warning_line_by_default() {
    let scratch = Scratch::new();
    let (out, _server) = run_with(&scratch, &[], &[BAD_ENV]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(out.stdout, "ok\n");
    assert_eq!(out.stderr.lines().count(), 1, "stderr: {}", out.stderr);
    assert!(
        out.stderr.starts_with("orbit: warning: ") && out.stderr.contains(BAD_ENV.0),
        "{}",
        out.stderr
    );
}

#[test]
fn debug_flag_adds_debug_lines_on_stderr() {
    for flag in ["-d", "--debug"] {
        let scratch = Scratch::new();
        let (out, _server) = run_with(&scratch, &[flag], &[]);
        assert_eq!(out.code, 0, "{flag}: {}", out.stderr);
        assert_eq!(out.stdout, "ok\n", "{flag}: logs stay off stdout");
        assert!(debug_lines(&out.stderr) >= 2, "{flag}: {}", out.stderr);
    }
    // Without it: nothing.
    let scratch = Scratch::new();
    let (out, _server) = run_with(&scratch, &[], &[]);
    assert_eq!(out.stderr, "");
}

#[test]
fn debug_file_gets_the_log_and_stderr_stays_quiet() {
    let scratch = Scratch::new();
    let log = scratch.path().join("orbit-debug.log");
    let log_arg = log.display().to_string();
    let (out, _server) = run_with(&scratch, &["--debug-file", &log_arg], &[BAD_ENV]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(out.stdout, "ok\n");
    assert_eq!(out.stderr, "", "log lines went to stderr");
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(debug_lines(&written) >= 2, "{written}");
    assert!(
        written.contains(BAD_ENV.0),
        "warnings go there too: {written}"
    );
}

#[test]
fn orbit_log_sets_the_filter() {
    let scratch = Scratch::new();
    // Debug lines without -d.
    let (out, _server) = run_with(&scratch, &[], &[("ORBIT_LOG", "orbit=debug")]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert!(debug_lines(&out.stderr) >= 2, "{}", out.stderr);
    // A filter above warn silences the warning.
    let (out, _server) = run_with(&scratch, &[], &[("ORBIT_LOG", "error"), BAD_ENV]);
    assert_eq!(out.stderr, "");
    // An invalid filter is reported once and the default applies.
    let (out, _server) = run_with(&scratch, &[], &[("ORBIT_LOG", "orbit=loudest")]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "stderr: {}", out.stderr);
    assert!(
        out.stderr
            .starts_with("orbit: warning: ignoring invalid ORBIT_LOG"),
        "{}",
        out.stderr
    );
}
