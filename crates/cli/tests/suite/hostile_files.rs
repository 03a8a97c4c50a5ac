//! A hostile repository's files (issue 29, classes 1 and 2): instruction
//! and settings files that are FIFOs, links to `/dev/zero`, links out of
//! the project or 100 MB files. orbit reads them through `orbit_untrusted`:
//! it starts at once, never sends a linked-out secret, warns once per file
//! and stays small. Each run is watched from outside: the fake server sees
//! the first request, `/proc/<pid>/status` gives the peak RSS.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use orbit_test_support::{FakeAnthropic, Reply, body};

use super::common::{
    Scratch, assert_no_failures, drain, lines_with, orbit_process, spawn_headless, wait_within,
};

/// The acceptance: the first request reaches the server within this.
const START_LIMIT: Duration = Duration::from_secs(2);
/// The acceptance: peak RSS stays under this.
const PEAK_RSS_LIMIT_KIB: u64 = 50 * 1024;
/// A finished run (FIFO cases) ends within this.
const EXIT_LIMIT: Duration = Duration::from_secs(10);
/// The sparse file's size.
const BIG_FILE_BYTES: u64 = 100 * 1024 * 1024;

/// Every file orbit reads from a project directory.
const PROJECT_FILES: &[&str] = &[
    "CLAUDE.md",
    "AGENTS.md",
    "CLAUDE.local.md",
    ".claude/CLAUDE.md",
    ".claude/rules/style.md",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".orbit/settings.json",
    ".orbit/settings.local.json",
    ".mcp.json",
    ".claude/commands/review.md",
    ".orbit/commands/review.md",
];

/// What a project file is replaced by.
#[derive(Clone, Copy, Debug)]
enum Hostile {
    Fifo,
    DevZero,
    LinkOut,
    Big,
}

/// Makes `rel` in `project` a `kind`; `outside` is a file out of it.
fn plant(project: &Path, rel: &str, kind: Hostile, outside: &Path) {
    let path = project.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    match kind {
        Hostile::Fifo => {
            orbit_test_support::files::mkfifo(&path);
        }
        Hostile::DevZero => symlink("/dev/zero", &path).unwrap(),
        Hostile::LinkOut => symlink(outside, &path).unwrap(),
        Hostile::Big => std::fs::File::create(&path)
            .unwrap()
            .set_len(BIG_FILE_BYTES)
            .unwrap(),
    }
}

/// `orbit -p hi` in the scratch project with `extra` flags, stderr piped.
fn spawn(scratch: &Scratch, server: &FakeAnthropic, extra: &[&str]) -> Child {
    spawn_headless(
        orbit_process(scratch, &server.env())
            .args(["-p", "hi"])
            .args(extra),
        Stdio::null(),
    )
}

/// A `Vm…:` value of `/proc/<pid>/status`, in KiB.
fn vm_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// What a watched start showed.
struct Start {
    waited: Duration,
    peak_rss_kib: u64,
    stderr: String,
}

