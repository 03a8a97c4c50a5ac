//! `orbit task run`: one task, one session, one result file.
//!
//! A first attempt starts session `S` (the task's derived id) with `orbit
//! -p - --output-format json --session-id S`, the prompt on stdin. A retry
//! finds S's transcript: the prompts that ended well (a `success` result
//! record, not interrupted) are finished; when a later one was cut off
//! (killed), interrupted or failed, the working
//! tree is rewound to that prompt's `before` checkpoint (forced: the
//! unfinished prompt's changes have no `after` checkpoint, so they look
//! "outside orbit"; the task's tree is the task's own) and the transcript
//! is cut right before it (the whole file kept under `forks/`), so a tool
//! call that ran but was never recorded is not run twice on top of its own
//! effect. The remaining prompts then go on with `--resume S`. Each prompt
//! is a child `orbit` process given the environment snapshot (the live
//! environment block has its secrets scrubbed); its stderr is passed
//! through, its stdout is the `json` result.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};
use orbit_checkpoint::Store;
use orbit_config::Env;
use serde_json::{Value, json};

use super::RunArgs;
use super::task::{self, INDEX_VAR, Picked};
use crate::term_safe::eprintln_safe;

/// Exit code written when a child `orbit` ended by a signal: 128 + signal.
const EXIT_SIGNAL_BASE: i32 = 128;

/// The largest result file read back (a retry's, the summary's).
const RESULT_FILE_MAX_BYTES: usize = 64 << 20;

/// Where a retry resumes, and what the rewind did.
struct ResumePoint {
    /// Prompts already finished (0-based index of the next one).
    finished: usize,
    /// Whether the session's transcript exists (then `--resume`).
    exists: bool,
    /// The rewind, when an unfinished prompt was cut off.
    rewound: Option<Value>,
}

/// One prompt's child run.
struct PromptRun {
    code: i32,
    result: Option<Value>,
}

/// Runs the task `args` name; returns the exit code to leave with (the
/// last prompt's).
pub(super) fn run(args: &RunArgs, env: &Env) -> anyhow::Result<u8> {
    let started = Instant::now();
    let index = task::index(args.index.as_deref(), env.get(INDEX_VAR))?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating the output directory {}", args.out.display()))?;
    let picked = task::pick(&args.tasks, &args.out, index)?;
    let result_path = args.out.join(format!("task-{index}.json"));
    let previous = previous_result(&result_path);
    if let Some(prev) = &previous
        && prev["session_id"] == picked.session_id.as_str()
        && prev["status"] == "solved"
    {
        eprintln_safe!(
            "orbit: task {index} was solved by an earlier attempt ({}); nothing to do",
            result_path.display()
        );
        return Ok(0);
    }
    let workdir = workdir(&picked, args)?;
    let data_dir = orbit_config::data_dir(env)?;
    let id = picked.session_id.clone();
    let point = resume_point(&data_dir, &id)?;
    if point.exists {
        eprintln_safe!(
            "orbit: task {index}: resuming session {id} after {} finished prompt(s){}",
            point.finished,
            if point.rewound.is_some() {
                "; the unfinished prompt's changes were rewound"
            } else {
                ""
            }
        );
    }
    let prompts = picked.task.all_prompts();
    let mut flags = args.orbit_flags.clone();
    flags.extend(picked.task.orbit_flags());
    let mut exists = point.exists;
    let mut runs = Vec::new();
    let running = super::term::forward_sigterm();
    for prompt in prompts.iter().skip(point.finished) {
        let run = run_prompt(env, &workdir, &id, exists, prompt, &flags, &running)?;
        exists = true;
        let failed = run.code != 0;
        runs.push(run);
        if failed {
            break;
        }
    }
    let code = runs.last().map_or(0, |r| r.code);
    let transcript = orbit_session::find_anywhere(&data_dir, &id)?;
    let copy = match &transcript {
        Some(path) => Some(copy_transcript(path, &args.out, index)?),
        None => None,
    };
    let attempt = previous
        .as_ref()
        .and_then(|p| p["attempt"].as_u64())
        .map_or(1 + u64::from(point.exists), |a| a + 1);
    let record = result_record(ResultParts {
        picked: &picked,
        runs: &runs,
        code,
        prompts: prompts.len(),
        point: &point,
        attempt,
        workdir: &workdir,
        transcript: transcript.as_deref(),
        copy: copy.as_deref(),
        wall_ms: started.elapsed().as_millis(),
        max_rss_kib: children_max_rss_kib(),
    });
    write_atomic(&result_path, &serde_json::to_vec_pretty(&record)?)?;
    Ok(u8::try_from(code).unwrap_or(1))
}

