//! restbench subject `rust-actix`: the contract on actix-web 4, whose workers each run
//! their own single-threaded runtime (`WORKERS` of them, else one per available CPU).

mod config;
mod db;
mod model;
mod routes;
mod tfb;

use std::process::ExitCode;
use std::time::Duration;

use actix_web::{web, App, HttpServer};
use config::Config;

/// The whole request head must arrive within this time (slowloris defence); answers 408.
const CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Seconds a graceful stop waits for in-flight requests after SIGTERM/SIGINT.
const SHUTDOWN_TIMEOUT_SECS: u64 = 2;

fn main() -> ExitCode {
    let result = Config::from_env().and_then(|config| {
        actix_web::rt::System::new().block_on(serve(config))
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rust-actix: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(config: Config) -> Result<(), String> {
    let state = web::Data::new(routes::AppState::new(&config)?);
    let static_dir = config.static_dir.clone();
    let mut server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .configure(|routes| routes::configure(routes, static_dir.as_deref()))
    })
    // Answers go out at once rather than waiting on Nagle's algorithm (the OS default).
    .tcp_nodelay(true)
    .client_request_timeout(CLIENT_REQUEST_TIMEOUT)
    .shutdown_timeout(SHUTDOWN_TIMEOUT_SECS);
    if let Some(workers) = config.workers {
        server = server.workers(workers);
    }
    // HTTP/1.1 and h2c (HTTP/2 with prior knowledge) on the one port: actix-web's documented
    // plaintext listener that picks the protocol by the connection preface, with the same
    // settings as `bind`.
    let server = server
        .bind_auto_h2c(config.addr)
        .map_err(|e| format!("bind {}: {e}", config.addr))?;
    eprintln!("rust-actix listening on http://{}", config.addr);
    // actix-web stops gracefully on SIGTERM and SIGINT by itself.
    server.run().await.map_err(|e| e.to_string())
}
