//! Issue 29's shell and permission classes through the real `orbit`
//! binary against the fake Anthropic server, headless (an ask is a
//! denial): a repository program behind a bare repository (5), an
//! unsandboxed run on an unrelated allow rule (7), deny rules against
//! wrappers and builtins that run their arguments (8), and Read deny rules
//! against git's committed copies (9). Each case lays out a project with a
//! committed secret, a committed bare repository whose config runs
//! `hook.sh` (which creates `PWNED`), and a victim file; the model issues
//! one Bash call; the case asserts the effect did not happen (no `PWNED`,
//! the victim intact, the secret in no tool_result) and that the call was
//! denied — or, for look-alikes, that it ran.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::{Value, json};

use super::common::{
    Outcome, Scratch, assert_no_failures, first_call_results, git_in, orbit_with_env, run,
};

const SECRET: &str = "SECRET-COMMITTED-KEY";
const ENV_SECRET: &str = "ENV-UNTRACKED-SECRET";
const VICTIM: &str = "VICTIM-ORIGINAL";

/// How permissive the run is.
#[derive(Debug, Clone, Copy)]
enum Mode {
    Default,
    Plan,
    AcceptEdits,
    Bypass,
}

impl Mode {
    fn flags(self) -> &'static [&'static str] {
        match self {
            Mode::Default => &[],
            Mode::Plan => &["--permission-mode", "plan"],
            Mode::AcceptEdits => &["--permission-mode", "acceptEdits"],
            Mode::Bypass => &["--dangerously-skip-permissions"],
        }
    }
}

use Mode::*;

/// What must (not) have happened.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// Denied, and `PWNED` (the repository program's mark) does not exist.
    NoProgram,
    /// Denied, and `victim.txt` still exists with its text.
    VictimKept,
    /// Denied, and the committed secret is in no tool_result.
    SecretKept,
    /// Denied with the unsandboxed-run reason.
    NotUnsandboxed,
    /// A look-alike: not denied, and the tool_result contains the text.
    Runs(&'static str),
}

use Expect::*;

struct Case {
    name: &'static str,
    command: &'static str,
    modes: &'static [Mode],
    /// Flags besides the mode's.
    flags: &'static [&'static str],
    /// `dangerouslyDisableSandbox: true` (with `--sandbox workspace-write`).
    unsandboxed: bool,
    expect: Expect,
}

const fn case(
    name: &'static str,
    command: &'static str,
    modes: &'static [Mode],
    flags: &'static [&'static str],
    expect: Expect,
) -> Case {
    Case {
        name,
        command,
        modes,
        flags,
        unsandboxed: false,
        expect,
    }
}

const ALL: &[Mode] = &[Default, Plan, AcceptEdits, Bypass];
const ASKING: &[Mode] = &[Default, Plan, AcceptEdits];
const NO_FLAGS: &[&str] = &[];
const DENY_RM: &[&str] = &["--disallowedTools", "Bash(rm:*)"];
const DENY_RM_ALLOW_ECHO: &[&str] = &[
    "--disallowedTools",
    "Bash(rm:*)",
    "--allowedTools",
    "Bash(echo:*)",
];
const DENY_SECRETS: &[&str] = &["--disallowedTools", "Read(./secrets/**)"];
const DENY_SECRETS_ALLOW_GIT: &[&str] = &[
    "--disallowedTools",
    "Read(./secrets/**)",
    "--allowedTools",
    "Bash(git show:*)",
    "--allowedTools",
    "Bash(git log:*)",
];
const DENY_ENV: &[&str] = &["--disallowedTools", "Read(.env)"];
const UNRELATED_RULE: &[&str] = &["--allowedTools", "Bash(npm test)"];

/// Class 5: a committed bare repository's `diff.external`.
#[rustfmt::skip]
const REPOSITORY_PROGRAMS: &[Case] = &[
    case("git -C a bare repository", "git -C vendor/evil.git diff HEAD~1 HEAD", ASKING, NO_FLAGS, NoProgram),
    case("git -C a bare repository, unrelated allow rule", "git -C vendor/evil.git diff HEAD~1 HEAD", &[Default], UNRELATED_RULE, NoProgram),
    case("git -C inside a bare repository", "git -C vendor/evil.git/refs diff HEAD~1 HEAD", ASKING, NO_FLAGS, NoProgram),
    case("git --git-dir", "git --git-dir=vendor/evil.git diff HEAD~1 HEAD", ASKING, NO_FLAGS, NoProgram),
    case("GIT_DIR=", "GIT_DIR=vendor/evil.git git diff HEAD~1 HEAD", ASKING, NO_FLAGS, NoProgram),
    // Look-alikes: the project's own repository, a subdirectory.
    case("git diff in the project", "git diff", ASKING, NO_FLAGS, Runs("+y")),
    case("git -C src log", "git -C src log --oneline", ASKING, NO_FLAGS, Runs("first commit")),
];

