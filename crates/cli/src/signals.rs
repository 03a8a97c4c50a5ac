//! Ctrl-C in headless mode (L5): the first SIGINT asks the engine to stop
//! (its abort handle cancels running tools; the run still ends with a
//! `result`, exit code 130); a second SIGINT exits with 130 at once.
//!
//! The handler is registered synchronously before the run starts, so an
//! early Ctrl-C never falls through to the default "terminate" action.

use orbit_engine::AbortHandle;

/// Exit code after an interrupt (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: i32 = 130;

/// Installs the SIGINT handler on the current runtime.
pub fn install(abort: AbortHandle) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut sigint = signal(SignalKind::interrupt())?;
        tokio::spawn(async move {
            if sigint.recv().await.is_none() {
                return;
            }
            abort.abort();
            if sigint.recv().await.is_some() {
                std::process::exit(EXIT_INTERRUPTED);
            }
        });
    }
    #[cfg(not(unix))]
    {
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_err() {
                return;
            }
            abort.abort();
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(EXIT_INTERRUPTED);
            }
        });
    }
    Ok(())
}