/// Starts orbit against a server that never answers and waits for its
/// first request; kills it early when its RSS passes the limit (an old
/// build reading `/dev/zero` would otherwise take the machine's memory).
fn watch_start(scratch: &Scratch, extra: &[&str]) -> Result<Start, String> {
    let server = FakeAnthropic::start(vec![Reply::hang()]);
    let mut child = spawn(scratch, &server, extra);
    let pid = child.id();
    let started = Instant::now();
    let mut peak = 0;
    let outcome = loop {
        peak = peak.max(vm_kib(pid, "VmHWM:").unwrap_or(0));
        if server.request_count() > 0 {
            break Ok(started.elapsed());
        }
        if peak > PEAK_RSS_LIMIT_KIB {
            break Err(format!("peak RSS {peak} KiB before the first request"));
        }
        if let Some(status) = child.try_wait().unwrap() {
            break Err(format!("exited ({status}) before the first request"));
        }
        if started.elapsed() > START_LIMIT {
            break Err(format!("no request within {START_LIMIT:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    peak = peak.max(vm_kib(pid, "VmHWM:").unwrap_or(0));
    let _ = child.kill();
    let _ = child.wait();
    let stderr = drain(child.stderr.take());
    match outcome {
        Ok(waited) => Ok(Start {
            waited,
            peak_rss_kib: peak,
            stderr,
        }),
        Err(why) => Err(format!("{why}; stderr: {stderr}")),
    }
}

/// Runs `orbit -p hi` to its end against a server answering "ok"; the
/// first request's system prompt and stderr.
fn run_to_end(scratch: &Scratch, extra: &[&str]) -> (String, String) {
    let server = FakeAnthropic::start(vec![Reply::text("ok")]);
    let mut child = spawn(scratch, &server, extra);
    let status = wait_within(&mut child, EXIT_LIMIT);
    let stderr = drain(child.stderr.take());
    assert!(status.success(), "{status}; stderr: {stderr}");
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "stderr: {stderr}");
    (body::system_text(&requests[0].body), stderr)
}

/// A fake secret at `home/rel`, returned with its path.
fn secret(home: &Path, rel: &str, text: &str) -> PathBuf {
    orbit_test_support::files::put(home, rel, text)
}

#[test]
fn an_instruction_file_linked_out_of_an_untrusted_project_is_not_sent() {
    let scratch = Scratch::new();
    let key = secret(&scratch.home(), ".ssh/id_rsa", "FAKE-PRIVATE-KEY-29");
    let notes = secret(&scratch.home(), "notes.txt", "FAKE-NOTES-29");
    symlink(&key, scratch.path().join("CLAUDE.md")).unwrap();
    symlink(&notes, scratch.path().join("AGENTS.md")).unwrap();
    let (system, stderr) = run_to_end(&scratch, &[]);
    assert!(!system.contains("FAKE-PRIVATE-KEY-29"), "{system}");
    assert!(!system.contains("FAKE-NOTES-29"), "{system}");
    for name in ["CLAUDE.md", "AGENTS.md"] {
        let lines = lines_with(&stderr, &format!("skipped {name}"));
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(lines[0].contains("outside the project"), "{stderr}");
    }
}

#[test]
fn a_trusted_project_follows_links_out_but_never_to_denied_files() {
    let scratch = Scratch::new();
    // The sandbox's built-in deny list (~/.ssh) and a Read deny rule
    // from the user's settings both hold for a trusted folder too.
    let key = secret(&scratch.home(), ".ssh/id_rsa", "FAKE-PRIVATE-KEY-29");
    let private = secret(&scratch.home(), "private/plan.md", "FAKE-PRIVATE-PLAN-29");
    let shared = secret(&scratch.home(), "shared/rules.md", "SHARED-RULES-29");
    secret(
        &scratch.home(),
        ".orbit/settings.json",
        r#"{"permissions": {"deny": ["Read(~/private/**)"]}}"#,
    );
    symlink(&key, scratch.path().join("CLAUDE.md")).unwrap();
    symlink(&private, scratch.path().join("AGENTS.md")).unwrap();
    let (system, stderr) = run_to_end(&scratch, &["--trust-project"]);
    assert!(!system.contains("FAKE-PRIVATE-KEY-29"), "{system}");
    assert!(!system.contains("FAKE-PRIVATE-PLAN-29"), "{system}");
    assert!(stderr.contains("skipped CLAUDE.md: "), "{stderr}");
    assert!(stderr.contains("is denied for reading"), "{stderr}");

    std::fs::remove_file(scratch.path().join("AGENTS.md")).unwrap();
    symlink(&shared, scratch.path().join("AGENTS.md")).unwrap();
    let (system, _) = run_to_end(&scratch, &["--trust-project"]);
    assert!(system.contains("SHARED-RULES-29"), "{system}");
}

#[test]
fn a_claude_md_link_to_agents_md_inside_the_project_still_loads() {
    let scratch = Scratch::new();
    scratch.write("AGENTS.md", "Run make check before finishing.\n");
    symlink("AGENTS.md", scratch.path().join("CLAUDE.md")).unwrap();
    let (system, stderr) = run_to_end(&scratch, &[]);
    assert!(
        system.contains("# CLAUDE.md (project instructions")
            && system.contains("Run make check before finishing."),
        "{system}"
    );
    assert!(!stderr.contains("skipped"), "{stderr}");
}

#[test]
fn fifo_and_dev_zero_instruction_and_settings_files_do_not_stop_orbit() {
    let cases = [
        ("CLAUDE.md", Hostile::Fifo),
        ("CLAUDE.md", Hostile::DevZero),
        (".claude/settings.json", Hostile::Fifo),
        (".claude/settings.json", Hostile::DevZero),
    ];
    let mut failures = Vec::new();
    for (rel, kind) in cases {
        let scratch = Scratch::new();
        plant(&scratch.path(), rel, kind, Path::new("/nonexistent"));
        // Watched first, so a hang or a runaway read is stopped early.
        if let Err(why) = watch_start(&scratch, &[]) {
            failures.push(format!("{rel} as {kind:?}: {why}"));
            continue;
        }
        let (_, stderr) = run_to_end(&scratch, &[]);
        let warnings = lines_with(&stderr, rel).len();
        if warnings != 1 {
            failures.push(format!("{rel} as {kind:?}: {warnings} warnings: {stderr}"));
        }
    }
    assert_no_failures(&failures, cases.len());
}

/// The acceptance's fuzz test: every project file replaced in turn by a
/// FIFO, `/dev/zero`, a link out and a 100 MB file, in an untrusted and a
/// trusted folder.
#[test]
fn every_project_file_replaced_by_a_hostile_one_still_starts_fast_and_small() {
    let kinds = [
        Hostile::Fifo,
        Hostile::DevZero,
        Hostile::LinkOut,
        Hostile::Big,
    ];
    let mut failures = Vec::new();
    let mut cases = 0;
    for trust in [&[][..], &["--trust-project"][..]] {
        for rel in PROJECT_FILES {
            for kind in kinds {
                cases += 1;
                let scratch = Scratch::new();
                // Valid JSON too: a trusted folder follows a `.mcp.json`
                // link out, and a broken `.mcp.json` there is an error.
                let outside = secret(&scratch.home(), "outside.txt", r#"{"mcpServers": {}}"#);
                plant(&scratch.path(), rel, kind, &outside);
                let label = format!("{rel} as {kind:?} {trust:?}");
                match watch_start(&scratch, trust) {
                    Err(why) => failures.push(format!("{label}: {why}")),
                    Ok(start) => {
                        let warnings = lines_with(&start.stderr, rel).len();
                        if warnings > 1 {
                            failures
                                .push(format!("{label}: {warnings} warnings: {}", start.stderr));
                        }
                        if start.peak_rss_kib > PEAK_RSS_LIMIT_KIB {
                            failures.push(format!("{label}: peak RSS {} KiB", start.peak_rss_kib));
                        }
                        if start.waited > START_LIMIT {
                            failures
                                .push(format!("{label}: first request after {:?}", start.waited));
                        }
                    }
                }
            }
        }
    }
    assert_no_failures(&failures, cases);
}
