//! Issue 29, classes 3 and 4: orbit's own files out of the commands' reach,
//! through the real `orbit` binary against the fake Anthropic server.
//!
//! - The Bash cwd report: a command looks for the file orbit would read its
//!   final directory back from (named in `$BASH_EXECUTION_STRING`, or in
//!   the temp dir) and swaps it for a FIFO or a link to `/dev/zero`; orbit
//!   must still finish the run quickly, with bounded memory, and `cd` must
//!   still carry over to the next call (also inside the sandbox).
//! - Persisted tool results: a sandboxed command replaces
//!   `<session dir>/tool-results` with a link to a directory outside every
//!   writable root; the next large result must not land there.
//!
//! Paths that must stay outside the sandbox's writable roots live under
//! `$HOME/.cache/orbit-own-files-tests/<id>` (not the temp dir, which every
//! sandbox mode may write), as in `security_sandbox`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::json;

use super::common::{CacheDir, Outcome, bash_inputs_then_done, call_results, orbit_at, run};

/// A run that hangs on the report would pass this; a healthy one takes
/// well under it.
const RUN_LIMIT: Duration = Duration::from_secs(30);
/// Address space orbit gets in the `/dev/zero` case (KiB): a safety net
/// far above a normal run (threads' reserved stacks and arenas included),
/// so that an unbounded read stops at a few GiB instead of the machine's
/// memory.
const ADDRESS_SPACE_LIMIT_KIB: u64 = 4 * 1024 * 1024;
/// Peak resident memory orbit may reach in the `/dev/zero` case (KiB): a
/// debug build's normal run stays far below it.
const PEAK_RSS_LIMIT_KIB: u64 = 128 * 1024;
/// Runs `ARGV` under an address-space limit (argv[1], KiB) and prints the
/// child's peak RSS (KiB) as the last stderr line.
const PEAK_RSS_WRAPPER_PY: &str = r#"
import resource, subprocess, sys
limit = int(sys.argv[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
code = subprocess.run(sys.argv[2:]).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"orbit-peak-rss-kib={peak}", file=sys.stderr)
sys.exit(code)
"#;

/// A workspace, a home and a directory outside every writable root.
struct World {
    base: CacheDir,
}

impl World {
    fn new() -> Self {
        let base = CacheDir::new("orbit-own-files-tests");
        for dir in ["ws/sub", "home", "outside"] {
            std::fs::create_dir_all(base.join(dir)).unwrap();
        }
        Self { base }
    }
    fn ws(&self) -> PathBuf {
        self.base.join("ws")
    }
    fn home(&self) -> PathBuf {
        self.base.join("home")
    }
    fn outside(&self) -> PathBuf {
        self.base.join("outside")
    }
}

/// What a run of Bash calls gave.
struct Calls {
    out: Outcome,
    /// The tool_result texts the model received, one per call.
    said: Vec<String>,
    took: Duration,
}

/// One Bash call per command in consecutive turns, then "done"; `flags`
/// after `-p go --output-format stream-json`; `wrap` turns the orbit
/// command into the one to run (e.g. under a memory limit).
fn run_calls(
    world: &World,
    commands: &[&str],
    flags: &[&str],
    wrap: impl FnOnce(&Path, Vec<String>) -> Command,
) -> Calls {
    let server = bash_inputs_then_done(commands.iter().map(|c| json!({ "command": c })));
    let mut args: Vec<String> = ["-p", "go", "--output-format", "stream-json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(flags.iter().map(|s| s.to_string()));
    let mut cmd = wrap(&world.ws(), args);
    for (k, v) in server.env() {
        cmd.env(k, v);
    }
    cmd.timeout(RUN_LIMIT);
    let started = Instant::now();
    let out = run(cmd);
    let took = started.elapsed();
    let said = call_results(&server);
    Calls { out, said, took }
}

/// `orbit ARGS` in the world's workspace with its clean environment.
fn plain(world: &World) -> impl FnOnce(&Path, Vec<String>) -> Command {
    let home = world.home();
    move |ws, args| {
        let mut cmd = orbit_at(ws, &home, &[]);
        cmd.args(args);
        cmd
    }
}

/// Every call allowed by the permission gate, no sandbox: the command
/// (the attacker here) runs as orbit's user.
const UNSANDBOXED: &[&str] = &["--permission-mode", "bypassPermissions"];
/// Every call allowed by the permission gate, the default sandbox.
const SANDBOXED: &[&str] = &[
    "--permission-mode",
    "bypassPermissions",
    "--sandbox",
    "workspace-write",
];

/// The attacker's search for orbit's cwd-report file: every absolute path
/// quoted in the first line of the script bash runs (where orbit's trap
/// is) that is not a device, and every `orbit-bash-cwd-*` in the temp dir.
/// Each is replaced by `$1` (a shell snippet using `$f`); the EXIT trap is
/// dropped so the shell itself does not stumble on the FIFO.
fn swap_report_file(replace: &str) -> String {
    format!(
        r#"targets=$( {{ printf '%s\n' "${{BASH_EXECUTION_STRING%%$'\n'*}}" | grep -o "/[^' ]*" | grep -v '^/dev/'; ls -d "${{TMPDIR:-/tmp}}"/orbit-bash-cwd-* 2>/dev/null; }} | sort -u )
for f in $targets; do rm -f "$f"; {replace}; done
echo "swapped: $(echo $targets | wc -w)"; trap - EXIT; cd sub"#
    )
}

/// The command swaps its cwd report for a FIFO nobody writes: orbit used
/// to block forever opening it after the call.
#[test]
fn a_fifo_for_the_cwd_report_does_not_hang_orbit() {
    let world = World::new();
    let attack = swap_report_file(r#"mkfifo "$f""#);
    let calls = run_calls(&world, &[&attack, "pwd"], UNSANDBOXED, plain(&world));
    assert_eq!(
        calls.out.code, 0,
        "took {:?}: {}",
        calls.took, calls.out.stderr
    );
    assert!(
        calls.took < Duration::from_secs(15),
        "took {:?}",
        calls.took
    );
    assert!(calls.said[0].contains("swapped:"), "{:?}", calls.said);
    assert_eq!(calls.said.len(), 2, "{:?}", calls.said);
}

/// The command swaps its cwd report for a link to `/dev/zero`: orbit used
/// to read it into memory without end (here: until the address-space
/// limit, GiBs). orbit's peak RSS is measured by a wrapper process.
#[test]
fn a_dev_zero_cwd_report_is_not_read_into_memory() {
    let world = World::new();
    let attack = swap_report_file(r#"ln -s /dev/zero "$f""#);
    let home = world.home();
    let measured = move |ws: &Path, args: Vec<String>| {
        let mut cmd = Command::new("python3");
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &home)
            .env("ORBIT_HOME", home.join(".orbit"))
            .current_dir(ws)
            .args(["-c", PEAK_RSS_WRAPPER_PY])
            .arg(ADDRESS_SPACE_LIMIT_KIB.to_string())
            .arg(env!("CARGO_BIN_EXE_orbit"))
            .args(args);
        cmd
    };
    let calls = run_calls(&world, &[&attack, "pwd"], UNSANDBOXED, measured);
    assert_eq!(
        calls.out.code, 0,
        "took {:?}: {}",
        calls.took, calls.out.stderr
    );
    assert!(calls.said[0].contains("swapped:"), "{:?}", calls.said);
    assert_eq!(calls.said.len(), 2, "{:?}", calls.said);
    let peak_kib: u64 = calls
        .out
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("orbit-peak-rss-kib="))
        .next_back()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak RSS line: {}", calls.out.stderr));
    assert!(
        peak_kib < PEAK_RSS_LIMIT_KIB,
        "orbit's peak RSS {peak_kib} KiB (limit {PEAK_RSS_LIMIT_KIB} KiB)"
    );
    assert!(
        calls.took < Duration::from_secs(15),
        "took {:?}",
        calls.took
    );
}

/// `cd` carries over to the next call, unsandboxed and in the sandbox
/// (where the report has to pass through `orbit sandbox`).
#[test]
fn cd_still_carries_over_to_the_next_call() {
    for flags in [UNSANDBOXED, SANDBOXED] {
        let world = World::new();
        let calls = run_calls(&world, &["cd sub", "pwd"], flags, plain(&world));
        assert_eq!(calls.out.code, 0, "{flags:?}: {}", calls.out.stderr);
        let sub = world.ws().canonicalize().unwrap().join("sub");
        assert_eq!(calls.said[1].trim(), sub.display().to_string(), "{flags:?}");
    }
}

/// orbit's data dir in [`a_linked_tool_results_dir_gets_no_result`].
fn data_dir_of(world: &World, in_workspace: bool) -> PathBuf {
    if in_workspace {
        world.ws().join(".orbit-data")
    } else {
        world.home().join(".orbit")
    }
}

/// The attacker's move on the result storage: for every session of the
/// data dir (found by its transcript), make the session dir if needed and
/// put a link to `outside` where `tool-results` goes.
fn link_tool_results(outside: &Path) -> String {
    format!(
        "for t in \"$ORBIT_HOME\"/projects/*/*.jsonl; do s=\"${{t%.jsonl}}\"; mkdir -p \"$s\" && rm -rf \"$s/tool-results\" && ln -s {} \"$s/tool-results\" && echo linked; done; echo tried",
        outside.display()
    )
}

/// A sandboxed command replaces `<session dir>/tool-results` with a link to
/// a directory outside every writable root; the next call prints more than
/// Bash's 30,000-char limit. orbit used to follow the link and save the
/// result there (the session dir was a writable root). Two layouts: the
/// default data dir (the session dir is out of the sandbox's reach now, so
/// the link cannot even be made), and a data dir inside the workspace
/// (`ORBIT_HOME=<ws>/.orbit-data`: the link is made, and only the result
/// storage's refusal to follow it keeps the result in). Either way nothing
/// lands outside and the model gets the output inline.
#[test]
fn a_linked_tool_results_dir_gets_no_result() {
    for data_in_workspace in [false, true] {
        let world = World::new();
        let outside = world.outside();
        let attack = link_tool_results(&outside);
        let home = world.home();
        let data_dir = data_dir_of(&world, data_in_workspace);
        let wrap = move |ws: &Path, args: Vec<String>| {
            let mut cmd = orbit_at(ws, &home, &[]);
            cmd.env("ORBIT_HOME", &data_dir).args(args);
            cmd
        };
        let calls = run_calls(&world, &[&attack, "seq 1 40000"], SANDBOXED, wrap);
        let case = format!("data dir in the workspace: {data_in_workspace}");
        assert_eq!(calls.out.code, 0, "{case}: {}", calls.out.stderr);
        assert!(
            calls.said[0].contains("tried"),
            "{case}: {:?}",
            calls.said[0]
        );
        if data_in_workspace {
            assert!(
                calls.said[0].contains("linked"),
                "{case}: {:?}",
                calls.said[0]
            );
        }
        let landed: Vec<_> = std::fs::read_dir(&outside)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(landed.is_empty(), "{case}: written outside: {landed:?}");
        // Inline, or saved where the data dir really is.
        let second = &calls.said[1];
        let head = &second[..second.len().min(300)];
        match second.split_once("Full output saved to: ") {
            Some((_, rest)) => {
                let saved = PathBuf::from(rest.lines().next().unwrap());
                let real = saved.canonicalize().unwrap();
                let data = data_dir_of(&world, data_in_workspace)
                    .canonicalize()
                    .unwrap();
                assert!(
                    real.starts_with(&data),
                    "{case}: saved at {}",
                    real.display()
                );
                assert!(std::fs::read_to_string(&real).unwrap().ends_with("40000\n"));
            }
            None => assert!(
                second.starts_with("1\n2\n3\n") && second.trim_end().ends_with("40000"),
                "{case}: {head}"
            ),
        }
    }
}
