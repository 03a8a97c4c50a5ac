//! Where a sandboxed spawn's time goes (not a test): `bash -c true`
//! spawned N times plain, then through [`orbit_sandbox::Sandbox::confine`]
//! with and without the mount namespace, and [`orbit_sandbox::Sandbox::prepare`]
//! alone. Usage: `cargo run --release -p orbit-sandbox --example spawn_cost [N]`
//! in a workspace dir; `$HOME` as for orbit.
#![allow(clippy::unwrap_used, clippy::expect_used, unsafe_code)]

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use orbit_sandbox::{Sandbox, SandboxMode, SandboxPolicy};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    let cwd = std::env::current_dir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let policy = SandboxPolicy {
        writable_roots: vec![cwd.clone()],
        private_tmp: Some(tmp.path().to_path_buf()),
        ..SandboxPolicy::new(SandboxMode::WorkspaceWrite)
    };
    let with_ns = Sandbox::new(policy.clone(), true, home.clone()).unwrap();
    let without_ns = Sandbox::new(policy, false, home).unwrap();
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1000.0;
    let mut plain = Vec::new();
    let mut ns = Vec::new();
    let mut no_ns = Vec::new();
    let mut prepare = Vec::new();
    let mut forked = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let mut cmd = Command::new("bash");
        cmd.args(["-c", "true"]);
        // SAFETY: an empty hook: only makes std fork instead of posix_spawn.
        unsafe { cmd.pre_exec(|| Ok(())) };
        cmd.status().unwrap();
        forked.push(ms(t));
        let t = Instant::now();
        Command::new("bash").args(["-c", "true"]).status().unwrap();
        plain.push(ms(t));
        for (sandbox, out) in [(&with_ns, &mut ns), (&without_ns, &mut no_ns)] {
            let t = Instant::now();
            let mut cmd = Command::new("bash");
            cmd.args(["-c", "true"]);
            sandbox.confine(&mut cmd, &cwd).unwrap();
            assert!(cmd.status().unwrap().success());
            out.push(ms(t));
        }
        let t = Instant::now();
        drop(with_ns.prepare(&cwd).unwrap());
        prepare.push(ms(t));
    }
    let p = median(plain);
    println!("plain spawn           : {p:.3} ms");
    println!(
        "fork (empty pre_exec) : {:.3} ms (+{:.3})",
        median(forked.clone()),
        median(forked) - p
    );
    println!("prepare only          : {:.3} ms", median(prepare));
    println!(
        "confined, no namespace: {:.3} ms (+{:.3})",
        median(no_ns.clone()),
        median(no_ns) - p
    );
    println!(
        "confined, namespace   : {:.3} ms (+{:.3})",
        median(ns.clone()),
        median(ns) - p
    );
}
