//! `orbit task run` and `orbit task summary`: task N of a JSONL task list
//! as one headless session, for schedulers that start one process per
//! index (Kubernetes Indexed Jobs, CI matrices); docs/FLEET.md is the
//! user's guide.
//!
//! Data flow: [`task`] reads the task file (untrusted, capped), picks line
//! N (`--index`, else `JOB_COMPLETION_INDEX`), derives the session id from
//! the file's SHA-256 and N, and builds the `orbit -p` command lines;
//! [`run`] looks for that session's transcript (a retry), rewinds the
//! working tree and the conversation to before the first unfinished prompt
//! (`orbit_checkpoint::rewind_code`, `orbit_session::fork`), runs the
//! remaining prompts through the binary's own `-p --output-format json`
//! path (a child `orbit` per prompt, the environment snapshot passed
//! explicitly: the live block is scrubbed), and writes `OUT/task-N.json`
//! atomically with a copy of the transcript. [`summary`] folds an output
//! directory's result files into counts, cost and p50/p95 time.

mod run;
mod summary;
mod task;
mod term;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use orbit_config::Env;

#[derive(Debug, Parser)]
#[command(
    name = "orbit task",
    bin_name = "orbit task",
    about = "Run task N of a JSONL task list as a headless session, or summarise the results"
)]
struct TaskArgs {
    #[command(subcommand)]
    command: TaskCommand,
}

#[derive(Debug, Subcommand)]
enum TaskCommand {
    /// Run one task of the list and write OUT/task-N.json.
    Run(RunArgs),
    /// Solved and failed counts, cost and p50/p95 time of an output directory.
    Summary(SummaryArgs),
}

/// `orbit task run`'s flags.
#[derive(Debug, clap::Args)]
struct RunArgs {
    /// The task list: one JSON object per line (docs/FLEET.md).
    #[arg(long, value_name = "FILE")]
    tasks: PathBuf,
    /// Which task, from 0 (default: `JOB_COMPLETION_INDEX`).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    index: Option<String>,
    /// Where the result files go (created when missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Where a task without `dir` gets its working directory
    /// (`WORK/task-N`; default `OUT/work`).
    #[arg(long, value_name = "DIR")]
    work: Option<PathBuf>,
    /// More `orbit` flags for every task (after `--`: `-- --provider openai`).
    #[arg(last = true, value_name = "ORBIT_FLAGS")]
    orbit_flags: Vec<String>,
}

/// `orbit task summary`'s flags.
#[derive(Debug, clap::Args)]
struct SummaryArgs {
    /// The output directory of `orbit task run --out`.
    dir: PathBuf,
    /// One JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `orbit task …` when argv starts with `task`; None otherwise.
pub fn maybe_run_subcommand(env: &Env) -> Option<ExitCode> {
    let mut code = None;
    let ran = crate::subcommand::run("task", |args: TaskArgs| match args.command {
        TaskCommand::Run(args) => {
            code = Some(run::run(&args, env)?);
            Ok(())
        }
        TaskCommand::Summary(args) => summary::print(&args.dir, args.json),
    })?;
    // A task's own exit code (the scheduler retries a failed one).
    Some(match code {
        Some(c) if ran == ExitCode::SUCCESS => ExitCode::from(c),
        _ => ran,
    })
}
