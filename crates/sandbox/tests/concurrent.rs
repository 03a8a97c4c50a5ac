//! The `pre_exec` path under load: 100 sandboxed commands spawned at once
//! from many threads of one process (while other threads allocate), each
//! confined and correct — no deadlock after fork, no crossed policies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use orbit_sandbox::{Sandbox, SandboxMode, SandboxPolicy, Support};

/// Sandboxed commands started at once.
const CONCURRENT_CALLS: usize = 100;
/// Threads spawning them.
const SPAWNING_THREADS: usize = 20;
/// The whole run must end well within this (a deadlocked child never exits).
const DEADLINE_MS: u64 = 60_000;

/// One call: writes its own file in the workspace, fails to write outside
/// it, writes into its temp dir, and prints the outcomes.
fn run_one(sandbox: &Sandbox, ws: &Path, outside: &Path, n: usize) -> String {
    let script = format!(
        "echo {n} > call-{n}.txt && echo wrote; echo x > {}/escape-{n} 2>/dev/null && echo ESCAPED || echo denied; touch \"$TMPDIR/t-{n}\" && echo tmp",
        outside.display()
    );
    let mut cmd = Command::new("bash");
    cmd.arg("-c").arg(script).current_dir(ws);
    sandbox.confine(&mut cmd, ws).expect("prepare");
    let out = cmd.output().expect("spawn");
    assert!(out.status.success(), "{n}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn hundred_concurrent_sandboxed_calls_are_all_confined() {
    let support = Support::probe();
    if support.landlock_abi.is_none() || !support.seccomp {
        eprintln!("skipped: no Landlock or seccomp on this kernel");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (ws, outside, tmp) = (root.join("ws"), root.join("outside"), root.join("tmp"));
    for d in [&ws, &outside, &tmp] {
        std::fs::create_dir_all(d).unwrap();
    }
    let policy = SandboxPolicy {
        writable_roots: vec![ws.clone()],
        private_tmp: Some(tmp.clone()),
        ..SandboxPolicy::new(SandboxMode::WorkspaceWrite)
    };
    let namespace = orbit_sandbox::probe_namespace().is_ok();
    eprintln!("mount namespace: {namespace}");
    let sandbox = Arc::new(Sandbox::new(policy, namespace, None).unwrap());
    // Other threads allocate and free all along: a child forked while one
    // holds the allocator's lock must not need it.
    let stop = Arc::new(AtomicBool::new(false));
    let churn: Vec<_> = (0..2)
        .map(|_| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let v: Vec<String> = (0..256).map(|i| i.to_string()).collect();
                    std::hint::black_box(v);
                }
            })
        })
        .collect();
    let start = Instant::now();
    let per_thread = CONCURRENT_CALLS / SPAWNING_THREADS;
    let workers: Vec<_> = (0..SPAWNING_THREADS)
        .map(|t| {
            let (sandbox, ws, outside) = (Arc::clone(&sandbox), ws.clone(), outside.clone());
            std::thread::spawn(move || {
                (0..per_thread)
                    .map(|i| {
                        let n = t * per_thread + i;
                        (n, run_one(&sandbox, &ws, &outside, n))
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut results: Vec<(usize, String)> = workers
        .into_iter()
        .flat_map(|w| w.join().expect("worker"))
        .collect();
    stop.store(true, Ordering::Relaxed);
    for c in churn {
        c.join().unwrap();
    }
    assert!(
        start.elapsed() < Duration::from_millis(DEADLINE_MS),
        "took {:?}",
        start.elapsed()
    );
    results.sort();
    assert_eq!(results.len(), CONCURRENT_CALLS);
    for (n, out) in &results {
        assert_eq!(out, "wrote\ndenied\ntmp\n", "call {n}");
        // The temp dir is the session's (mounted over /tmp in the namespace).
        assert!(tmp.join(format!("t-{n}")).exists(), "call {n}");
        let written = std::fs::read_to_string(ws.join(format!("call-{n}.txt"))).unwrap();
        assert_eq!(written.trim(), n.to_string());
    }
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
}
