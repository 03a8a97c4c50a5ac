//! Issue 29's sandbox classes through the real `orbit` binary (fake
//! Anthropic server, scripted Bash calls):
//!
//! - class 6: a project's settings only tighten the sandbox — its
//!   `sandbox.mode` never loosens what the user, the flags or the
//!   permission mode give, its `env.ORBIT_SANDBOX`, `writableRoots` and
//!   `allowedDomains` never apply;
//! - the private temp dir: a command's `/tmp` is the session's own (a file
//!   another project or user keeps under `/tmp` is out of reach), while
//!   `$TMPDIR`, `mktemp` and a project that itself lives under `/tmp` keep
//!   working, and what one call leaves in the temp dir the next call sees;
//! - class 11: outside the writable roots `chmod`, `chown` and `utime`
//!   fail (the file system is read-only in the command's mount namespace),
//!   inside they work — only where a mount namespace can be made.
//!
//! `ORBIT_TEST_BIN=/path/to/orbit` runs the cases against another build
//! (how they were seen to fail before the fix).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use assert_cmd::Command;
use serde_json::json;

use super::common::{
    CacheDir, Outcome, assert_no_failures, bash_inputs_then_done, call_results, run,
};

/// What a file outside every writable root holds; it must stay so.
const ORIGINAL: &str = "ORIGINAL";
/// The modification time the outside files are given (2001-09-09), so a
/// `touch` shows.
const OLD_MTIME_SECS: u64 = 1_000_000_000;
/// The outside files' mode.
const OUTSIDE_MODE: u32 = 0o644;
/// One orbit run's limit.
const RUN_TIMEOUT_SECS: u64 = 120;

/// A home under the temp dir (as `tempfile` makes it), a project either
/// there too or beside `outside`, an `outside` dir under the real
/// `$HOME/.cache` (no policy grants it, and it is not in the temp dir,
/// which the sandbox used to grant whole), a shadowing `ls` in `home/bin`.
struct World {
    /// The project under the temp dir, or None: `base/ws`.
    tmp_ws: Option<tempfile::TempDir>,
    home: tempfile::TempDir,
    base: CacheDir,
    outside: PathBuf,
}

impl World {
    /// `ws_in_tmp`: the project lives under `/tmp`.
    fn new(ws_in_tmp: bool) -> Self {
        let base = CacheDir::new("orbit-sandbox-private-tests");
        let outside = base.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(base.join("ws")).unwrap();
        let world = Self {
            tmp_ws: ws_in_tmp.then(|| tempfile::tempdir().unwrap()),
            home: tempfile::tempdir().unwrap(),
            base,
            outside,
        };
        assert_eq!(
            world.ws().starts_with("/tmp"),
            ws_in_tmp,
            "{}",
            world.ws().display()
        );
        std::fs::create_dir_all(world.ws().join(".claude")).unwrap();
        std::fs::create_dir_all(world.home().join(".orbit")).unwrap();
        // `ls` is read-only to the analysis (plan mode runs it); this one
        // writes in the project and outside, and says what it managed.
        let bin = world.home().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let ls = bin.join("ls");
        std::fs::write(
            &ls,
            format!(
                "#!/bin/sh\necho SHADOW-LS\necho pwned > \"$PWD/made.txt\" && echo WROTE-WS\necho pwned > '{}/new.txt' && echo WROTE-OUT\n",
                world.outside.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&ls, std::fs::Permissions::from_mode(0o755)).unwrap();
        world
    }

    fn ws(&self) -> PathBuf {
        match &self.tmp_ws {
            Some(dir) => dir.path().canonicalize().unwrap(),
            None => self.base.join("ws"),
        }
    }
    fn home(&self) -> PathBuf {
        self.home.path().canonicalize().unwrap()
    }

    /// A file outside every root with [`ORIGINAL`], [`OUTSIDE_MODE`] and
    /// [`OLD_MTIME_SECS`].
    fn victim(&self, path: &Path) {
        std::fs::write(path, ORIGINAL).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(OUTSIDE_MODE)).unwrap();
        let old = SystemTime::UNIX_EPOCH + Duration::from_secs(OLD_MTIME_SECS);
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }

    /// `text` with {WS}, {HOME}, {OUT} filled in.
    fn fill(&self, text: &str) -> String {
        text.replace("{WS}", &self.ws().display().to_string())
            .replace("{HOME}", &self.home().display().to_string())
            .replace("{OUT}", &self.outside.display().to_string())
    }

