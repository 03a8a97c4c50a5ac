#![allow(clippy::unwrap_used)]
use orbit_test_support::{FakeAnthropic, Reply};
use serde_json::json;
use std::process::Command;
fn main() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeAnthropic::start(vec![Reply::tool_use("toolu_01", "Bash", json!({"command": "sleep 30"}))]);
    for fmt in ["text", "stream-json"] {
    let child = Command::new("/work/main/target/debug/orbit").env_clear().env("PATH", std::env::var_os("PATH").unwrap())
        .env("HOME", dir.path()).envs(server.env()).current_dir(dir.path()).args(["-p", "hi", "--allowedTools", "Bash", "--output-format", fmt])
        .stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    let out = child.wait_with_output().unwrap();
    println!("exit {:?}\nSTDOUT:\n{}STDERR:\n{}", out.status.code(), String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    server.push(Reply::tool_use("toolu_01", "Bash", json!({"command": "sleep 30"})));
    }
}
