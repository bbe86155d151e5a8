//! restbench subject `rust-axum`: the contract as an axum `Router`, served by `axum::serve`.
//! With axum's `http1` and `http2` features `axum::serve` answers HTTP/1.1 and h2c (HTTP/2 with
//! prior knowledge) on the one port, telling them apart by the connection preface.

mod config;
mod db;
mod model;
mod routes;
mod tfb;

use std::process::ExitCode;
use std::sync::Arc;

use config::Config;
use tokio::signal::unix::{signal, SignalKind};

fn main() -> ExitCode {
    let result = Config::from_env().and_then(|config| {
        runtime(config.workers)
            .map_err(|e| format!("runtime: {e}"))?
            .block_on(serve(config))
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rust-axum: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `WORKERS=1` gets tokio's current-thread runtime (no work stealing), any other
/// count a multi-thread runtime of that size, and no `WORKERS` tokio's default.
fn runtime(workers: Option<usize>) -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = match workers {
        Some(1) => tokio::runtime::Builder::new_current_thread(),
        Some(n) => {
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            builder.worker_threads(n);
            builder
        }
        None => tokio::runtime::Builder::new_multi_thread(),
    };
    builder.enable_all().build()
}

async fn serve(config: Config) -> Result<(), String> {
    let state = Arc::new(routes::AppState::new(&config)?);
    let listener = tokio::net::TcpListener::bind(config.addr)
        .await
        .map_err(|e| format!("bind {}: {e}", config.addr))?;
    eprintln!("rust-axum listening on http://{}", config.addr);
    let listener = axum::serve::ListenerExt::tap_io(listener, |stream| {
        let _ = stream.set_nodelay(true);
    });
    axum::serve(listener, routes::router(state, config.static_dir.as_deref()))
        .with_graceful_shutdown(shutdown_signal())
        .await
        .map_err(|e| e.to_string())
}

/// Resolves on SIGTERM (the harness) or SIGINT (Ctrl-C).
async fn shutdown_signal() {
    match signal(SignalKind::terminate()) {
        Ok(mut terminate) => {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
