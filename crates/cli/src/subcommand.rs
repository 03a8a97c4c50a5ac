//! Subcommands (`orbit local …`, `orbit sessions …`, `orbit rewind …`,
//! `orbit hooks …`, `orbit trust`, `orbit task …`): recognized by the
//! first argument and run before the normal flags are parsed, each with its
//! own clap parser; one exit convention for all, and one default
//! directory ([`dir_or_current`]).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;

/// Runs `run` on the subcommand's arguments when argv starts with `name`
/// and exits by [`exit`]'s convention; None when argv does not start with
/// `name`.
pub fn run<P: Parser>(name: &str, run: impl FnOnce(P) -> anyhow::Result<()>) -> Option<ExitCode> {
    Some(match parse::<P>(name)? {
        Ok(args) => exit(run(args)),
        Err(code) => code,
    })
}

/// The subcommand's arguments when argv starts with `name`; None when it
/// does not; `Err(code)` after clap printed help (0) or a usage error (1).
fn parse<P: Parser>(name: &str) -> Option<Result<P, ExitCode>> {
    let mut argv = std::env::args_os();
    let program = argv.next()?;
    if argv.next()? != name {
        return None;
    }
    Some(
        P::try_parse_from(std::iter::once(program).chain(argv)).map_err(|e| {
            let _ = e.print();
            ExitCode::from(u8::from(e.use_stderr()))
        }),
    )
}

/// Exit 0, or print `orbit: error: …` and exit 1.
fn exit(outcome: anyhow::Result<()>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::term_safe::eprintln_safe!("orbit: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// A subcommand's directory: `dir`, else the current directory; canonical.
pub fn dir_or_current(dir: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    let dir = match dir {
        Some(dir) => dir,
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    dir.canonicalize()
        .with_context(|| format!("directory {}", dir.display()))
}
