//! The `orbit` binary: snapshot the environment → parse flags → resolve the
//! configuration once (`orbit_config`: flags > env > settings files) → build
//! the provider and the session ([`setup`]: system prompt, tools,
//! permissions; a new one, or one resumed from its transcript, see
//! [`sessions`]) → run
//! one headless turn through
//! `QueryEngine::submit_message` → print events in the chosen output format
//! → exit 0 (success), 1 (any error), 130 (interrupted) or 141 (stdout
//! closed: the run stops before any further tool runs, see [`stdout_watch`]).
//!
//! Startup is kept cheap on purpose (target ≤ 10 ms to the first request
//! byte): no tree walks, no eager regex builds, a small runtime, a plain
//! level filter for logging ([`logging`]), only the settings files that
//! exist read (at most 8 opens, see [`configure::load`]).
//! Errors before the first model call print one `orbit: error: …` line.

mod agents;
mod args;
mod configure;
mod flag_values;
mod fleet;
mod hook_events;
mod hooks_cmd;
mod interactive;
mod libm_shim;
mod local;
mod logging;
mod mcp;
mod mcp_cmd;
mod mcp_serve;
mod output;
mod provider;
mod rewind;
mod sandbox;
mod scrub;
mod sdk_args;
mod sdk_init;
mod sdk_parse;
mod sessions;
mod setup;
mod signals;
mod stdin;
mod stdout_watch;
mod subcommand;
mod term_safe;

use std::io::ErrorKind;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::error::ErrorKind as ClapErrorKind;
use futures::StreamExt;
use orbit_config::Env;
use orbit_engine::AbortHandle;
use orbit_protocol::{EngineEvent, ResultSubtype};

use crate::args::Args;
use crate::output::{OutputWriter, one_line};
use crate::stdout_watch::{EXIT_STDOUT_CLOSED, STDOUT_CLOSED_LINE, StdoutState};
use crate::term_safe::eprintln_safe;

/// Exit code of any error result or failure before the run.
const EXIT_ERROR: u8 = 1;

