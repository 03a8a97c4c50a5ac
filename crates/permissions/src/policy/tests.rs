//! The decision order over real directories: rules, modes, workspace
//! boundaries (symlinks, `..`, sibling prefixes) and protected paths.

use std::path::{Path, PathBuf};

use orbit_tool::CallFacts;

use super::*;

/// A project and a home in a temp dir; `outside` is a sibling-prefix dir.
struct World {
    _dir: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
    outside: PathBuf,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let project = base.join("proj");
    let home = base.join("home");
    let outside = base.join("proj2");
    for d in [&project, &home, &outside] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(outside.join("f.txt"), "x").unwrap();
    std::os::unix::fs::symlink(&outside, project.join("link_dir")).unwrap();
    std::os::unix::fs::symlink(outside.join("f.txt"), project.join("link_file")).unwrap();
    World {
        _dir: dir,
        project,
        home,
        outside,
    }
}

#[derive(Clone, Copy)]
enum Effect {
    Read(&'static str),
    Write(&'static str),
    Run(&'static str),
    Fetch(&'static str),
    /// A command run outside the OS sandbox (`dangerouslyDisableSandbox`).
    RunUnsandboxed(&'static str),
    /// A command with the Bash tool's path and file-management facts.
    Manage(&'static str),
}

fn facts(effect: Effect) -> CallFacts {
    let mut f = CallFacts::default();
    match effect {
        Effect::Read(p) => {
            f.read_only = true;
            f.reads = vec![PathBuf::from(p)];
        }
        Effect::Write(p) => f.writes = vec![PathBuf::from(p)],
        Effect::Run(c) => {
            f.command = Some(c.into());
            f.read_only = orbit_shell::is_read_only(c);
        }
        Effect::RunUnsandboxed(c) => {
            f.command = Some(c.into());
            f.read_only = orbit_shell::is_read_only(c);
            f.unsandboxed = true;
        }
        Effect::Manage(c) => {
            let script = orbit_shell::parse(c).unwrap();
            let access = script.file_access();
            f.command = Some(c.into());
            f.file_management = script.only_manages_files();
            f.reads = access.reads.iter().map(PathBuf::from).collect();
            f.writes = access.writes.iter().map(PathBuf::from).collect();
        }
        Effect::Fetch(u) => {
            f.network = Some(u.into());
            f.read_only = true;
        }
    }
    f
}

/// The decision's kind: "allow", "ask" or "deny".
fn decide(w: &World, config: &PermissionConfig, tool: &str, effect: Effect) -> &'static str {
    decide_call(w, config, tool, &facts(effect))
}

/// The decision's kind for a call of `tool` with `facts`, in `w`'s project
/// with `w`'s home.
fn decide_call(
    w: &World,
    config: &PermissionConfig,
    tool: &str,
    facts: &CallFacts,
) -> &'static str {
    let mut config = config.clone();
    config.home = Some(w.home.clone());
    let policy = Policy::new(&config, &w.project);
    assert!(policy.errors().is_empty(), "{:?}", policy.errors());
    let roots = [w.project.clone()];
    let request = PermissionRequest {
        tool_name: tool,
        facts,
        cwd: &w.project,
        roots: &roots,
    };
    match policy.decide(&request) {
        PermissionDecision::Allow => "allow",
        PermissionDecision::Ask { .. } => "ask",
        PermissionDecision::Deny { .. } => "deny",
    }
}

fn cfg(mode: PermissionMode, allow: &[&str], deny: &[&str], ask: &[&str]) -> PermissionConfig {
    let list = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
    PermissionConfig {
        mode,
        allowed_tools: list(allow),
        disallowed_tools: list(deny),
        ask_tools: list(ask),
        ..PermissionConfig::default()
    }
}

/// (mode, allow, deny, ask, tool, effect, decision)
type Row<'a> = (
    PermissionMode,
    &'a [&'a str],
    &'a [&'a str],
    &'a [&'a str],
    &'a str,
    Effect,
    &'a str,
);

use Effect::*;
use PermissionMode::*;

