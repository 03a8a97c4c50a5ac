//! Diagnostics: the `tracing` subscriber (issue 9, item 19).
//!
//! | how | filter | format |
//! |-----|--------|--------|
//! | default | `warn` | `orbit: warning: MESSAGE fields…`, one line, no timestamp |
//! | `-d` / `--debug` | orbit's crates at `debug`, others at `warn` | uptime, level, target |
//! | `ORBIT_LOG=FILTER` | env-filter syntax (`orbit_model=trace`, `debug,h2=info`) | uptime, level, target |
//!
//! `ORBIT_LOG` wins over `-d` for the filter. Lines go to stderr, or with
//! `--debug-file PATH` (which implies `-d`) to that file, appended. While
//! the interactive UI runs, stderr is its pipe (`interactive`'s
//! `stderr_capture`): the lines show in its scrollback, colour removed. An
//! invalid `ORBIT_LOG` is reported by a warning and the default filter used.
//! `log` records of dependencies (reqwest, rustls) are forwarded too.
//!
//! Start-up cost matters (the CLI's start → first request byte is about
//! 7 ms): the default path builds no `EnvFilter` (no directive parsing), only
//! a level filter and a formatter. `examples/logging_init_bench.rs` measures
//! `init` in fresh processes: ≈ 36 µs median for the default set-up, ≈ 60 µs
//! with `ORBIT_LOG` (release build, 2 cores, while other builds ran).

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::IsTerminal;
use std::path::Path;
use std::sync::Mutex;

use anyhow::Context;
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::{EnvFilter, LevelFilter, Targets};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::Uptime;
use tracing_subscriber::fmt::writer::BoxMakeWriter;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::layer::{Layer, SubscriberExt};
use tracing_subscriber::registry::{LookupSpan, Registry};
use tracing_subscriber::util::SubscriberInitExt;

/// Env var with an env-filter directive list for orbit's log output.
pub const ENV_LOG: &str = orbit_config::vars::ORBIT_LOG;
/// Target prefix of orbit's own crates (`orbit_cli`, `orbit_engine`, …).
const ORBIT_TARGET_PREFIX: &str = "orbit";

/// What the flags ask of logging.
#[derive(Debug, Clone, Copy, Default)]
pub struct LogOptions<'a> {
    /// `-d` / `--debug`.
    pub debug: bool,
    /// `--debug-file PATH` (implies `debug`).
    pub debug_file: Option<&'a Path>,
    /// The `ORBIT_LOG` value (from the one environment snapshot); blank = unset.
    pub filter: Option<&'a str>,
}

/// Installs the global subscriber. Fails only when the debug file cannot be
/// opened.
pub fn init(options: LogOptions<'_>) -> anyhow::Result<()> {
    let debug = options.debug || options.debug_file.is_some();
    let env_filter = options.filter.filter(|v| !v.trim().is_empty());
    // Detailed lines (uptime, level, target) when debugging: `-d`,
    // `--debug-file` or a valid ORBIT_LOG; else the plain one-line format.
    let (writer, ansi) = match options.debug_file {
        Some(path) => (BoxMakeWriter::new(Mutex::new(open_log_file(path)?)), false),
        None => (
            BoxMakeWriter::new(std::io::stderr),
            std::io::stderr().is_terminal(),
        ),
    };
    let parsed = env_filter.map(|spec| {
        EnvFilter::builder()
            .parse(spec)
            .map_err(|err| format!("ignoring invalid {ENV_LOG} `{spec}`: {err}"))
    });
    let mut bad_filter = None;
    // Installing fails only when a subscriber is set already (never in the
    // binary); logging then goes there.
    let _ = match parsed {
        Some(Ok(filter)) => install(filter, true, writer, ansi),
        Some(Err(message)) => {
            bad_filter = Some(message);
            install(orbit_filter(debug), debug, writer, ansi)
        }
        None if debug => install(orbit_filter(true), true, writer, ansi),
        // The common path: a plain level filter, nothing parsed.
        None => install(LevelFilter::WARN, false, writer, ansi),
    };
    if let Some(message) = bad_filter {
        tracing::warn!("{message}");
    }
    Ok(())
}

/// orbit's crates at debug (`-d`) or warn, everything else at warn.
fn orbit_filter(debug: bool) -> Targets {
    let orbit = if debug {
        LevelFilter::DEBUG
    } else {
        LevelFilter::WARN
    };
    Targets::new()
        .with_default(LevelFilter::WARN)
        .with_target(ORBIT_TARGET_PREFIX, orbit)
}

fn open_log_file(path: &Path) -> anyhow::Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open the debug file {}", path.display()))
}

fn install<F>(
    filter: F,
    detailed: bool,
    writer: BoxMakeWriter,
    ansi: bool,
) -> Result<(), tracing_subscriber::util::TryInitError>
where
    F: Layer<Registry> + Send + Sync + 'static,
{
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(writer)
        .with_ansi(ansi);
    let registry = tracing_subscriber::registry().with(filter);
    if detailed {
        registry
            .with(layer.compact().with_timer(Uptime::default()))
            .try_init()
    } else {
        registry.with(layer.event_format(Plain)).try_init()
    }
}

/// The default format: `orbit: warning: MESSAGE key=value…`, like every
/// other line orbit writes on stderr.
struct Plain;

impl<S, N> FormatEvent<S, N> for Plain
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let level = match *event.metadata().level() {
            Level::ERROR => "error",
            Level::WARN => "warning",
            Level::INFO => "info",
            Level::DEBUG => "debug",
            Level::TRACE => "trace",
        };
        write!(writer, "orbit: {level}: ")?;
        ctx.field_format().format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}