fn main() -> ExitCode {
    // `orbit sandbox … -- CMD` (a command by hand; Bash calls are confined
    // in-process since issue 40): before any other set-up.
    let mut argv = std::env::args_os().skip(1);
    if argv
        .next()
        .is_some_and(|a| a == orbit_sandbox::HELPER_SUBCOMMAND)
    {
        let rest: Vec<_> = argv.collect();
        let code = orbit_sandbox::helper_main(&rest);
        return ExitCode::from(u8::try_from(code).unwrap_or(EXIT_ERROR));
    }
    // The one read of the process environment; everything below looks
    // values up in this snapshot.
    let env = Env::from_process();
    // Still single-threaded: the secrets' values leave the environment
    // block that /proc shows (orbit uses the snapshot from here on).
    scrub::scrub_environment_block(&orbit_config::tool_env_hidden(&env));
    // This binary runs `local serve` for the shared warm server, whatever
    // its file is called.
    orbit_local::keep::this_binary_serves();
    // `orbit local|sessions|rewind|hooks|trust|mcp|task …`: the first
    // that argv names runs.
    let subcommands: [fn(&Env) -> Option<ExitCode>; 6] = [
        local::maybe_run_subcommand,
        sessions::maybe_run_subcommand,
        rewind::maybe_run_subcommand,
        hooks_cmd::maybe_run_subcommand,
        mcp_cmd::maybe_run_subcommand,
        fleet::maybe_run_subcommand,
    ];
    if let Some(code) = subcommands.iter().find_map(|run| run(&env)) {
        return code;
    }
    // An SDK session skips options orbit does not know, one note each.
    let args = match sdk_parse::parse_args(std::env::args_os()) {
        Ok((args, skipped)) => {
            for note in skipped {
                eprintln_safe!("{note}");
            }
            args
        }
        Err(err) => return clap_exit(&err),
    };
    // `-d FILTER` (Claude Code's categories) stands for an env-filter;
    // ORBIT_LOG wins over it.
    let debug_filter = match args.debug_filter() {
        Ok(filter) => filter,
        Err(name) => {
            eprintln_safe!(
                "orbit: error: --debug: `{name}` is not a category (api, hooks, mcp, permissions, tools, sandbox, session, config, engine, sdk) nor an orbit crate"
            );
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let log_options = logging::LogOptions {
        debug: args.debug.is_some(),
        debug_file: args.debug_file.as_deref(),
        filter: env
            .get(orbit_config::vars::ORBIT_LOG)
            .or(debug_filter.as_deref()),
    };
    if let Err(err) = logging::init(log_options) {
        eprintln_safe!("orbit: error: {}", one_line(&format!("{err:#}")));
        return ExitCode::from(EXIT_ERROR);
    }
    // One runtime thread: the loop, the model stream and async tools are I/O
    // bound; blocking tool work runs on tokio's blocking pool. This measured
    // ~2 ms faster to the first request and ~0.3 ms shorter per turn than a
    // 2-worker runtime (fewer threads to start, no cross-thread wake-ups).
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln_safe!("orbit: error: cannot start the async runtime: {err}");
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let code = match runtime.block_on(run(args, env)) {
        Ok(code) => code,
        Err(err) => {
            eprintln_safe!("orbit: error: {}", one_line(&format!("{err:#}")));
            EXIT_ERROR
        }
    };
    // Tools may leave tasks behind (e.g. background shells); do not wait.
    runtime.shutdown_background();
    ExitCode::from(code)
}

/// `--help`/`--version` print and exit 0; usage errors print one line and
/// exit 1 (not clap's 2), matching "exit 1 on any error".
fn clap_exit(err: &clap::Error) -> ExitCode {
    match err.kind() {
        ClapErrorKind::DisplayHelp | ClapErrorKind::DisplayVersion => {
            let _ = err.print();
            ExitCode::SUCCESS
        }
        _ => {
            let rendered = err.to_string();
            let text: Vec<&str> = rendered
                .lines()
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            let text = text.join(" ");
            let text = text.strip_prefix("error: ").unwrap_or(&text);
            eprintln_safe!("orbit: error: {text} (see `orbit --help`)");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

async fn run(mut args: Args, env: Env) -> anyhow::Result<u8> {
    orbit_model::tls::ensure_crypto_provider();
    // No -p and no SDK input: the interactive terminal UI.
    if args.print.is_none() && !args.sdk.stream_input() {
        return interactive::run(args, env).await;
    }
    // With `--input-format stream-json` the prompts come as JSON lines
    // (an SDK session, see `orbit_sdk::run_session`).
    let prompt = if args.sdk.stream_input() {
        if args.output_format != args::OutputFormat::StreamJson {
            bail!("--input-format stream-json needs --output-format stream-json");
        }
        None
    } else {
        Some(args.prompt()?)
    };
    for note in args.sdk.notes() {
        eprintln_safe!("{note}");
    }
    let control = orbit_sdk::Control::default();
    let prompt_tool = args.sdk.prompt_tool().map(orbit_sdk::PromptTool::new);
    let approver = match &prompt_tool {
        Some(tool) => Some(orbit_engine::SharedApprover(std::sync::Arc::new(
            tool.clone(),
        ))),
        None => (args.sdk.stream_input() && args.sdk.asks_over_stdio())
            .then(|| orbit_engine::SharedApprover(std::sync::Arc::new(control.approver()))),
    };
    // An SDK session: the SDK's `initialize` (its hooks) comes first.
    let mut incoming = args.sdk.stream_input().then(|| control.spawn_reader());
    let mut extras = setup::SdkExtras::default();
    let mut first = None;
    let mut not_honoured: Vec<String> = args
        .sdk
        .not_honoured()
        .iter()
        .map(|f| f.to_string())
        .collect();
    if let Some(rx) = incoming.as_mut() {
        let commands = setup::initialize_commands(&args, &env);
        let shake =
            orbit_sdk::handshake_with_commands(&control, rx, &args.sdk.agent_names()?, commands)
                .await?;
        if let Some(request) = &shake.request {
            sdk_init::fold(&mut args, request);
        }
        for note in sdk_init::notes(&shake.not_honoured) {
            eprintln_safe!("{note}");
        }
        not_honoured.extend(shake.not_honoured.iter().map(|n| format!("initialize.{n}")));
        first = shake.first;
        extras.hooks = shake.hooks;
        extras.callbacks = shake.callbacks;
        extras.agents = shake.agents;
        extras.agent_definitions = shake.request.as_ref().and_then(|r| r.agents.clone());
        extras.sdk_bridge = Some(shake.sdk_bridge);
    }
    let setup::Prepared {
        mut engine,
        mut init,
        commands,
        default_max_turns,
        mcp,
        ..
    } = match incoming {
        Some(_) => setup::prepare_with(&args, &env, approver, extras)?,
        None => setup::prepare(&args, &env, approver)?,
    };
    let agents = init.agents.clone();
    if let Some(tool) = &prompt_tool {
        tool.attach(engine.tools().clone(), engine.tool_context().clone());
    }
    let session_id = engine.session_id().to_string();
    let abort = engine.abort_handle();
    // A second Ctrl-C exits without running destructors: it kills the
    // session's background shells first.
    let before_exit = signals::kill_background_shells(engine.tool_context());
    signals::install(abort.clone(), before_exit).context("installing the Ctrl-C handler")?;

    // After the handlers: a closed stdout aborts, and an abort requested
    // before the turn starts cancels it.
    let stdout = StdoutState::watch(abort.clone());

    let mut writer = OutputWriter::new(
        args.output_format,
        args.verbose,
        session_id,
        std::io::stdout(),
        std::io::stderr(),
    )
    .with_partial_messages(args.sdk.include_partial_messages)
    .with_max_output_tokens(u64::from(engine.config().max_tokens))
    .with_context_window(engine.config().compact.context_window)
    .with_not_honoured(not_honoured);
    let mut write_failed = false;
    // The SDK's in-process MCP servers are connected in `system/init`.
    sdk_init::settle_sdk_servers(&args, mcp.as_deref(), &mut init.mcp_servers).await;
    if !stdout.is_closed()
        && let Err(err) = writer.init(init)
    {
        note_write_error(err, &mut write_failed, &stdout, &abort);
    }

    if let Some(incoming) = incoming {
        control.set_abort(abort.clone());
        let code = orbit_sdk::run_session(orbit_sdk::SessionParts {
            engine: &mut engine,
            writer: &mut writer,
            first,
            incoming,
            stdout: &stdout,
            replay_user_messages: args.sdk.replay_user_messages,
            agents,
            mcp: mcp.clone(),
            commands: &commands,
            bypass_allowed: sdk_parse::bypass_allowed(&args),
            file_checkpointing: env
                .flag(orbit_config::vars::CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING)
                .unwrap_or(false),
        })
        .await;
        engine.end_session("other").await;
        return Ok(code);
    }
    let Some(prompt) = prompt else {
        bail!("no prompt to run");
    };
    tracing::debug!(
        prompt_chars = prompt.chars().count(),
        "submitting the prompt"
    );
    let mut exit_code = None;
    // A built-in command (`/cost`, `/compact` …) runs here, no model
    // request; `/init` becomes its prompt.
    let prompt = match orbit_commands::local_command(&prompt) {
        Some(orbit_commands::LocalCommand::Prompt(text)) => text,
        Some(command) => {
            for event in engine.run_local_command(&command).await {
                match writer.event(&event) {
                    Ok(Some(code)) => exit_code = Some(code),
                    Ok(None) => {}
                    Err(err) => note_write_error(err, &mut write_failed, &stdout, &abort),
                }
            }
            engine.end_session("other").await;
            return Ok(exit_code.map_or(EXIT_ERROR, |c| u8::try_from(c).unwrap_or(EXIT_ERROR)));
        }
        None => prompt,
    };
    // `/name args` of a custom command expands (orbit-commands); a refused
    // `!`cmd`` or `@file` is one error line and nothing is sent.
    let plan = match commands.plan(&engine, &prompt).await {
        Ok(plan) => plan,
        Err(refusal) => {
            for note in &refusal.notes {
                eprintln_safe!("orbit: note: {note}");
            }
            let code = writer.event(&EngineEvent::Result(refusal.to_result()));
            engine.end_session("other").await;
            return Ok(code
                .ok()
                .flatten()
                .map_or(EXIT_ERROR, |c| u8::try_from(c).unwrap_or(EXIT_ERROR)));
        }
    };
    for note in &plan.notes {
        eprintln_safe!("orbit: note: {note}");
    }
    let previous_model = plan.apply_model(&mut engine);
    let mut prompt = Some(plan.prompt.clone());
    let mut interrupted = false;
    let tasks = orbit_tool::subagent::BackgroundTasks::of(engine.tool_context());
    // `--output-format json` is one document: a turn's result is held while
    // a background agent's notification may still start another turn
    // (Claude Code prints the last result only).
    let one_document = args.output_format == args::OutputFormat::Json;
    let mut held = None;
    // A listener of its own keeps a Ctrl-C that an ending turn consumed
    // until the wait for a background agent looks.
    let mut sigint = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok();
    while let Some(next) = prompt.take() {
        let mut events = engine.submit_message(next);
        while let Some(event) = events.next().await {
            if stdout.is_closed() {
                // Drain: the engine still ends the turn cleanly (tools cancelled,
                // history paired); nothing of it is printed.
                continue;
            }
            if let EngineEvent::Result(result) = &event {
                interrupted |= result.interrupted;
            }
            if matches!(event, EngineEvent::Result(_)) {
                held = None;
                if one_document && !tasks.idle() {
                    held = Some(event);
                    continue;
                }
            }
            match writer.event(&event) {
                Ok(Some(code)) => exit_code = Some(code),
                Ok(None) => {}
                Err(err) => note_write_error(err, &mut write_failed, &stdout, &abort),
            }
            if let (EngineEvent::Result(result), Some(max)) = (&event, default_max_turns)
                && result.subtype == ResultSubtype::ErrorMaxTurns
            {
                eprintln_safe!("orbit: {}", orbit::profile::max_turns_note(max));
            }
        }
        drop(events);
        // A background agent still running: the run waits for it, and its
        // notification is the next message (as Claude Code's `-p` does); an
        // interrupt stops them all instead.
        if !stdout.is_closed() && !write_failed && !interrupted {
            prompt = tokio::select! {
                notice = tasks.next_notice() => notice,
                () = interrupt_requested(&abort, &mut sigint) => None,
            };
        }
        if prompt.is_none() {
            tasks.stop_all().await;
            if let Some(event) = held.take() {
                exit_code = writer.event(&event).ok().flatten().or(exit_code);
            }
        }
    }
    plan.finish(&mut engine, previous_model);
    // SessionEnd hooks, after the result was written.
    engine.end_session("other").await;
    tracing::debug!(?exit_code, stdout_closed = stdout.is_closed(), "run ended");
    match exit_code {
        Some(_) if write_failed => Ok(EXIT_ERROR),
        // The result was delivered; a reader leaving afterwards is fine.
        Some(code) => Ok(u8::try_from(code).unwrap_or(EXIT_ERROR)),
        None if stdout.is_closed() => {
            eprintln_safe!("{STDOUT_CLOSED_LINE}");
            Ok(EXIT_STDOUT_CLOSED)
        }
        None => bail!("the engine ended without a result"),
    }
}

/// Resolves once an interrupt is pending (Ctrl-C between turns, while a
/// background agent runs, or received since the run began) or the run was
/// aborted (stdout closed).
async fn interrupt_requested(
    abort: &AbortHandle,
    sigint: &mut Option<tokio::signal::unix::Signal>,
) {
    loop {
        let signalled = sigint
            .as_mut()
            .is_some_and(|s| futures::FutureExt::now_or_never(s.recv()).is_some());
        if signalled || abort.is_aborted() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(INTERRUPT_POLL_MS)).await;
    }
}

/// How often the wait for a background agent looks for an interrupt.
const INTERRUPT_POLL_MS: u64 = 50;

/// stdout is gone or failing: nobody reads the output any more, so stop the
/// run instead of spending tokens and tool time on it. A closed pipe is
/// reported once at the end ([`STDOUT_CLOSED_LINE`]); another error at once.
fn note_write_error(
    err: std::io::Error,
    write_failed: &mut bool,
    stdout: &StdoutState,
    abort: &AbortHandle,
) {
    if err.kind() == ErrorKind::BrokenPipe {
        stdout.mark_closed();
        return;
    }
    if *write_failed {
        return;
    }
    *write_failed = true;
    abort.abort();
    eprintln_safe!("orbit: error: writing output: {err}");
}