#[test]
fn decision_table() {
    let w = world();
    let outside_file: &'static str = Box::leak(
        w.outside
            .join("f.txt")
            .display()
            .to_string()
            .into_boxed_str(),
    );
    let home_rc: &'static str = Box::leak(
        w.home
            .join(".bashrc")
            .display()
            .to_string()
            .into_boxed_str(),
    );
    let home_key: &'static str = Box::leak(
        w.home
            .join(".ssh/id_rsa")
            .display()
            .to_string()
            .into_boxed_str(),
    );
    let none: &[&str] = &[];
    // (mode, allow, deny, ask, tool, effect, decision)
    #[rustfmt::skip]
    let table: Vec<Row> = vec![
        // Local reads inside run; outside ask (home, `..`, absolute, links, sibling prefix).
        (Default, none, none, none, "Read", Read("src/a.rs"), "allow"),
        (Default, none, none, none, "Read", Read(home_key), "ask"),
        (Default, none, none, none, "Read", Read("../proj2/f.txt"), "ask"),
        (Default, none, none, none, "Read", Read(outside_file), "ask"),
        (Default, none, none, none, "Read", Read("link_dir/f.txt"), "ask"),
        (Default, none, none, none, "Read", Read("link_file"), "ask"),
        (Default, none, none, none, "Grep", Read("link_dir"), "ask"),
        // acceptEdits writes inside, asks outside and for protected files.
        (AcceptEdits, none, none, none, "Write", Write("src/new.rs"), "allow"),
        (AcceptEdits, none, none, none, "Write", Write("../x.txt"), "ask"),
        (AcceptEdits, none, none, none, "Write", Write(outside_file), "ask"),
        (AcceptEdits, none, none, none, "Edit", Write("link_file"), "ask"),
        (AcceptEdits, none, none, none, "Write", Write("link_dir/new"), "ask"),
        (AcceptEdits, none, none, none, "Write", Write(home_rc), "ask"),
        (AcceptEdits, none, none, none, "Write", Write(".git/hooks/pre-commit"), "ask"),
        (AcceptEdits, none, none, none, "Write", Write(".orbit/settings.json"), "ask"),
        (AcceptEdits, none, none, none, "Write", Write(".claude/settings.local.json"), "ask"),
        (AcceptEdits, none, none, none, "Write", Write(".mcp.json"), "ask"),
        (AcceptEdits, none, none, none, "Write", Write(".env.local"), "ask"),
        (AcceptEdits, &["Edit(./.git/**)"], none, none, "Write", Write(".git/config"), "ask"),
        // acceptEdits runs the commands that only manage files (Claude
        // Code's mkdir, touch, rm, rmdir, mv, cp, sed -i) where a file
        // edit of the same paths would be allowed; nothing else.
        (AcceptEdits, none, none, none, "Bash", Manage("sed -i 's/a/b/' src/a.rs"), "allow"),
        (AcceptEdits, none, none, none, "Bash", Manage("mv draft.md final.md"), "allow"),
        (AcceptEdits, none, none, none, "Bash", Manage("mkdir -p build && touch build/.keep"), "allow"),
        (AcceptEdits, none, none, none, "Bash", Manage("cp src/a.rs ../x.rs"), "ask"),
        (AcceptEdits, none, none, none, "Bash", Manage("cp link_file copy.txt"), "ask"),
        (AcceptEdits, none, none, none, "Bash", Manage("mv a.txt link_dir/a.txt"), "ask"),
        (AcceptEdits, none, none, none, "Bash", Manage("rm .git/config"), "ask"),
        (AcceptEdits, none, none, none, "Bash", Manage("sed -i 's/a/b/' .orbit/settings.json"), "ask"),
        (AcceptEdits, none, none, none, "Bash", Manage("rm -r src"), "ask"),
        (AcceptEdits, none, none, none, "Bash", Manage("sed -i '1e touch x' a.txt"), "ask"),
        (AcceptEdits, none, &["Bash(rm:*)"], none, "Bash", Manage("rm a.txt"), "deny"),
        (Default, none, none, none, "Bash", Manage("mv draft.md final.md"), "ask"),
        (Plan, none, none, none, "Bash", Manage("touch x"), "deny"),
        // Path allow rules lift the boundary only where they match.
        (Default, &["Write(./src/**)"], none, none, "Write", Write("src/a.rs"), "allow"),
        (Default, &["Write(./src/**)"], none, none, "Write", Write(home_rc), "ask"),
        (Default, &["Write(./src/**)"], none, none, "Write", Write("docs/a.md"), "ask"),
        (Default, &["Read(~/.ssh/**)"], none, none, "Read", Read(home_key), "allow"),
        (Default, &["Write"], none, none, "Write", Write(outside_file), "ask"),
        // Deny rules: by facts, any part, every mode.
        (Default, none, &["Read(./secrets/**)"], none, "Read", Read("secrets/k"), "deny"),
        (Default, none, &["Read(./secrets/**)"], none, "Grep", Read("secrets"), "deny"),
        (Default, none, &["Read(./secrets/**)"], none, "Glob", Read("./secrets/../secrets/x"), "deny"),
        (Default, none, &["Read(./secrets/**)"], none, "Read", Read("hello.txt"), "allow"),
        (Default, none, &["Read(~/.ssh/**)"], none, "Read", Read("hello.txt"), "allow"),
        (BypassPermissions, none, &["Bash"], none, "Bash", Run("echo ok"), "deny"),
        (BypassPermissions, none, &["Bash(rm:*)"], none, "Bash", Run("echo ok"), "allow"),
        (BypassPermissions, none, &["Bash(rm:*)"], none, "Bash", Run("echo a && rm -rf x"), "deny"),
        (BypassPermissions, none, &["Bash(rm:*)"], none, "Bash", Run("xargs rm"), "ask"),
        (BypassPermissions, none, none, none, "Write", Write(outside_file), "allow"),
        (Plan, &["Bash"], &["Read"], none, "Read", Read("a"), "deny"),
        // Ask rules ask in every mode.
        (BypassPermissions, none, none, &["Bash(git push:*)"], "Bash", Run("git push origin"), "ask"),
        (Default, &["Bash"], none, &["Bash(git push:*)"], "Bash", Run("git status"), "allow"),
        // Command allow rules: every part.
        (Default, &["Bash(touch *)"], none, none, "Bash", Run("touch a"), "allow"),
        (Default, &["Bash(touch *)"], none, none, "Bash", Run("touch a; rm b"), "ask"),
        (Default, &["Bash(git log:*)"], none, none, "Bash", Run("git log | rm x"), "ask"),
        // Plan mode: read-only facts only.
        (Plan, &["Bash", "Write"], none, none, "Write", Write("src/a"), "deny"),
        (Plan, none, none, none, "Bash", Run("ls"), "allow"),
        (Plan, none, none, none, "Bash", Run("touch x"), "deny"),
        // Network reads need a rule, matched on the host.
        (Default, none, none, none, "WebFetch", Fetch("https://example.com/"), "ask"),
        (Default, &["WebFetch(domain:example.com)"], none, none, "WebFetch", Fetch("https://example.com/"), "allow"),
        (Default, &["WebFetch(domain:example.com)"], none, none, "WebFetch", Fetch("https://other.org/"), "ask"),
        (Plan, &["WebFetch"], none, none, "WebFetch", Fetch("https://x.org/"), "allow"),
        // dontAsk: what would ask is denied; what rules or reads allow runs.
        (DontAsk, none, none, none, "Read", Read("src/a.rs"), "allow"),
        (DontAsk, none, none, none, "Read", Read(outside_file), "deny"),
        (DontAsk, none, none, none, "Bash", Manage("mv draft.md final.md"), "deny"),
        (DontAsk, &["Bash(touch *)"], none, none, "Bash", Run("touch a"), "allow"),
        (DontAsk, &["Bash"], none, &["Bash(git push:*)"], "Bash", Run("git push origin"), "deny"),
        (DontAsk, none, none, none, "WebFetch", Fetch("https://example.com/"), "deny"),
    ];
    for (i, (mode, allow, deny, ask, tool, effect, want)) in table.into_iter().enumerate() {
        let config = cfg(mode, allow, deny, ask);
        assert_eq!(
            decide(&w, &config, tool, effect),
            want,
            "row {i}: {tool} {mode:?} allow={allow:?} deny={deny:?}"
        );
    }
}