/// Class 8: a deny rule for `rm` where the command would otherwise run.
#[rustfmt::skip]
const DENIED_THROUGH_BUILTINS: &[Case] = &[
    case("trap", "trap 'rm -f victim.txt' EXIT; echo hi", &[Bypass], DENY_RM, VictimKept),
    case("trap beside an allow rule", "echo hi; trap 'rm -f victim.txt' EXIT", &[Default, AcceptEdits], DENY_RM_ALLOW_ECHO, VictimKept),
    case("taskset", "taskset -c 0 rm -f victim.txt", &[Bypass], DENY_RM, VictimKept),
    case("prlimit", "prlimit --nofile=256 rm -f victim.txt", &[Bypass], DENY_RM, VictimKept),
    case("setpriv", "setpriv --no-new-privs rm -f victim.txt", &[Bypass], DENY_RM, VictimKept),
    case("mapfile -C", "echo x | mapfile -C 'rm -f victim.txt' -c 1 lines", &[Bypass], DENY_RM, VictimKept),
    case("hash -p", "hash -p /bin/rm ls; ls victim.txt", &[Bypass], DENY_RM, VictimKept),
    case("alias with expand_aliases", "shopt -s expand_aliases\nalias ls='rm -f'\nls victim.txt", &[Bypass], DENY_RM, VictimKept),
    // Look-alikes.
    case("a harmless trap", "trap 'echo bye' EXIT; echo hi", &[Bypass], DENY_RM, Runs("bye")),
    case("mapfile without a callback", "printf 'a\\nb\\n' | mapfile -t lines; echo mapped", &[Bypass], DENY_RM, Runs("mapped")),
    case("echo under its rule", "echo fine", &[Default], DENY_RM_ALLOW_ECHO, Runs("fine")),
];

/// Class 9: a Read deny rule and the committed copy of the denied file.
#[rustfmt::skip]
const COMMITTED_COPIES: &[Case] = &[
    case("git show HEAD:path", "git show HEAD:secrets/key.txt", ALL, DENY_SECRETS, SecretKept),
    case("git show under its allow rule", "git show HEAD:secrets/key.txt", &[Default], DENY_SECRETS_ALLOW_GIT, SecretKept),
    case("git grep --cached", "git grep --cached SECRET", ALL, DENY_SECRETS, SecretKept),
    case("git log -p", "git log -p", ALL, DENY_SECRETS, SecretKept),
    case("git log -p under its allow rule", "git log -p --stat", &[Default], DENY_SECRETS_ALLOW_GIT, SecretKept),
    case("git cat-file", "git cat-file -p HEAD:secrets/key.txt", ALL, DENY_SECRETS, SecretKept),
    case("git -C . show", "git -C src show HEAD:secrets/key.txt", ALL, DENY_SECRETS, SecretKept),
    case("a bare clone", "git -C vendor/evil.git show HEAD:secrets/key.txt", &[Bypass], DENY_SECRETS, SecretKept),
    // Look-alikes: an untracked denied file, content-free git commands.
    case("git diff with .env denied", "git diff", &[Default, Plan], DENY_ENV, Runs("+y")),
    case("git status with secrets denied", "git status --short", &[Default, Plan], DENY_SECRETS, Runs("data.txt")),
    case("git log --oneline with secrets denied", "git log --oneline", &[Default, Plan], DENY_SECRETS, Runs("first commit")),
    case("grep -r in the project", "grep -r hello .", &[Default, Plan], DENY_SECRETS, Runs("hello world")),
];

/// Class 7: `dangerouslyDisableSandbox` needs a rule for the command.
#[rustfmt::skip]
const UNSANDBOXED: &[Case] = &[
    Case { name: "read-only ls, unrelated rule", command: "ls", modes: &[Default, AcceptEdits, Plan], flags: UNRELATED_RULE, unsandboxed: true, expect: NotUnsandboxed },
    Case { name: "rule for one part only", command: "npm test; git log --oneline", modes: &[Default], flags: UNRELATED_RULE, unsandboxed: true, expect: NotUnsandboxed },
    Case { name: "a bare repository's program", command: "git -C vendor/evil.git diff HEAD~1 HEAD", modes: &[Default], flags: UNRELATED_RULE, unsandboxed: true, expect: NoProgram },
    // Look-alike: a rule for the command.
    Case { name: "rule for the command", command: "ls src", modes: &[Default], flags: &["--allowedTools", "Bash(ls:*)"], unsandboxed: true, expect: Runs("a.rs") },
];