fn previous_result(path: &Path) -> Option<Value> {
    read_result(path)
}

/// A result file's JSON, read untrusted (the output directory is often a
/// shared volume: a FIFO or a huge file there must not hang or fill the
/// runner); None when it is missing, refused or not JSON.
pub(super) fn read_result(path: &Path) -> Option<Value> {
    let opts = orbit_untrusted::ReadOpts::user_file(RESULT_FILE_MAX_BYTES).refuse_over_cap();
    let read = orbit_untrusted::read_untrusted(path, &opts).ok()?;
    serde_json::from_slice(&read.bytes).ok()
}

/// The task's working directory (canonical): `dir` relative to the task
/// file, a clone of `repo`, or a fresh `WORK/task-N`.
fn workdir(picked: &Picked, args: &RunArgs) -> anyhow::Result<PathBuf> {
    let work = args.work.clone().unwrap_or_else(|| args.out.join("work"));
    let own = work.join(format!("task-{}", picked.index));
    let dir = match (&picked.task.dir, &picked.task.repo) {
        (Some(dir), _) => picked.base.join(dir),
        (None, Some(repo)) => {
            if !own.join(".git").exists() {
                clone(repo, picked.task.git_ref.as_deref(), &own)?;
            }
            own
        }
        (None, None) => {
            std::fs::create_dir_all(&own).with_context(|| format!("creating {}", own.display()))?;
            own
        }
    };
    dir.canonicalize()
        .with_context(|| format!("the task's directory {}", dir.display()))
}

fn clone(repo: &str, git_ref: Option<&str>, into: &Path) -> anyhow::Result<()> {
    let partial = into.with_extension("cloning");
    let _ = std::fs::remove_dir_all(&partial);
    let mut cmd = Command::new("git");
    cmd.arg("clone").arg("--quiet");
    if let Some(r) = git_ref {
        cmd.arg("--branch").arg(r);
    }
    let status = cmd
        .arg("--")
        .arg(repo)
        .arg(&partial)
        .stdin(Stdio::null())
        .status()
        .context("running git clone")?;
    if !status.success() {
        bail!("git clone {repo} failed ({status})");
    }
    std::fs::rename(&partial, into)
        .with_context(|| format!("moving the clone to {}", into.display()))
}

/// Finds the session's transcript and, when its last prompt was cut off,
/// rewinds the tree and the conversation to before it.
fn resume_point(data_dir: &Path, id: &str) -> anyhow::Result<ResumePoint> {
    let Some(path) = orbit_session::find_anywhere(data_dir, id)? else {
        return Ok(ResumePoint {
            finished: 0,
            exists: false,
            rewound: None,
        });
    };
    let marks = orbit_session::fork::prompts(&path)?;
    let finished = finished_prompts(&path)?;
    if marks.len() <= finished {
        return Ok(ResumePoint {
            finished,
            exists: true,
            rewound: None,
        });
    }
    let to = u32::try_from(finished + 1).context("too many prompts")?;
    let header = orbit_session::load(&path, "")
        .with_context(|| format!("session {id}"))?
        .header;
    let root = PathBuf::from(header.cwd);
    let mut store = Store::open(data_dir, &root, id);
    let report = orbit_checkpoint::rewind_code(&mut store, to, true)
        .with_context(|| format!("rewinding the files of session {id} to before prompt {to}"))?;
    let (_, name) = crate::rewind::rewind_conversation(data_dir, &root, id, &path, &mut store, to)?;
    Ok(ResumePoint {
        finished,
        exists: true,
        rewound: Some(json!({
            "to_before_prompt": to,
            "restored": report.restored,
            "removed": report.removed,
            "conversation_kept_in": name,
        })),
    })
}

/// How many of the transcript's prompts, from the first, ended well: a
/// `result` record of subtype `success`, not interrupted. A prompt that
/// was interrupted (Ctrl-C, SIGTERM) or ended in an error is done again
/// by the retry, like one that was cut off.
fn finished_prompts(path: &Path) -> anyhow::Result<usize> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the transcript {}", path.display()))?;
    Ok(text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|record| record["type"] == "result")
        .take_while(|record| record["subtype"] == "success" && record["interrupted"] != true)
        .count())
}

