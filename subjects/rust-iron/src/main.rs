//! restbench subject `rust-iron`: seed (d)'s Iron 0.6 service, done right: a release
//! build and a router that answers unknown paths with 404. Iron runs hyper 0.10's
//! synchronous thread pool, one connection per thread at a time.

mod config;
mod db;
mod model;
mod routes;
mod tfb;

use std::process::ExitCode;
use std::time::Duration;

use config::Config;
use iron::{Iron, Timeouts};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rust-iron: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let config = Config::from_env()?;
    let state = routes::AppState::new(&config)?;
    let mut iron = Iron::new(routes::handler(state, config.static_dir.as_deref()));
    // WORKERS sets the handler threads; without it Iron keeps its default, 8 per CPU.
    if let Some(workers) = config.workers {
        iron.threads = workers;
    }
    iron.timeouts = Timeouts {
        keep_alive: Some(Duration::from_secs(5)),
        // Also bounds the wait for a request head (slowloris defence).
        read: Some(Duration::from_secs(10)),
        write: Some(Duration::from_secs(10)),
    };
    let threads = iron.threads;
    let _listening = iron
        .http(config.addr)
        .map_err(|e| format!("bind {}: {e}", config.addr))?;
    eprintln!("rust-iron listening on http://{} with {threads} threads", config.addr);
    // Dropping the guard joins the server threads: serve until killed (SIGTERM/SIGINT
    // keep their default action, which ends the process).
    Ok(())
}