/// P4: containment is by whole components of canonical paths.
#[test]
fn added_directories_are_inside_and_sibling_prefixes_are_not() {
    let w = world();
    let policy = Policy::new(&PermissionConfig::default(), &w.project);
    let roots = [w.project.clone(), w.home.clone()];
    for (path, want) in [(w.home.join("a"), true), (w.outside.join("f.txt"), false)] {
        let facts = facts(Read(Box::leak(path.display().to_string().into_boxed_str())));
        let request = PermissionRequest {
            tool_name: "Read",
            facts: &facts,
            cwd: &w.project,
            roots: &roots,
        };
        assert_eq!(
            policy.decide(&request).is_allow(),
            want,
            "{}",
            path.display()
        );
    }
}

#[test]
fn headless_asks_become_denials_and_session_rules_allow() {
    let w = world();
    let config = PermissionConfig {
        headless: true,
        ..PermissionConfig::default()
    };
    let policy = Policy::new(&config, &w.project);
    let facts = facts(Run("npm test"));
    let roots = [w.project.clone()];
    let request = PermissionRequest {
        tool_name: "Bash",
        facts: &facts,
        cwd: &w.project,
        roots: &roots,
    };
    assert_eq!(
        policy.can_use_tool(&request),
        PermissionDecision::Deny {
            reason: "orbit requested permissions to use Bash, but you haven't granted it yet."
                .into()
        }
    );
    policy.add_session_rule("Bash(npm test)").unwrap();
    assert!(policy.can_use_tool(&request).is_allow());
}

