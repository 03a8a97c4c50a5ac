//! Issue 18's escape corpus: Bash commands a scripted model sends through
//! the real `orbit` binary (fake Anthropic server), each asserting that the
//! forbidden effect did NOT happen — a file outside is absent or unchanged,
//! a secret is not in the tool_result, a listener the test owns received
//! nothing — and the look-alikes that must still work. The escalation path
//! (`dangerouslyDisableSandbox`), `orbit sandbox -- CMD` directly and the
//! allowed-domains proxy are in `security_sandbox_escalation`, over this
//! module's [`World`] and [`run_bash`].
//!
//! Every path of a case lives under `$HOME/.cache/osbx/<id>`
//! (`ws`, `home`, `outside`): no policy grants it, also when the repo is
//! cloned under /tmp, and the workspace is not inside the temp dir (which
//! every mode may write).
//! The tests run as root in CI: root passes every permission check, so a
//! blocked effect here is the kernel's doing (Landlock, seccomp, mounts).

use std::io::Read as _;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use serde_json::{Value, json};

use super::common::{
    CacheDir, Outcome, assert_no_failures, bash_inputs_then_done, first_call_results, git_in,
    orbit_at, run,
};

/// What the deny-listed files hold; it must never reach the model.
pub(super) const SECRET: &str = "TOPSECRET-7a1c";
/// What the file outside the workspace holds; it must stay so.
const ORIGINAL: &str = "ORIGINAL";
/// How long to wait for effects of detached processes (setsid, nohup,
/// background shells) before checking they did not happen.
const DETACHED_SETTLE_MS: u64 = 700;

/// A workspace (under the temp dir) and, outside every writable root, a
/// home with the deny-listed files and an `outside` dir with a victim file.
pub(super) struct World {
    base: CacheDir,
    tcp: TcpListener,
    udp: UdpSocket,
    unix: UnixListener,
}

impl World {
    pub(super) fn new() -> Self {
        // Short: `outside/agent.sock` must fit a Unix socket path (108 bytes)
        // under any HOME.
        let base = CacheDir::new("osbx");
        let home = base.join("home");
        for (path, text) in [
            (".ssh/id_rsa", SECRET),
            (".aws/credentials", SECRET),
            (".gnupg/secring.gpg", SECRET),
            (".config/gcloud/credentials.db", SECRET),
            (".netrc", SECRET),
            (".bashrc", ORIGINAL),
        ] {
            orbit_test_support::files::put(&home, path, text);
        }
        let outside = base.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("victim.txt"), ORIGINAL).unwrap();
        std::fs::write(outside.join("private.txt"), SECRET).unwrap();
        let w = base.join("ws");
        std::fs::create_dir_all(&w).unwrap();
        git_in(&w, &home, &["init", "-q"]);
        std::fs::create_dir_all(w.join(".claude")).unwrap();
        std::fs::write(w.join(".claude/settings.json"), "{}").unwrap();
        std::fs::create_dir_all(w.join("mnt")).unwrap();
        let unix = UnixListener::bind(outside.join("agent.sock")).unwrap();
        unix.set_nonblocking(true).unwrap();
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        tcp.set_nonblocking(true).unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_nonblocking(true).unwrap();
        Self {
            base,
            tcp,
            udp,
            unix,
        }
    }

    fn ws(&self) -> PathBuf {
        self.base.join("ws")
    }
    fn home(&self) -> PathBuf {
        self.base.join("home")
    }
    pub(super) fn outside(&self) -> PathBuf {
        self.base.join("outside")
    }

    /// `text` with {OUT}, {HOME}, {WS}, {UP} (the workspace's way up to
    /// `/` as `../..`), {PORT}, {UDP} filled in.
    pub(super) fn fill(&self, text: &str) -> String {
        let ws = self.ws();
        let up = vec![".."; ws.components().count() - 1].join("/");
        text.replace("{OUT}", &self.outside().display().to_string())
            .replace("{HOME}", &self.home().display().to_string())
            .replace("{WS}", &ws.display().to_string())
            .replace("{UP}", &up)
            .replace("{PORT}", &self.tcp.local_addr().unwrap().port().to_string())
            .replace("{UDP}", &self.udp.local_addr().unwrap().port().to_string())
    }

    /// `orbit` with a clean environment: PATH, the test HOME, rustup's
    /// toolchains (for `cargo`), and `env`.
    pub(super) fn orbit(&self, env: &[(String, String)]) -> Command {
        let mut cmd = orbit_at(&self.ws(), &self.home(), env);
        cmd.timeout(Duration::from_secs(120));
        if let Some(rustup) = std::env::var_os("RUSTUP_HOME")
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".rustup").into()))
        {
            cmd.env("RUSTUP_HOME", rustup);
        }
        cmd
    }

    /// Whether a listener the test owns got anything.
    pub(super) fn listeners_touched(&self) -> Option<&'static str> {
        if self.tcp.accept().is_ok() {
            return Some("tcp");
        }
        if self.udp.recv(&mut [0u8; 64]).is_ok() {
            return Some("udp");
        }
        if let Ok((mut s, _)) = self.unix.accept() {
            let _ = s.read(&mut [0u8; 8]);
            return Some("unix");
        }
        None
    }
}