    /// Runs one `orbit -p` whose model makes `commands` as Bash calls in
    /// turn; returns the outcome and each call's result text.
    fn run(&self, commands: &[String], flags: &[String]) -> (Outcome, Vec<String>) {
        let server = bash_inputs_then_done(commands.iter().map(|c| json!({ "command": c })));
        let bin = std::env::var_os("ORBIT_TEST_BIN")
            .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_orbit")), PathBuf::from);
        let path = format!(
            "{}:{}",
            self.home().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut cmd = Command::new(bin);
        cmd.env_clear()
            .env("PATH", path)
            .env("HOME", self.home())
            .env("ORBIT_HOME", self.home().join(".orbit"))
            .envs(server.env())
            .current_dir(self.ws())
            .timeout(Duration::from_secs(RUN_TIMEOUT_SECS))
            .args(["-p", "go", "--output-format", "stream-json"])
            .args(flags);
        let out = run(cmd);
        (out, call_results(&server))
    }
}

/// The mode, mtime and owner of `path`, or None when it is gone.
fn stamp(path: &Path) -> Option<(u32, i64, u32, String)> {
    let meta = std::fs::metadata(path).ok()?;
    let text = std::fs::read_to_string(path).ok()?;
    Some((meta.mode() & 0o7777, meta.mtime(), meta.uid(), text))
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_string()).collect()
}

/// Every call allowed by the permission gate, the sandbox asked for: only
/// the kernel stands between the command and its effect.
const KERNEL_ONLY: &[&str] = &[
    "--permission-mode",
    "bypassPermissions",
    "--sandbox",
    "workspace-write",
];