/// `orbit -p - --output-format json …` with the prompt on stdin.
fn run_prompt(
    env: &Env,
    workdir: &Path,
    id: &str,
    exists: bool,
    prompt: &str,
    flags: &[String],
    running: &super::term::RunningChild,
) -> anyhow::Result<PromptRun> {
    let exe = std::env::current_exe().context("finding the orbit binary")?;
    let mut cmd = Command::new(exe);
    cmd.env_clear()
        .envs(env.iter())
        .current_dir(workdir)
        .args(["-p", "-", "--output-format", "json"])
        .arg(if exists { "--resume" } else { "--session-id" })
        .arg(id)
        .arg("--cwd")
        .arg(workdir)
        .args(flags)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut child = cmd.spawn().context("starting orbit")?;
    running.set(Some(child.id()));
    if let Some(mut stdin) = child.stdin.take() {
        // A child that exits before reading gives EPIPE: its exit code says why.
        let _ = stdin.write_all(prompt.as_bytes());
    }
    let output = child.wait_with_output().context("waiting for orbit");
    running.set(None);
    let output = output?;
    let code = output.status.code().unwrap_or_else(|| {
        use std::os::unix::process::ExitStatusExt;
        EXIT_SIGNAL_BASE + output.status.signal().unwrap_or(0)
    });
    let result = serde_json::from_slice::<Value>(&output.stdout).ok();
    Ok(PromptRun { code, result })
}

fn copy_transcript(path: &Path, out: &Path, index: usize) -> anyhow::Result<String> {
    let name = format!("task-{index}.transcript.jsonl");
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    write_atomic(&out.join(&name), &bytes)?;
    Ok(name)
}

/// Writes `path` through a temporary file and a rename (a reader never
/// sees half a file).
fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .map_or_else(|| "result".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    let mut file =
        std::fs::File::create(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))
}

struct ResultParts<'a> {
    picked: &'a Picked,
    runs: &'a [PromptRun],
    code: i32,
    prompts: usize,
    point: &'a ResumePoint,
    attempt: u64,
    workdir: &'a Path,
    transcript: Option<&'a Path>,
    copy: Option<&'a str>,
    wall_ms: u128,
    max_rss_kib: Option<i64>,
}

/// The peak resident set of the largest process this run's children and
/// their waited-for descendants had (the child `orbit`, or a local
/// `llama-server` it started), in KiB (`getrusage(RUSAGE_CHILDREN)`).
fn children_max_rss_kib() -> Option<i64> {
    nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .ok()
        .map(|usage| usage.max_rss())
        .filter(|&kib| kib > 0)
}

/// The result file (docs/FLEET.md, "The result file").
fn result_record(p: ResultParts<'_>) -> Value {
    let last = p.runs.last().and_then(|r| r.result.clone());
    let field = |r: &PromptRun, name: &str| r.result.as_ref()?.get(name).cloned();
    let cost: f64 = p
        .runs
        .iter()
        .filter_map(|r| field(r, "total_cost_usd")?.as_f64())
        .sum();
    let turns: u64 = p
        .runs
        .iter()
        .filter_map(|r| field(r, "num_turns")?.as_u64())
        .sum();
    let is_error = last
        .as_ref()
        .and_then(|r| r["is_error"].as_bool())
        .unwrap_or(!p.runs.is_empty());
    let solved = p.code == 0 && !is_error;
    let task = &p.picked.task;
    json!({
        "index": p.picked.index,
        "id": task.id.clone().unwrap_or_else(|| format!("task-{}", p.picked.index)),
        "status": if solved { "solved" } else { "failed" },
        "exit_code": p.code,
        "cost_usd": cost,
        "duration_ms": p.wall_ms,
        "num_turns": turns,
        "max_rss_kib": p.max_rss_kib,
        "session_id": p.picked.session_id,
        "attempt": p.attempt,
        "resumed": p.point.exists,
        "rewound": p.point.rewound,
        "prompts": p.prompts,
        "prompts_run": p.runs.len(),
        "prompts_before": p.point.finished,
        "workdir": p.workdir,
        "transcript": p.copy,
        "transcript_source": p.transcript,
        "task_file_sha256": p.picked.file_sha256,
        "result": last,
    })
}
