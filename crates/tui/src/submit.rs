//! What a submission does besides a plain prompt: `@path` mentions (found
//! by the composer) attach
//! the file (as Claude Code does: a reminder saying the Read tool was
//! called, with its numbered lines), `!command` runs in `sh -c` in the
//! session's cwd (bounded by [`SHELL_TIMEOUT_MS`]; command and output join
//! the next prompt), `#note` is appended to the project memory file, and
//! `/init` becomes [`init_prompt`]: the model is asked to write the file
//! with its Write tool (the usual permission ask applies), as Claude
//! Code's `/init` does.

use std::path::{Path, PathBuf};
use std::time::Duration;

use orbit_untrusted::{ReadOpts, open_untrusted, read_untrusted};

/// Longest a `!command` may run.
pub(crate) const SHELL_TIMEOUT_MS: u64 = 120_000;
/// Largest file a mention attaches, in bytes (larger ones are cut).
const ATTACH_MAX_BYTES: usize = 256 * 1024;
/// Output of a `!command` kept for the model, in chars.
const SHELL_OUTPUT_MAX_CHARS: usize = 30_000;

/// The mentioned paths (the composer's `@path` mentions) that can be
/// attached: files inside the project (no `..`, no absolute path, no link
/// out of it).
pub(crate) fn attachable(mentions: &[PathBuf], cwd: &Path) -> Vec<PathBuf> {
    let root = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    mentions
        .iter()
        .filter(|rel| {
            let path = cwd.join(rel);
            path.is_file() && path.canonicalize().is_ok_and(|p| p.starts_with(&root))
        })
        .cloned()
        .collect()
}

/// `prompt` with each mentioned file attached.
pub(crate) fn with_attachments(prompt: &str, files: &[PathBuf], cwd: &Path) -> String {
    let mut out = prompt.to_string();
    for rel in files {
        let path = cwd.join(rel);
        // At most the cap is read, a regular file inside the project only.
        let Ok(file) = read_untrusted(&path, &ReadOpts::in_project(cwd, ATTACH_MAX_BYTES)) else {
            continue;
        };
        let cut = file.truncated;
        let text = file.text();
        let numbered: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, l)| format!("{:>6}→{l}", i + 1))
            .collect();
        let input = serde_json::json!({"file_path": path.display().to_string()});
        out.push_str(&format!(
            "\n\n<system-reminder>\nCalled the Read tool with the following input: {input}\nResult of calling the Read tool:\n{}{}\n</system-reminder>",
            numbered.join("\n"),
            if cut { "\n[file cut at 256 KiB]" } else { "" }
        ));
    }
    out
}

/// `/init`'s prompt in the UI: the headless one (`orbit_commands::INIT_PROMPT`)
/// plus where the file goes and that the Write tool writes it — a small
/// model otherwise answers with the file's text and writes nothing.
pub(crate) fn init_prompt(cwd: &Path) -> String {
    let file = cwd.join("CLAUDE.md");
    format!(
        "{}\n\nWrite the file with the Write tool (file_path: {}); if it exists, Read it first and write the improved version. Do not only show its content in your answer.",
        orbit_commands::INIT_PROMPT,
        file.display()
    )
}

/// A finished `!command`.
pub(crate) struct ShellRun {
    pub(crate) command: String,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) code: Option<i32>,
}

impl ShellRun {
    /// What the next prompt carries (Claude Code's bash-mode tags).
    pub(crate) fn context(&self) -> String {
        let cap = |s: &str| crate::wrap::truncate(s, SHELL_OUTPUT_MAX_CHARS);
        format!(
            "<bash-input>{}</bash-input>\n<bash-stdout>{}</bash-stdout><bash-stderr>{}</bash-stderr>",
            self.command,
            cap(self.stdout.trim_end()),
            cap(self.stderr.trim_end())
        )
    }
}

/// Runs `command` with `sh -c` in `cwd`; dropping the future kills it.
pub(crate) async fn run_shell(command: String, cwd: PathBuf) -> ShellRun {
    let child = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(&command)
        .current_dir(&cwd)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    match tokio::time::timeout(Duration::from_millis(SHELL_TIMEOUT_MS), child).await {
        Ok(Ok(out)) => ShellRun {
            command,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code(),
        },
        Ok(Err(err)) => ShellRun {
            command,
            stdout: String::new(),
            stderr: format!("could not run sh: {err}"),
            code: None,
        },
        Err(_) => ShellRun {
            command,
            stdout: String::new(),
            stderr: format!("timed out after {} s", SHELL_TIMEOUT_MS / 1000),
            code: None,
        },
    }
}

/// Appends `note` to CLAUDE.md or AGENTS.md in `cwd` (whichever exists,
/// else a new CLAUDE.md); returns the file's name. The file comes with the
/// project: only a regular file inside it is read (its last byte) and
/// written — never a FIFO, a device or a link out of the project.
pub(crate) fn append_note(cwd: &Path, note: &str) -> std::io::Result<String> {
    use std::io::{Read, Seek, SeekFrom, Write};
    use std::os::unix::fs::OpenOptionsExt;
    let name = ["CLAUDE.md", "AGENTS.md"]
        .into_iter()
        .find(|n| cwd.join(n).is_file())
        .unwrap_or("CLAUDE.md");
    let path = cwd.join(name);
    let (target, ends_in_newline) = match open_untrusted(&path, &ReadOpts::in_project(cwd, 1)) {
        Ok((mut file, meta, target)) => {
            let mut last = [b'\n'];
            if meta.len() > 0 {
                file.seek(SeekFrom::End(-1))?;
                file.read_exact(&mut last)?;
            }
            (target, last[0] == b'\n')
        }
        Err(err) if err.is_not_found() => (path, true),
        Err(err) => return Err(std::io::Error::other(format!("{name}: {err}"))),
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&target)?;
    let sep = if ends_in_newline { "" } else { "\n" };
    writeln!(file, "{sep}- {note}")?;
    Ok(name.to_string())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn attaches_files_inside_the_project_only() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("project");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("a.txt"), "x").unwrap();
        std::fs::write(root.path().join("outside.txt"), "x").unwrap();
        let mentioned: Vec<PathBuf> = [
            "a.txt",
            "missing.rs",
            "sub",
            "../outside.txt",
            "/etc/passwd",
        ]
        .into_iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(attachable(&mentioned, &dir), vec![PathBuf::from("a.txt")]);
    }

    #[test]
    fn notes_go_to_the_existing_memory_file() {
        let cases: [(&[&str], &str); 3] = [
            (&[], "CLAUDE.md"),
            (&["AGENTS.md"], "AGENTS.md"),
            (&["AGENTS.md", "CLAUDE.md"], "CLAUDE.md"),
        ];
        for (existing, want) in cases {
            let dir = tempfile::tempdir().unwrap();
            for name in existing {
                std::fs::write(dir.path().join(name), "# memory").unwrap();
            }
            assert_eq!(append_note(dir.path(), "use tabs").unwrap(), want);
            let text = std::fs::read_to_string(dir.path().join(want)).unwrap();
            assert!(
                text.ends_with("- use tabs\n") && !text.contains("memory- "),
                "{text:?}"
            );
        }
    }
}