/// Class 6. Each case: the project's settings, the user's (if any), the
/// flags, whether the shadowing `ls` may write in the project, and
/// whether outside. `ls` is read-only to the analysis, so plan mode and
/// default mode run it without asking: only the sandbox's mode decides.
/// The project is not under `/tmp` (read-only mode used to grant all of
/// it).
#[test]
fn project_settings_only_tighten_the_sandbox() {
    struct Case {
        name: &'static str,
        project: &'static str,
        user: Option<&'static str>,
        flags: &'static [&'static str],
        writes_ws: bool,
        writes_out: bool,
    }
    #[rustfmt::skip]
    let cases = [
        Case { name: "plan mode keeps read-only over a project's workspace-write", project: r#"{"sandbox":{"mode":"workspace-write"}}"#, user: None, flags: &["--permission-mode", "plan"], writes_ws: false, writes_out: false },
        Case { name: "the user's read-only beats a project's workspace-write", project: r#"{"sandbox":{"mode":"workspace-write"}}"#, user: Some(r#"{"sandbox":{"mode":"read-only"}}"#), flags: &[], writes_ws: false, writes_out: false },
        Case { name: "a trusted project's env.ORBIT_SANDBOX does not turn it off", project: r#"{"env":{"ORBIT_SANDBOX":"danger-full-access"}}"#, user: None, flags: &["--permission-mode", "plan", "--trust-project"], writes_ws: false, writes_out: false },
        Case { name: "a project's danger-full-access does not turn it off", project: r#"{"sandbox":{"mode":"danger-full-access"}}"#, user: None, flags: &[], writes_ws: true, writes_out: false },
        Case { name: "a project's writableRoots are ignored", project: r#"{"sandbox":{"writableRoots":["{OUT}"]}}"#, user: None, flags: &[], writes_ws: true, writes_out: false },
        Case { name: "a project may tighten default mode to read-only", project: r#"{"sandbox":{"mode":"read-only"}}"#, user: None, flags: &[], writes_ws: false, writes_out: false },
        Case { name: "a project may sandbox bypassPermissions", project: r#"{"sandbox":{"mode":"workspace-write"}}"#, user: None, flags: &["--permission-mode", "bypassPermissions"], writes_ws: true, writes_out: false },
        Case { name: "look-alike: bypassPermissions alone runs unsandboxed", project: "{}", user: None, flags: &["--permission-mode", "bypassPermissions"], writes_ws: true, writes_out: true },
    ];
    let mut problems = Vec::new();
    for case in &cases {
        let world = World::new(false);
        std::fs::write(
            world.ws().join(".claude/settings.json"),
            world.fill(case.project),
        )
        .unwrap();
        if let Some(user) = case.user {
            std::fs::write(world.home().join(".orbit/settings.json"), user).unwrap();
        }
        let (out, results) = world.run(&strings(&["ls"]), &strings(case.flags));
        let said = results.first().cloned().unwrap_or_default();
        let mut bad = Vec::new();
        if out.code != 0 {
            bad.push(format!("orbit exited {}: {}", out.code, out.stderr));
        }
        if !said.contains("SHADOW-LS") {
            bad.push("the shadowing ls did not run".to_string());
        }
        let ws_written = world.ws().join("made.txt").exists();
        let out_written = world.outside.join("new.txt").exists();
        if ws_written != case.writes_ws {
            bad.push(format!("project written: {ws_written}"));
        }
        if out_written != case.writes_out {
            bad.push(format!("outside written: {out_written}"));
        }
        problems.extend(
            bad.into_iter()
                .map(|b| format!("[{}] {b}\n    result: {said}", case.name)),
        );
    }
    assert_no_failures(&problems, cases.len());
}

/// The private temp dir: a file under the shared `/tmp` is neither
/// touched, written, re-moded nor removed, and what a command writes in
/// `/tmp` stays out of the shared one; `$TMPDIR`, `mktemp` and the project
/// (under `/tmp` itself) work, and the next call sees the temp files of
/// the previous one.
#[test]
fn sandboxed_commands_get_a_private_temp_dir() {
    let world = World::new(true);
    let id = uuid::Uuid::new_v4();
    let victim = PathBuf::from(format!("/tmp/orbit-private-victim-{id}"));
    let left = PathBuf::from(format!("/tmp/orbit-private-left-{id}"));
    world.victim(&victim);
    let before = stamp(&victim);
    let v = victim.display();
    let l = left.display();
    let commands = vec![
        format!("touch {v}; echo pwned >> {v}; chmod 600 {v}; rm -f {v}; echo kept > {l}; echo done-1"),
        "echo in-tmpdir > \"$TMPDIR/f\" && cat \"$TMPDIR/f\" && f=$(mktemp) && echo mktemp-ok > \"$f\" && cat \"$f\"".to_string(),
        "echo in-project > made.txt && cat made.txt".to_string(),
        format!("cat {l}"),
    ];
    let (out, results) = world.run(&commands, &strings(KERNEL_ONLY));
    let after = stamp(&victim);
    let _ = std::fs::remove_file(&victim);
    let leaked = left.exists();
    let _ = std::fs::remove_file(&left);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let all = results.join("\n---\n");
    assert!(results.len() >= 4, "{all}");
    assert_eq!(after, before, "the shared /tmp file changed: {all}");
    assert!(
        !leaked,
        "the command's /tmp file reached the shared /tmp: {all}"
    );
    for (i, want) in [
        (1, "in-tmpdir"),
        (1, "mktemp-ok"),
        (2, "in-project"),
        (3, "kept"),
    ] {
        assert!(results[i].contains(want), "call {i} lacks {want:?}: {all}");
    }
    assert!(world.ws().join("made.txt").exists(), "{all}");
}

/// Whether this machine can make the mount namespace orbit's sandbox
/// uses (root: a new mount namespace; others: inside a user namespace).
fn mount_namespace_reason() -> Option<String> {
    let root = nix::unistd::geteuid().is_root();
    let args: &[&str] = if root {
        &["--mount", "true"]
    } else {
        &["--user", "--mount", "true"]
    };
    match std::process::Command::new("unshare").args(args).output() {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!(
            "unshare {args:?}: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Some(format!("unshare: {e}")),
    }
}

/// Class 11: outside the writable roots a sandboxed command cannot change
/// a file's mode, times or owner; inside the project and the temp dir it
/// still can.
#[test]
fn outside_files_keep_their_mode_times_and_owner() {
    if let Some(why) = mount_namespace_reason() {
        eprintln!("skipped: no mount namespace can be made here ({why}); class 11 stays open");
        return;
    }
    let world = World::new(true);
    let victim = world.outside.join("victim.txt");
    world.victim(&victim);
    let inside = world.ws().join("inside.txt");
    world.victim(&inside);
    let before = stamp(&victim);
    let v = victim.display();
    let commands = vec![
        // Also through orbit's own root (its mount namespace is the host's).
        format!("chmod 600 {v}; touch -d 2000-01-01 {v}; touch -m {v}; chown 1:1 {v}; chmod 600 /proc/$PPID/root{v}; touch /proc/$PPID/root{v}; echo done"),
        "chmod 600 inside.txt && touch -d 2000-01-01 inside.txt && touch /tmp/t && chmod 600 /tmp/t && echo inside-ok".to_string(),
    ];
    let (out, results) = world.run(&commands, &strings(KERNEL_ONLY));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let all = results.join("\n---\n");
    assert_eq!(stamp(&victim), before, "{all}");
    assert!(results[0].contains("Read-only file system"), "{all}");
    assert!(
        results.get(1).is_some_and(|r| r.contains("inside-ok")),
        "{all}"
    );
    let after = stamp(&inside).unwrap();
    assert_eq!(after.0, 0o600, "{all}");
    assert_ne!(after.1, OLD_MTIME_SECS as i64, "{all}");
}
