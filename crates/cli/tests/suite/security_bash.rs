//! Issue 12's Bash/WebFetch/environment corpus through the real `orbit`
//! binary in headless default mode (an ask is a denial), against the fake
//! Anthropic server. Every bypass asserts its side effect did NOT happen
//! (no `PWNED` file, no secret in what the model received) and that the
//! call was denied; every look-alike asserts the command DID run.

use std::io::{BufRead, BufReader, Write as _};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;

use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::{Value, json};

use super::common::{Outcome, Scratch, git_in, orbit_with_env, run, tool_results_text};

/// The key orbit is started with; no tool may hand it to the model.
const SECRET_KEY: &str = "sk-ant-test-SECRET-4242";
/// What the local page serves; WebFetch may not bring it back.
const PAGE_SECRET: &str = "INTERNAL-METADATA-7";

/// A scratch project: text files, a script and an executable `./ls` that
/// would create `PWNED`, and a git repository with one commit.
fn project(git_config: &[(&str, &str)]) -> Scratch {
    let scratch = Scratch::new();
    let root = scratch.path();
    scratch.write("notes.txt", "alpha -exec beta\nsecond line\n");
    scratch.write("data.txt", "x\n");
    scratch.write("evil.sh", "touch PWNED\n");
    std::fs::create_dir(root.join("src")).unwrap();
    scratch.write("src/a.rs", "fn main() {}\n");
    let hook = scratch.write("hook.sh", "#!/bin/sh\ntouch PWNED\nexit 1\n");
    let ls = scratch.write("ls", "#!/bin/sh\ntouch PWNED\n");
    for exe in [&hook, &ls] {
        std::fs::set_permissions(exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let git = |args: &[&str]| git_in(&root, &scratch.home(), args);
    git(&["init", "-q"]);
    git(&["add", "notes.txt", "data.txt", "src"]);
    git(&["commit", "-qm", "first commit"]);
    std::fs::write(root.join("data.txt"), "x\ny\n").unwrap();
    for (key, value) in git_config {
        let value = value.replace("HOOK", &hook.display().to_string());
        git(&["config", key, &value]);
    }
    scratch
}

/// Runs one Bash call in headless default mode; the model then says "done".
fn run_bash(scratch: &Scratch, command: &str, flags: &[&str], env: &[(&str, &str)]) -> Run {
    run_tool(scratch, "Bash", json!({ "command": command }), flags, env)
}

struct Run {
    out: Outcome,
    /// The text of the tool_result the model received.
    said: String,
    /// Every request body after the first, as text.
    later_bodies: String,
}

impl Run {
    fn denials(&self) -> Value {
        self.out.result()["permission_denials"].clone()
    }
}

fn run_tool(
    scratch: &Scratch,
    tool: &str,
    input: Value,
    flags: &[&str],
    env: &[(&str, &str)],
) -> Run {
    let server = FakeAnthropic::start(vec![
        Reply::tool_use("toolu_1", tool, input),
        Reply::text("done"),
    ]);
    // WebFetch's prompt is answered by a side request, outside the script.
    server.serve_side_requests(Vec::new());
    let mut vars = server.env();
    vars.push(("ANTHROPIC_API_KEY".into(), SECRET_KEY.into()));
    vars.extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let mut cmd = orbit_with_env(scratch, &vars);
    cmd.args(["-p", "go", "--output-format", "stream-json"])
        .args(flags);
    let out = run(cmd);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    let requests = server.requests();
    let said = requests
        .get(1)
        .map(|r| tool_results_text(&r.body))
        .unwrap_or_default();
    let later_bodies = requests
        .iter()
        .skip(1)
        .map(|r| r.body.to_string())
        .collect();
    Run {
        out,
        said,
        later_bodies,
    }
}

/// What a case sets up besides the common project.
#[derive(Clone, Copy)]
enum Setup {
    Plain,
    /// `.git/config` runs `hook.sh` under this key.
    GitConfig(&'static str),
    /// `PATH` starts with `.`.
    DotInPath,
}

fn scratch_for(setup: Setup) -> (Scratch, Vec<(&'static str, String)>) {
    match setup {
        Setup::Plain => (project(&[]), Vec::new()),
        Setup::GitConfig(key) => (project(&[(key, "HOOK")]), Vec::new()),
        Setup::DotInPath => {
            let path = format!(".:{}", std::env::var("PATH").unwrap_or_default());
            (project(&[]), vec![("PATH", path)])
        }
    }
}

/// Commands that must not be auto-approved: each would create `PWNED`.
const BYPASSES: &[(&str, Setup)] = &[
    // Issue 12: subscripts bash evaluates inside single quotes.
    ("test -v 'a[$(touch PWNED)]'", Setup::Plain),
    ("[ -v 'a[$(touch PWNED)]' ]", Setup::Plain),
    ("[[ -v 'a[$(touch PWNED)]' ]]", Setup::Plain),
    ("printf -v 'a[$(touch PWNED)]' x", Setup::Plain),
    ("[[ 'a[$(touch PWNED)]' -eq 1 ]]", Setup::Plain),
    ("echo ${x:'a[$(touch PWNED)]'}", Setup::Plain),
    // A write to PATH, then the project's own `ls`.
    ("printf -v PATH . ; ls", Setup::Plain),
    ("PATH=. ls", Setup::Plain),
    ("env PATH=. ls", Setup::Plain),
    ("./ls", Setup::Plain),
    ("ls", Setup::DotInPath),
    // git running the repository's programs.
    ("git status", Setup::GitConfig("core.fsmonitor")),
    ("git diff", Setup::GitConfig("diff.external")),
    ("git log -1", Setup::GitConfig("core.pager")),
    ("git -c core.pager='touch PWNED' -p log", Setup::Plain),
    ("git diff --output=PWNED", Setup::Plain),
    // Chains, newlines, background.
    ("ls; touch PWNED", Setup::Plain),
    ("ls && touch PWNED", Setup::Plain),
    ("false || touch PWNED", Setup::Plain),
    ("ls & touch PWNED", Setup::Plain),
    ("ls\ntouch PWNED", Setup::Plain),
    ("cat notes.txt | touch PWNED", Setup::Plain),
    ("(ls; touch PWNED)", Setup::Plain),
    ("{ ls; touch PWNED; }", Setup::Plain),
    // Substitutions.
    ("echo $(touch PWNED)", Setup::Plain),
    ("echo `touch PWNED`", Setup::Plain),
    ("echo \"$(touch PWNED)\"", Setup::Plain),
    ("cat <(touch PWNED)", Setup::Plain),
    ("ls ${x:-$(touch PWNED)}", Setup::Plain),
    ("echo $(( $(touch PWNED) ))", Setup::Plain),
    // Redirections to files.
    ("echo x > PWNED", Setup::Plain),
    ("echo x >> PWNED", Setup::Plain),
    ("ls &> PWNED", Setup::Plain),
    ("ls 2> PWNED", Setup::Plain),
    ("echo x >| PWNED", Setup::Plain),
    ("cat <<EOF > PWNED\nx\nEOF", Setup::Plain),
    // Wrappers.
    ("env touch PWNED", Setup::Plain),
    ("env -S 'touch PWNED'", Setup::Plain),
    ("nohup touch PWNED", Setup::Plain),
    ("time touch PWNED", Setup::Plain),
    ("nice touch PWNED", Setup::Plain),
    ("timeout 5 touch PWNED", Setup::Plain),
    ("stdbuf -oL touch PWNED", Setup::Plain),
    ("command touch PWNED", Setup::Plain),
    ("exec touch PWNED", Setup::Plain),
    ("eval 'touch PWNED'", Setup::Plain),
    ("builtin eval 'touch PWNED'", Setup::Plain),
    ("source evil.sh", Setup::Plain),
    (". ./evil.sh", Setup::Plain),
    ("echo PWNED | xargs touch", Setup::Plain),
    // Pipes into shells and interpreters.
    ("echo 'touch PWNED' | sh", Setup::Plain),
    ("cat evil.sh | bash", Setup::Plain),
    ("echo 'open(\"PWNED\", \"w\")' | python3", Setup::Plain),
    // Read-only commands with writing or executing options.
    ("find . -maxdepth 0 -exec touch PWNED \\;", Setup::Plain),
    ("find . -maxdepth 0 -fprint PWNED", Setup::Plain),
    ("sort -o PWNED notes.txt", Setup::Plain),
    ("sed -n '1e touch PWNED' data.txt", Setup::Plain),
    ("sed 's/x/y/w PWNED' data.txt", Setup::Plain),
    ("sed -i '1w PWNED' data.txt", Setup::Plain),
    ("awk 'BEGIN { system(\"touch PWNED\") }'", Setup::Plain),
    ("awk 'BEGIN { print 1 > \"PWNED\" }'", Setup::Plain),
    (
        "awk 'BEGIN { print 1 | \"sh -c \\\"touch PWNED\\\"\" }'",
        Setup::Plain,
    ),
];

#[test]
fn bypasses_are_denied_and_do_nothing() {
    let mut failures = Vec::new();
    for (command, setup) in BYPASSES {
        let (scratch, env) = scratch_for(*setup);
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let run = run_bash(&scratch, command, &[], &env);
        if scratch.path().join("PWNED").exists() {
            failures.push(format!("{command:?}: PWNED was created"));
        }
        if run.denials().as_array().is_none_or(|d| d.is_empty()) {
            failures.push(format!("{command:?}: not denied ({})", run.said));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Approved by the user, git still does not run the repository's
/// fsmonitor or pager: orbit neutralises them for every command.
#[test]
fn allowed_git_commands_run_without_the_repository_programs() {
    for (key, command) in [
        ("core.fsmonitor", "git status --short"),
        ("core.pager", "git -p log --oneline"),
    ] {
        let scratch = project(&[(key, "HOOK")]);
        let run = run_bash(&scratch, command, &["--allowedTools", "Bash"], &[]);
        assert_eq!(run.denials(), json!([]), "{command}");
        assert!(
            !scratch.path().join("PWNED").exists(),
            "{key}: the repository's program ran"
        );
        assert!(
            run.said.contains("data.txt") || run.said.contains("first commit"),
            "{command} did not run: {}",
            run.said
        );
    }
}

/// Extra environment of a run.
type Vars = &'static [(&'static str, &'static str)];

/// (command, flags, extra env): the key must not reach the model.
const SECRET_PROBES: &[(&str, &[&str], Vars)] = &[
    ("printenv ANTHROPIC_API_KEY", &[], &[]),
    ("env", &[], &[]),
    ("printenv", &[], &[]),
    (
        "echo $ANTHROPIC_API_KEY",
        &["--dangerously-skip-permissions"],
        &[],
    ),
    (
        "cat /proc/self/environ | tr '\\0' '\\n'",
        // /proc is outside the workspace: reading it needs its own rule.
        &["--allowedTools", "Bash Read(//proc/**)"],
        &[],
    ),
    ("env | grep -i key", &["--allowedTools", "Bash"], &[]),
    (
        "printenv ORBIT_DEPLOY_TOKEN",
        &[],
        &[("ORBIT_DEPLOY_TOKEN", SECRET_KEY)],
    ),
    (
        "printenv OPENAI_API_KEY",
        &[],
        &[("OPENAI_API_KEY", SECRET_KEY)],
    ),
    (
        "nohup bash -c 'echo $ANTHROPIC_AUTH_TOKEN' ",
        &["--dangerously-skip-permissions"],
        &[("ANTHROPIC_AUTH_TOKEN", SECRET_KEY)],
    ),
];

#[test]
fn secrets_never_reach_the_model_through_bash() {
    for (command, flags, env) in SECRET_PROBES {
        let scratch = project(&[]);
        let run = run_bash(&scratch, command, flags, env);
        assert_eq!(run.denials(), json!([]), "{command} should have run");
        assert!(
            !run.later_bodies.contains(SECRET_KEY),
            "{command} leaked the key: {}",
            run.said
        );
    }
    // The documented switch passes them through, which shows the probe can
    // see a key when it is there.
    let scratch = project(&[]);
    let run = run_bash(
        &scratch,
        "printenv ANTHROPIC_API_KEY",
        &[],
        &[("ORBIT_TOOLS_SEE_SECRETS", "1")],
    );
    assert_eq!(run.said, SECRET_KEY);
}

/// A local server answering `/secret` with [`PAGE_SECRET`] and `/redirect`
/// with a redirect to `target` (`{port}` replaced), for `connections`
/// connections.
fn local_server(target: &'static str, connections: usize) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(connections) {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            reader.read_line(&mut request).unwrap_or(0);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 2 {
                line.clear();
            }
            let response = if request.contains("/redirect") {
                let location = target.replace("{port}", &port.to_string());
                format!(
                    "HTTP/1.1 302 Found\r\nlocation: {location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                )
            } else {
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{PAGE_SECRET}",
                    PAGE_SECRET.len()
                )
            };
            let _ = stream.write_all(response.as_bytes());
        }
    });
    port
}

/// (url with `{port}`, ORBIT_WEBFETCH_ALLOW_HOSTS): refused or not followed.
const WEBFETCH_PROBES: &[(&str, &str)] = &[
    ("http://127.0.0.1:{port}/secret", ""),
    ("http://localhost:{port}/secret", ""),
    ("http://[::1]:{port}/secret", ""),
    ("http://0x7f000001:{port}/secret", ""),
    ("http://2130706433:{port}/secret", ""),
    ("http://0177.0.0.1:{port}/secret", ""),
    ("http://[::ffff:127.0.0.1]:{port}/secret", ""),
    ("http://169.254.169.254/latest/meta-data/", ""),
    ("http://10.0.0.1:{port}/secret", ""),
    // Allowed first hop, then a redirect to a loopback name.
    ("http://127.0.0.1:{port}/redirect", "127.0.0.1"),
    // Allowing one host allows no other.
    ("http://localhost:{port}/secret", "127.0.0.1"),
];

#[test]
fn webfetch_refuses_local_addresses() {
    for (url, allow) in WEBFETCH_PROBES {
        let port = local_server("http://localhost:{port}/secret", 4);
        let url = url.replace("{port}", &port.to_string());
        let scratch = Scratch::new();
        let env = [("ORBIT_WEBFETCH_ALLOW_HOSTS", *allow)];
        let run = run_tool(
            &scratch,
            "WebFetch",
            json!({"url": url, "prompt": "what is it?"}),
            &["--allowedTools", "WebFetch"],
            &env,
        );
        assert!(
            !run.later_bodies.contains(PAGE_SECRET),
            "{url} (allowed: {allow:?}) reached the local page: {}",
            run.said
        );
        assert!(
            run.said.contains("Refusing to fetch") || run.said.contains("REDIRECT DETECTED"),
            "{url}: {}",
            run.said
        );
    }
    // With the host allowed, the same page is fetched: the probe works.
    let port = local_server("", 2);
    let scratch = Scratch::new();
    let run = run_tool(
        &scratch,
        "WebFetch",
        json!({"url": format!("http://127.0.0.1:{port}/secret"), "prompt": "what is it?"}),
        &["--allowedTools", "WebFetch"],
        &[("ORBIT_WEBFETCH_ALLOW_HOSTS", "127.0.0.1")],
    );
    assert!(run.said.contains(PAGE_SECRET), "{}", run.said);
}

/// Look-alikes auto-approved in default mode: (command, expected output part).
const LOOK_ALIKES: &[(&str, &str)] = &[
    ("echo 'a;b'", "a;b"),
    ("echo 'ls && touch PWNED'", "ls && touch PWNED"),
    ("echo \"x | sh\"", "x | sh"),
    ("echo '$(touch PWNED)'", "$(touch PWNED)"),
    ("echo 'a[$(touch PWNED)]'", "a[$(touch PWNED)]"),
    ("ls # ; touch PWNED", "notes.txt"),
    ("grep -e '-exec' notes.txt", "alpha -exec beta"),
    ("grep -- -exec notes.txt", "alpha -exec beta"),
    ("git log --oneline", "first commit"),
    ("git status --short", "data.txt"),
    ("git diff --stat", "data.txt"),
    ("ls -la src", "a.rs"),
    ("cat notes.txt", "second line"),
    ("head -n 1 notes.txt | tr a-z A-Z", "ALPHA"),
    ("printf '%s\\n' hello", "hello"),
    ("test -f notes.txt && echo yes", "yes"),
    ("[[ -f notes.txt && 1 -lt 2 ]] && echo yes", "yes"),
    ("sed -n 2p notes.txt", "second line"),
    ("sed 's/alpha/omega/' notes.txt", "omega -exec beta"),
    ("awk '{print $1}' notes.txt", "second"),
    ("env LANG=C sort notes.txt", "alpha"),
    ("timeout 5 cat notes.txt", "alpha"),
    ("command -v ls", "ls"),
    ("wc -l notes.txt", "2 notes.txt"),
    ("find . -name '*.rs'", "./src/a.rs"),
    ("ls 2>/dev/null | wc -l", "6"),
];

#[test]
fn look_alikes_run_in_default_mode() {
    let mut failures = Vec::new();
    for (command, expected) in LOOK_ALIKES {
        let scratch = project(&[]);
        let run = run_bash(&scratch, command, &[], &[]);
        if run.denials() != json!([]) {
            failures.push(format!("{command:?} was denied"));
        } else if !run.said.contains(expected) {
            failures.push(format!("{command:?} said {:?}", run.said));
        }
        if scratch.path().join("PWNED").exists() {
            failures.push(format!("{command:?} created PWNED"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
