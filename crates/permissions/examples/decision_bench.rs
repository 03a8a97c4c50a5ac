//! Benchmark of the permission decision (issue 12): the time `Policy::decide`
//! takes for a 60-part compound Bash command (`git status && git log -1 &&
//! …`, 60 simple commands joined by `&&`, `;` and `|`) under a realistic
//! rule set (deny, ask and allow command rules, path rules, a domain rule),
//! in default mode where every rule is consulted. Target ≤ 1 ms.
//!
//! Also reported: a Read of a file inside the project (boundary check with
//! path canonicalisation) and a Write through a symlinked directory.
//!
//! Run: `cargo run --release -p orbit-permissions --example decision_bench`
//! (results go to docs/PERFORMANCE.md).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use orbit_permissions::{
    PermissionConfig, PermissionDecision, PermissionMode, PermissionRequest, Policy,
};
use orbit_tool::CallFacts;

const PARTS: usize = 60;
const RUNS: usize = 2_000;

fn rules(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn time(runs: usize, mut f: impl FnMut()) -> (Duration, Duration) {
    let mut samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    samples.sort();
    (samples[runs / 2], samples[runs * 99 / 100])
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("proj");
    std::fs::create_dir_all(root.join("src/deep/er")).unwrap();
    std::fs::create_dir_all(dir.path().join("outside")).unwrap();
    std::fs::write(root.join("src/deep/er/main.rs"), "fn main() {}").unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside"), root.join("link")).unwrap();
    let config = PermissionConfig {
        mode: PermissionMode::Default,
        allowed_tools: rules(&[
            "Bash(git status)",
            "Bash(git log:*)",
            "Bash(cargo test *)",
            "Bash(npm run test:*)",
            "Edit(./src/**)",
            "WebFetch(domain:docs.rs)",
        ]),
        disallowed_tools: rules(&[
            "Bash(rm:*)",
            "Bash(curl *)",
            "Read(./secrets/**)",
            "Read(~/.ssh/**)",
        ]),
        ask_tools: rules(&["Bash(git push:*)"]),
        headless: false,
        home: Some(PathBuf::from("/home/bench")),
    };
    let policy = Policy::new(&config, &root);
    let parts = ["git status", "git log -1 --oneline", "cargo test -p x"];
    let separators = [" && ", "; ", " | "];
    let mut command = String::new();
    for i in 0..PARTS {
        if i > 0 {
            command.push_str(separators[i % 3]);
        }
        command.push_str(parts[i % 3]);
    }
    let roots = [root.clone()];
    let cases: Vec<(&str, &str, CallFacts)> = vec![
        (
            "Bash, 60-part compound command (allowed)",
            "Bash",
            CallFacts {
                command: Some(command.clone()),
                ..CallFacts::default()
            },
        ),
        (
            "Read inside the project",
            "Read",
            CallFacts {
                read_only: true,
                reads: vec![root.join("src/deep/er/main.rs")],
                ..CallFacts::default()
            },
        ),
        (
            "Write through a symlinked dir (asks)",
            "Write",
            CallFacts {
                writes: vec![root.join("link/new.txt")],
                ..CallFacts::default()
            },
        ),
    ];
    println!(
        "rules: {} allow, {} deny, {} ask; {RUNS} runs each",
        6, 4, 1
    );
    for (name, tool, facts) in &cases {
        let request = PermissionRequest {
            tool_name: tool,
            facts,
            cwd: &root,
            roots: &roots,
        };
        let decision = policy.decide(&request);
        let (median, p99) = time(RUNS, || {
            std::hint::black_box(policy.decide(&request));
        });
        let kind = match decision {
            PermissionDecision::Allow => "allow",
            PermissionDecision::Ask { .. } => "ask",
            PermissionDecision::Deny { .. } => "deny",
        };
        println!("{name}: {kind}; median {median:?}, p99 {p99:?}");
    }
}
