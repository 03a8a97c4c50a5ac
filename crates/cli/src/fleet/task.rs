//! The task list: one JSON object per non-blank line, read untrusted
//! (regular file, capped at [`TASK_FILE_MAX_BYTES`]); task N is the N-th
//! non-blank line, from 0. Each task's session id is a UUID derived from
//! the file's SHA-256 and N, so a retry of the same index with the same
//! file finds the same session; each prompt becomes one `orbit -p
//! --output-format json` command line ([`Task::orbit_flags`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// The largest task file read (a list of 100,000 tasks of 600 bytes).
pub(crate) const TASK_FILE_MAX_BYTES: usize = 64 * 1024 * 1024;

/// The variable a Kubernetes Indexed Job sets in each pod.
pub(crate) const INDEX_VAR: &str = "JOB_COMPLETION_INDEX";

/// One line of the task list (docs/FLEET.md lists the fields).
/// Every field may be left out.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Task {
    /// A name for the reports (default: `task-N`).
    pub id: Option<String>,
    /// The prompt.
    pub prompt: Option<String>,
    /// Several prompts, run in order in the one session.
    pub prompts: Vec<String>,
    /// The working directory (relative to the task file's directory).
    pub dir: Option<String>,
    /// A git repository cloned into `WORK/task-N` (unless already there).
    pub repo: Option<String>,
    /// The branch or tag of `repo` to clone.
    #[serde(rename = "ref")]
    pub git_ref: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--provider`.
    pub provider: Option<String>,
    /// `--permission-mode`.
    #[serde(alias = "permissionMode")]
    pub permission_mode: Option<String>,
    /// `--allowedTools`.
    #[serde(alias = "allowedTools")]
    pub allowed_tools: Vec<String>,
    /// `--disallowedTools`.
    #[serde(alias = "disallowedTools")]
    pub disallowed_tools: Vec<String>,
    /// `--max-turns`.
    #[serde(alias = "maxTurns")]
    pub max_turns: Option<u32>,
    /// `--max-budget-usd`.
    #[serde(alias = "maxBudgetUsd")]
    pub max_budget_usd: Option<f64>,
    /// `--append-system-prompt`.
    #[serde(alias = "appendSystemPrompt")]
    pub append_system_prompt: Option<String>,
    /// Any other `orbit` flags, verbatim.
    pub args: Vec<String>,
}

/// Flags the runner sets itself: a task may not give them in `args`.
const RESERVED_FLAGS: &[&str] = &[
    "-p",
    "--print",
    "--output-format",
    "--input-format",
    "--resume",
    "-r",
    "--continue",
    "-c",
    "--session-id",
    "--fork-session",
    "--no-session-persistence",
    "--cwd",
];

/// Task N of a task file, with what identifies it.
#[derive(Debug)]
pub(crate) struct Picked {
    /// The task.
    pub task: Task,
    /// N.
    pub index: usize,
    /// The session id every attempt of this task into this output
    /// directory uses.
    pub session_id: String,
    /// Hex SHA-256 of the task file.
    pub file_sha256: String,
    /// The task file's directory (what a relative `dir` is relative to).
    pub base: PathBuf,
}

/// The index from the flag, else from `JOB_COMPLETION_INDEX`.
pub(crate) fn index(flag: Option<&str>, env_value: Option<&str>) -> anyhow::Result<usize> {
    let (value, source) = match (flag, env_value) {
        (Some(v), _) => (v, "--index"),
        (None, Some(v)) => (v, INDEX_VAR),
        (None, None) => bail!("no task index: pass --index N or set {INDEX_VAR} (from 0)"),
    };
    value
        .trim()
        .parse::<usize>()
        .map_err(|_| anyhow::anyhow!("{source} must be a task number from 0, got `{value}`"))
}

/// Reads the task file and picks task `index`, whose results go to the
/// (existing) directory `out`.
pub(crate) fn pick(file: &Path, out: &Path, index: usize) -> anyhow::Result<Picked> {
    let opts = orbit_untrusted::ReadOpts::user_named(TASK_FILE_MAX_BYTES).refuse_over_cap();
    let read = orbit_untrusted::read_untrusted(file, &opts)
        .map_err(|e| anyhow::anyhow!("task file {}: {}", file.display(), e))?;
    let file_sha256 = hex(&Sha256::digest(&read.bytes));
    let text = std::str::from_utf8(&read.bytes)
        .with_context(|| format!("task file {} is not UTF-8", file.display()))?;
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let Some(&(line_no, line)) = lines.get(index) else {
        let range = match lines.len() {
            0 => "it has no tasks".to_string(),
            n => format!(
                "it has {n} task{} (0–{})",
                if n == 1 { "" } else { "s" },
                n - 1
            ),
        };
        bail!(
            "task index {index} is out of range for {}: {range}",
            file.display()
        );
    };
    let task: Task = serde_json::from_str(line).map_err(|e| {
        anyhow::anyhow!(
            "{} line {} (task {index}) is not a task: {e}",
            file.display(),
            line_no + 1
        )
    })?;
    task.check()
        .with_context(|| format!("{} line {} (task {index})", file.display(), line_no + 1))?;
    let base = read
        .target
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let out = out
        .canonicalize()
        .with_context(|| format!("the output directory {}", out.display()))?;
    Ok(Picked {
        session_id: session_id(&file_sha256, &out, index),
        task,
        index,
        file_sha256,
        base,
    })
}

/// The session id of task `index` of the file with this SHA-256, written
/// to the output directory `out` (canonical): a UUID (version 5 shape)
/// from SHA-256 over the three, so the same list run twice into two
/// directories gives two sessions.
pub(crate) fn session_id(file_sha256: &str, out: &Path, index: usize) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"orbit-task\0");
    hasher.update(file_sha256.as_bytes());
    hasher.update(b"\0");
    hasher.update(out.as_os_str().as_encoded_bytes());
    hasher.update(format!("\0{index}").as_bytes());
    let digest = hasher.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_sha1_bytes(bytes)
        .into_uuid()
        .hyphenated()
        .to_string()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Task {
    /// The prompts in order.
    pub(crate) fn all_prompts(&self) -> Vec<String> {
        self.prompt
            .iter()
            .chain(self.prompts.iter())
            .cloned()
            .collect()
    }

    fn check(&self) -> anyhow::Result<()> {
        let prompts = self.all_prompts();
        if prompts.is_empty() {
            bail!("no `prompt` (or `prompts`)");
        }
        if prompts.iter().any(|p| p.trim().is_empty()) {
            bail!("an empty prompt");
        }
        if self.dir.is_some() && self.repo.is_some() {
            bail!("`dir` and `repo` both given: use one");
        }
        if self.git_ref.is_some() && self.repo.is_none() {
            bail!("`ref` needs `repo`");
        }
        if let Some(flag) = self.args.iter().find(|a| {
            let name = a.split('=').next().unwrap_or(a);
            RESERVED_FLAGS.contains(&name)
        }) {
            bail!("`args` may not contain {flag} (orbit task run sets it)");
        }
        Ok(())
    }

    /// The task's own `orbit` flags (model, permissions, limits, `args`).
    pub(crate) fn orbit_flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        let mut push = |name: &str, value: Option<String>| {
            if let Some(value) = value {
                flags.push(name.to_string());
                flags.push(value);
            }
        };
        push("--model", self.model.clone());
        push("--provider", self.provider.clone());
        push("--permission-mode", self.permission_mode.clone());
        push("--max-turns", self.max_turns.map(|n| n.to_string()));
        push(
            "--max-budget-usd",
            self.max_budget_usd.map(|n| n.to_string()),
        );
        push("--append-system-prompt", self.append_system_prompt.clone());
        push(
            "--allowedTools",
            (!self.allowed_tools.is_empty()).then(|| self.allowed_tools.join(",")),
        );
        push(
            "--disallowedTools",
            (!self.disallowed_tools.is_empty()).then(|| self.disallowed_tools.join(",")),
        );
        flags.extend(self.args.iter().cloned());
        flags
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_uuids_stable_per_file_and_index() {
        let out = Path::new("/results");
        let a = session_id("ab", out, 3);
        assert!(orbit_session::is_valid_session_id(&a), "{a}");
        assert_eq!(a, session_id("ab", out, 3));
        assert_ne!(a, session_id("ab", out, 4));
        assert_ne!(a, session_id("ac", out, 3));
        assert_ne!(a, session_id("ab", Path::new("/other"), 3));
    }

    #[test]
    fn index_from_flag_then_env() {
        assert_eq!(index(Some("2"), Some("5")).unwrap(), 2);
        assert_eq!(index(None, Some("5")).unwrap(), 5);
        assert!(index(None, None).is_err());
        let err = index(None, Some("x")).unwrap_err().to_string();
        assert!(err.contains(INDEX_VAR), "{err}");
    }

    /// Every field may be left out; each flag field also takes Claude
    /// Code's camelCase name; an unknown field is refused.
    #[test]
    fn fields_default_take_camel_case_and_refuse_unknown_ones() {
        let task: Task = serde_json::from_str(r#"{"prompt":"x"}"#).unwrap();
        assert!(task.id.is_none() && task.prompts.is_empty() && task.orbit_flags().is_empty());
        let line = r#"{"prompt":"x","maxTurns":3,"allowed_tools":["Read"],"permissionMode":"plan","ref":"v1"}"#;
        let task: Task = serde_json::from_str(line).unwrap();
        assert_eq!(task.git_ref.as_deref(), Some("v1"));
        assert_eq!(
            task.orbit_flags(),
            [
                "--permission-mode",
                "plan",
                "--max-turns",
                "3",
                "--allowedTools",
                "Read"
            ]
        );
        let unknown = serde_json::from_str::<Task>(r#"{"prompt":"x","turns":3}"#);
        assert!(unknown.is_err(), "{unknown:?}");
    }

    #[test]
    fn reserved_flags_are_refused() {
        let task: Task = serde_json::from_str(r#"{"prompt":"x","args":["--resume=1"]}"#).unwrap();
        assert!(task.check().is_err());
        let task: Task =
            serde_json::from_str(r#"{"prompt":"x","args":["--effort","low"]}"#).unwrap();
        assert!(task.check().is_ok());
        assert_eq!(task.orbit_flags(), ["--effort", "low"]);
    }
}
