//! Ctrl-C, SIGTERM and SIGHUP (the terminal closed): the first asks the current work to stop and
//! keep what it has (a run finalises its results.json, `load` writes its --json, as
//! interrupted); a second Ctrl-C or SIGTERM exits at once. A second SIGHUP does not: a closing
//! terminal sends one to the foreground job and the shell sends another, a moment apart, and
//! neither is a user insisting.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// Installs the handlers and returns the flag they raise.
pub fn stop_flag() -> anyhow::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, 130, flag.clone())
            .context("cannot install signal handlers")?;
    }
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        signal_hook::flag::register(sig, flag.clone()).context("cannot install signal handlers")?;
    }
    Ok(flag)
}