/// The project: tracked files (a committed secret among them), a changed
/// `data.txt`, an untracked `.env`, and `vendor/evil.git`, a bare clone
/// whose config runs `hook.sh` as `diff.external`.
fn project() -> Scratch {
    let scratch = Scratch::new();
    let root = scratch.path();
    for dir in ["src", "secrets", "vendor"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    scratch.write("notes.txt", "hello world\n");
    scratch.write("data.txt", "x\n");
    scratch.write("src/a.rs", "fn main() {}\n");
    scratch.write("secrets/key.txt", &format!("{SECRET}\n"));
    scratch.write("victim.txt", &format!("{VICTIM}\n"));
    scratch.write(".env", &format!("{ENV_SECRET}\n"));
    let hook = scratch.write(
        "hook.sh",
        &format!("#!/bin/sh\ntouch '{}/PWNED'\n", root.display()),
    );
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let git = |args: &[&str]| git_in(&root, &scratch.home(), args);
    git(&["init", "-q"]);
    git(&[
        "add",
        "notes.txt",
        "data.txt",
        "src",
        "secrets",
        "victim.txt",
    ]);
    git(&["commit", "-qm", "first commit"]);
    scratch.write("notes.txt", "hello world\nmore\n");
    git(&["commit", "-qam", "second commit"]);
    git(&["clone", "-q", "--bare", ".", "vendor/evil.git"]);
    git(&[
        "--git-dir=vendor/evil.git",
        "config",
        "diff.external",
        &hook.display().to_string(),
    ]);
    scratch.write("data.txt", "x\ny\n");
    scratch
}

struct Run {
    out: Outcome,
    said: String,
}

impl Run {
    fn denials(&self) -> usize {
        self.out.result()["permission_denials"]
            .as_array()
            .map_or(0, Vec::len)
    }
}

fn run_case(scratch: &Scratch, case: &Case, mode: Mode) -> Run {
    let mut input = json!({ "command": case.command });
    if case.unsandboxed {
        input["dangerouslyDisableSandbox"] = Value::Bool(true);
    }
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", "Bash", input),
        Reply::text("done"),
    ]);
    let mut cmd = orbit_with_env(scratch, &server.env());
    cmd.args(["-p", "go", "--output-format", "stream-json"])
        .args(mode.flags())
        .args(case.flags);
    if case.unsandboxed {
        cmd.args(["--sandbox", "workspace-write"]);
    }
    let out = run(cmd);
    let said = first_call_results(&server);
    Run { out, said }
}

/// Runs every case in every mode it lists, each in a fresh project.
fn check(cases: &[Case]) {
    let mut failures = Vec::new();
    let mut count = 0;
    for case in cases {
        for &mode in case.modes {
            count += 1;
            let scratch = project();
            let run = run_case(&scratch, case, mode);
            let what = format!(
                "{} [{mode:?} {:?}] `{}`: exit {}, said: {}\nstderr: {}",
                case.name, case.flags, case.command, run.out.code, run.said, run.out.stderr
            );
            if run.out.code != 0 {
                failures.push(format!("orbit failed: {what}"));
                continue;
            }
            let root = scratch.path();
            let denied = run.denials() > 0;
            let ok = match case.expect {
                NoProgram => denied && !root.join("PWNED").exists(),
                VictimKept => denied && victim_kept(&root),
                SecretKept => denied && !run.said.contains(SECRET),
                NotUnsandboxed => denied && run.said.contains("outside the sandbox"),
                Runs(text) => !denied && run.said.contains(text),
            };
            if !ok {
                failures.push(what);
            }
        }
    }
    assert_no_failures(&failures, count);
}

fn victim_kept(root: &Path) -> bool {
    std::fs::read_to_string(root.join("victim.txt")).is_ok_and(|t| t.contains(VICTIM))
}

#[test]
fn repository_programs_behind_other_repositories_ask() {
    check(REPOSITORY_PROGRAMS);
}

#[test]
fn deny_rules_see_through_wrappers_and_builtins() {
    check(DENIED_THROUGH_BUILTINS);
}

#[test]
fn read_deny_rules_cover_committed_copies() {
    check(COMMITTED_COPIES);
}

#[test]
fn unsandboxed_runs_need_a_rule_for_the_command() {
    check(UNSANDBOXED);
}