/// One Bash call by the scripted model, then "done".
pub(super) struct BashRun {
    pub(super) out: Outcome,
    /// The tool_result text the model received.
    pub(super) said: String,
}

pub(super) fn run_bash(world: &World, input: Value, flags: &[&str]) -> BashRun {
    run_bash_calls(world, vec![input], flags)
}

/// Bash calls in consecutive turns; `said` is the first call's result.
fn run_bash_calls(world: &World, inputs: Vec<Value>, flags: &[&str]) -> BashRun {
    let server = bash_inputs_then_done(inputs);
    // orbit holds the secret as its API key: /proc/<orbit>/environ must
    // stay closed to the command.
    let mut env = server.env();
    env.push(("ANTHROPIC_API_KEY".into(), SECRET.into()));
    let mut cmd = world.orbit(&env);
    cmd.args(["-p", "go", "--output-format", "stream-json"])
        .args(flags);
    let out = run(cmd);
    let said = first_call_results(&server);
    BashRun { out, said }
}

/// What must (not) have happened after a case.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// The file (template) does not exist.
    Absent(&'static str),
    /// The file (template) has the content it had before.
    Unchanged(&'static str),
    /// The secret is not in the tool result.
    NoSecret,
    /// No listener of the test received anything.
    NoConnection,
    /// The tool result contains the text (the kernel's refusal).
    Said(&'static str),
    /// The look-alike worked: the result contains the text…
    Works(&'static str),
    /// …and/or this file (template) exists.
    Created(&'static str),
}

struct Case {
    name: &'static str,
    command: &'static str,
    /// Extra Bash input (`run_in_background`, `dangerouslyDisableSandbox`).
    input: Option<(&'static str, bool)>,
    flags: &'static [&'static str],
    expect: &'static [Expect],
}

/// Every call allowed by the permission gate (whose path checks would
/// otherwise stop many of these before they run), the sandbox asked for:
/// only the kernel stands between the command and its effect.
const ALLOW_BASH: &[&str] = &[
    "--permission-mode",
    "bypassPermissions",
    "--sandbox",
    "workspace-write",
];

const fn case(name: &'static str, command: &'static str, expect: &'static [Expect]) -> Case {
    Case {
        name,
        command,
        input: None,
        flags: ALLOW_BASH,
        expect,
    }
}

use Expect::*;

const VICTIM: &str = "{OUT}/victim.txt";
pub(super) const NEW: &str = "{OUT}/new.txt";

#[rustfmt::skip]
const ESCAPES: &[Case] = &[
    // Writes outside the workspace. Outside the writable roots the mount
    // namespace is read-only (issue 29): the refusal reads EROFS.
    case("absolute path", "echo pwned > {OUT}/victim.txt", &[Unchanged(VICTIM), Said("Read-only file system")]),
    case("new file by absolute path", "echo pwned > {OUT}/new.txt", &[Absent(NEW)]),
    case("dot-dot path", "echo pwned > {UP}{OUT}/new.txt", &[Absent(NEW)]),
    case("symlink dir inside -> outside", "ln -s {OUT} out && echo pwned > out/new.txt", &[Absent(NEW)]),
    case("symlink file inside -> outside", "ln -s {OUT}/victim.txt v && echo pwned > v", &[Unchanged(VICTIM)]),
    case("hard link of outside file", "ln {OUT}/victim.txt hl; echo pwned > hl", &[Unchanged(VICTIM)]),
    case("/proc/self/root", "echo pwned > /proc/self/root{OUT}/new.txt", &[Absent(NEW)]),
    case("/proc/self/fd of an inherited dir fd", "exec 3<{OUT}; echo pwned > /proc/self/fd/3/new.txt", &[Absent(NEW)]),
    case("/proc/self/fd of a read fd", "exec 4<{OUT}/victim.txt; echo pwned > /proc/self/fd/4", &[Unchanged(VICTIM)]),
    case("python child", "python3 -c \"open('{OUT}/new.txt','w').write('x')\"", &[Absent(NEW), Said("Errno 30")]),
    case("node child", "node -e \"require('fs').writeFileSync('{OUT}/new.txt','x')\"", &[Absent(NEW), Said("EROFS")]),
    case("perl child", "perl -e 'open(F, \">\", \"{OUT}/new.txt\") or die \"no: $!\"'", &[Absent(NEW), Said("no: Read-only file system")]),
    case("dd", "dd if=/dev/zero of={OUT}/victim.txt bs=1 count=1 conv=notrunc", &[Unchanged(VICTIM)]),
    case("rm outside", "rm -f {OUT}/victim.txt", &[Unchanged(VICTIM)]),
    // The rename crosses mounts, so mv copies (as `cp` may: reads are
    // allowed) and then fails to remove the original.
    case("mv outside into the workspace", "mv {OUT}/victim.txt ./stolen", &[Unchanged(VICTIM), Said("cannot remove")]),
    case("home dotfile", "echo pwned >> ~/.bashrc", &[Unchanged("{HOME}/.bashrc")]),
    case("setsid daemon", "setsid sh -c 'sleep 0.2; echo pwned > {OUT}/new.txt' </dev/null >/dev/null 2>&1 &", &[Absent(NEW)]),
    case("nohup daemon", "nohup sh -c 'sleep 0.2; echo pwned > {OUT}/new.txt' </dev/null >/dev/null 2>&1 &", &[Absent(NEW)]),
    // The marker proves the attempt ran (a later call waits for it).
    Case {
        name: "background shell",
        command: "echo pwned > {OUT}/new.txt; echo attempted > bg-done",
        input: Some(("run_in_background", true)),
        flags: ALLOW_BASH,
        expect: &[Absent(NEW), Created("{WS}/bg-done")],
    },
    // Protected paths inside the workspace.
    case(".git/hooks", "echo 'touch PWNED' > .git/hooks/pre-commit", &[ Absent("{WS}/.git/hooks/pre-commit"), Said("Read-only file system"), ]),
    case(".git/config", "git config core.hooksPath /tmp/evil", &[Unchanged("{WS}/.git/config")]),
    case(".claude settings", "echo '{\"sandbox\":{\"mode\":\"danger-full-access\"}}' > .claude/settings.json", &[Unchanged("{WS}/.claude/settings.json")]),
    Case {
        name: "read-only mode: workspace write",
        command: "echo pwned > made.txt",
        input: None,
        flags: &[
            "--permission-mode",
            "bypassPermissions",
            "--sandbox",
            "read-only",
        ],
        expect: &[Absent("{WS}/made.txt")],
    },
    // Reads of the deny list.
    case("cat ~/.ssh", "cat ~/.ssh/id_rsa", &[NoSecret]),
    case("python reads ~/.ssh", "python3 -c \"print(open('{HOME}/.ssh/id_rsa').read())\"", &[NoSecret]),
    case("dd reads ~/.aws", "dd if={HOME}/.aws/credentials 2>/dev/null", &[NoSecret]),
    case("symlink to ~/.ssh", "ln -s {HOME}/.ssh/id_rsa k && cat k", &[NoSecret]),
    case("copy of ~/.ssh", "cp -r ~/.ssh ./copy; cat copy/*", &[NoSecret]),
    case("~/.netrc", "cat ~/.netrc", &[NoSecret]),
    case("~/.gnupg and gcloud", "cat ~/.gnupg/* ~/.config/gcloud/*", &[NoSecret]),
    case("orbit's environment via /proc", "cat /proc/$PPID/environ /proc/$PPID/task/*/environ | tr '\\0' '\\n'; ls /proc/$PPID/fd; head -c 64 /proc/$PPID/mem", &[NoSecret]),
    case("/proc/self/root of ~/.ssh", "cat /proc/self/root{HOME}/.ssh/id_rsa", &[NoSecret]),
    Case {
        name: "Read deny rule",
        command: "cat {OUT}/private.txt",
        input: None,
        flags: &[
            "--permission-mode",
            "bypassPermissions",
            "--sandbox",
            "workspace-write",
            "--disallowedTools",
            "Read(/{OUT}/private.txt)",
        ],
        expect: &[NoSecret],
    },
    // Network.
    case("bash /dev/tcp to 127.0.0.1", "echo hi > /dev/tcp/127.0.0.1/{PORT}", &[NoConnection]),
    case("python TCP to 127.0.0.1", "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {PORT}))\"", &[NoConnection, Said("Operation not permitted")]),
    case("curl to 127.0.0.1", "curl -sS -m 5 http://127.0.0.1:{PORT}/", &[NoConnection]),
    case("public IP", "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 80), timeout=5)\"", &[Said("Operation not permitted")]),
    case("DNS over UDP", "python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'q', ('127.0.0.1', {UDP}))\"", &[NoConnection, Said("Operation not permitted")]),
    case("raw socket", "python3 -c \"import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)\"", &[Said("Operation not permitted")]),
    case("Unix socket outside", "python3 -c \"import socket; socket.socket(socket.AF_UNIX).connect('{OUT}/agent.sock')\"", &[NoConnection, Said("Operation not permitted")]),
    // Process and namespace escapes.
    case("ptrace of a sibling", "sleep 5 & python3 -c \"import ctypes, sys; print('ATTACH', ctypes.CDLL(None).ptrace(16, int(sys.argv[1]), 0, 0))\" $!; kill $!", &[Said("ATTACH -1")]),
    case("mount --bind outside in", "mount --bind {OUT} mnt && echo pwned > mnt/victim.txt", &[Unchanged(VICTIM)]),
    case("unshare a user namespace", "unshare -r -m sh -c 'mount --bind {OUT} mnt && echo pwned > mnt/victim.txt'", &[Unchanged(VICTIM), Said("Operation not permitted")]),
];

#[rustfmt::skip]
const LOOK_ALIKES: &[Case] = &[
    case("write in the workspace", "echo ok > made.txt && cat made.txt", &[Works("ok"), Created("{WS}/made.txt")]),
    case("write /tmp", "echo ok > /tmp/orbit-sbx-lookalike-$$ && cat /tmp/orbit-sbx-lookalike-$$ && rm /tmp/orbit-sbx-lookalike-$$", &[Works("ok")]),
    case("read system headers", "grep -c include /usr/include/stdio.h >/dev/null && echo headers-ok", &[Works("headers-ok")]),
    case("git commit", "echo a > a.txt && git add a.txt && git -c user.name=t -c user.email=t@t commit -qm sandboxed && git log --format=%s", &[Works("sandboxed")]),
    case("cargo test of a tiny crate", "mkdir -p tiny/src && printf '[package]\\nname = \"tiny\"\\nversion = \"0.1.0\"\\nedition = \"2021\"\\n' > tiny/Cargo.toml && printf '#[test]\\nfn adds() { assert_eq!(1 + 1, 2); }\\n' > tiny/src/lib.rs && cd tiny && cargo test --offline -q 2>&1", &[Works("test result: ok. 1 passed")]),
    case("npm test", "printf '{\"name\":\"t\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node -e \\\\\"console.log(6*7)\\\\\"\"}}' > package.json && npm test 2>&1", &[Works("42")]),
    case("python in the workspace", "python3 -c \"open('py.txt','w').write('x'); print('py-ok')\"", &[Works("py-ok"), Created("{WS}/py.txt")]),
];

/// Runs one case; returns what went wrong.
fn check_case(case: &Case) -> Vec<String> {
    let world = World::new();
    let command = world.fill(case.command);
    let files: Vec<(String, Option<String>)> = case
        .expect
        .iter()
        .filter_map(|e| match e {
            Unchanged(t) => {
                let p = world.fill(t);
                let before = std::fs::read_to_string(&p).ok();
                Some((p, before))
            }
            _ => None,
        })
        .collect();
    let mut input = json!({ "command": command });
    if let Some((key, value)) = case.input {
        input[key] = json!(value);
    }
    let flags: Vec<String> = case.flags.iter().map(|f| world.fill(f)).collect();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let mut inputs = vec![input];
    if case.input.is_some() {
        // Keep the session (and so its background shells) alive a moment.
        inputs.push(json!({ "command": "for i in $(seq 50); do [ -e bg-done ] && break; sleep 0.05; done" }));
    }
    let run = run_bash_calls(&world, inputs, &flags);
    if case.input.is_some() || command.contains("setsid") || command.contains("nohup") {
        std::thread::sleep(Duration::from_millis(DETACHED_SETTLE_MS));
    }
    let mut problems = Vec::new();
    if run.out.code != 0 {
        problems.push(format!("orbit exited {}: {}", run.out.code, run.out.stderr));
    }
    for expect in case.expect {
        let bad = match *expect {
            Absent(t) => Path::new(&world.fill(t))
                .exists()
                .then(|| format!("{t} exists")),
            Unchanged(t) => {
                let p = world.fill(t);
                let before = files
                    .iter()
                    .find(|(f, _)| *f == p)
                    .and_then(|(_, b)| b.clone());
                let after = std::fs::read_to_string(&p).ok();
                (before.is_none() || before != after)
                    .then(|| format!("{t} changed: {before:?} -> {after:?}"))
            }
            NoSecret => run
                .said
                .contains(SECRET)
                .then(|| "the secret reached the model".into()),
            NoConnection => world
                .listeners_touched()
                .map(|l| format!("the {l} listener got a connection")),
            Said(text) | Works(text) => {
                (!run.said.contains(text)).then(|| format!("result lacks {text:?}"))
            }
            Created(t) => (!Path::new(&world.fill(t)).exists()).then(|| format!("{t} missing")),
        };
        problems.extend(bad);
    }
    problems
        .into_iter()
        .map(|p| format!("[{}] {p}\n    result: {}", case.name, run.said))
        .collect()
}

fn check_all(cases: &[Case]) {
    let problems: Vec<String> = cases.iter().flat_map(check_case).collect();
    assert_no_failures(&problems, cases.len());
}

#[test]
fn escape_corpus_is_stopped_by_the_kernel() {
    assert!(
        ESCAPES.len() >= 40,
        "the corpus has {} escapes",
        ESCAPES.len()
    );
    check_all(ESCAPES);
}

#[test]
fn look_alikes_still_work_in_the_sandbox() {
    check_all(LOOK_ALIKES);
}
