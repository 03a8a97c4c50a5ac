//! What the binary benchmarks share: the binary to measure and the CI
//! venv's Python, a command optionally run under GNU time (peak RSS in KiB
//! written to a report file), the report's reading, and the `orbit`
//! command line every bench runs against a fake server.

// Each bench includes this file as its own module and uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The `orbit` binary to measure: the first argument, or the release build.
pub fn orbit_bin() -> PathBuf {
    std::env::args_os()
        .nth(1)
        .map_or_else(|| PathBuf::from("target/release/orbit"), PathBuf::from)
}

/// The Python that runs the MCP and SDK fixtures: the CI venv's, or
/// `ORBIT_MCP_PYTHON`.
pub fn python() -> String {
    std::env::var("ORBIT_MCP_PYTHON").unwrap_or_else(|_| {
        format!(
            "{}/.cache/orbit-ci/py/venv/bin/python",
            std::env::var("HOME").unwrap()
        )
    })
}

/// GNU time, for the peak RSS of a run.
pub const GNU_TIME: &str = "/usr/bin/time";

/// `program`, under GNU time writing its peak RSS (KiB) to `rss_report`
/// when one is given.
pub fn measured(program: &Path, rss_report: Option<&Path>) -> Command {
    match rss_report {
        Some(report) => {
            let mut c = Command::new(GNU_TIME);
            c.args(["-f", "%M", "-o"]).arg(report).arg(program);
            c
        }
        None => Command::new(program),
    }
}

/// The peak RSS (KiB) GNU time wrote to `report`.
pub fn rss_kib(report: &Path) -> u64 {
    std::fs::read_to_string(report)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Where a bench run of `orbit` lives: its cwd, `HOME` and `ORBIT_HOME`.
pub struct Dirs<'a> {
    pub cwd: &'a Path,
    pub home: &'a Path,
    pub orbit_home: &'a Path,
}

/// `orbit ARGS… --output-format stream-json` in `dirs` with a clean
/// environment but `PATH` and the fake server's variables, silent.
pub fn orbit(
    bin: &Path,
    server_env: Vec<(String, String)>,
    dirs: &Dirs<'_>,
    args: &[&str],
    rss_report: Option<&Path>,
) -> Command {
    let mut cmd = measured(bin, rss_report);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dirs.home)
        .env("ORBIT_HOME", dirs.orbit_home)
        .envs(server_env)
        .current_dir(dirs.cwd)
        .args(["--output-format", "stream-json"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// [`orbit`] with `dir` as cwd and `HOME`, and `ORBIT_HOME` at `dir/.orbit`.
pub fn orbit_in(
    bin: &Path,
    server_env: Vec<(String, String)>,
    dir: &Path,
    args: &[&str],
    rss_report: Option<&Path>,
) -> Command {
    let orbit_home = dir.join(".orbit");
    let dirs = Dirs {
        cwd: dir,
        home: dir,
        orbit_home: &orbit_home,
    };
    orbit(bin, server_env, &dirs, args, rss_report)
}