#[test]
fn rules_that_do_not_compile_never_widen() {
    let w = world();
    let config = cfg(Default, &["Bash(rm", "Write(~/x)"], &["Bash(rm", "(x"], &[]);
    // No home: `~` rules do not compile.
    let policy = Policy::new(&config, &w.project);
    assert_eq!(policy.errors().len(), 4);
    let facts = facts(Read("a.txt"));
    let roots = [w.project.clone()];
    let request = PermissionRequest {
        tool_name: "Read",
        facts: &facts,
        cwd: &w.project,
        roots: &roots,
    };
    // The unreadable deny rule `(x` denies everything.
    assert!(matches!(
        policy.decide(&request),
        PermissionDecision::Deny { .. }
    ));
    assert!(Policy::check(&config, &w.project).is_err());
    let config = cfg(Default, &["Bash(rm"], &[], &[]);
    let policy = Policy::new(&config, &w.project);
    assert!(
        policy.decide(&request).is_allow(),
        "a bad allow rule is dropped"
    );
    let bash = facts_run("rm x");
    let request = PermissionRequest {
        tool_name: "Bash",
        facts: &bash,
        cwd: &w.project,
        roots: &roots,
    };
    assert!(!policy.decide(&request).is_allow());
}

fn facts_run(command: &'static str) -> CallFacts {
    facts(Run(command))
}

#[test]
fn read_deny_rules_hide_files_from_searches() {
    let w = world();
    let config = cfg(Default, &[], &["Read(./secrets/**)", "Bash(rm:*)"], &[]);
    let policy = Policy::new(&config, &w.project);
    assert!(policy.is_read_denied(&w.project.join("secrets/k")));
    assert!(policy.is_read_denied(&w.project.join("secrets")));
    assert!(!policy.is_read_denied(&w.project.join("src/secrets.rs")));
    assert!(!policy.is_read_denied(Path::new("/bin/rm")));
}

/// Outside the OS sandbox no mode but bypassPermissions auto-approves,
/// not even a read-only command; an allow rule for the command does.
#[test]
fn unsandboxed_runs_need_a_rule() {
    let w = world();
    let rows: &[(PermissionMode, &[&str], Effect, &str)] = &[
        (Default, &[], Run("ls"), "allow"),
        (Default, &[], RunUnsandboxed("ls"), "ask"),
        (AcceptEdits, &[], RunUnsandboxed("ls"), "ask"),
        (Plan, &[], RunUnsandboxed("ls"), "ask"),
        (
            Default,
            &["Bash(npm install:*)"],
            RunUnsandboxed("npm install"),
            "allow",
        ),
        (
            Default,
            &["Bash(npm install:*)"],
            RunUnsandboxed("npm test"),
            "ask",
        ),
        (
            BypassPermissions,
            &[],
            RunUnsandboxed("rm -rf build"),
            "allow",
        ),
    ];
    for &(mode, allow, effect, want) in rows {
        let got = decide(&w, &cfg(mode, allow, &[], &[]), "Bash", effect);
        assert_eq!(got, want, "{mode:?} {allow:?} {:?}", facts(effect).command);
    }
}

mod attacks;
