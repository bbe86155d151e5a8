//! The accept loop: one hyper HTTP/1 connection task per socket, hardened with a
//! header-read timeout and a head size limit, until SIGTERM or SIGINT.

use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::signal::unix::{signal, SignalKind};

use crate::config::Config;
use crate::routes::{self, AppState};

/// The whole request head must arrive within this time (slowloris defence).
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Largest read buffer, so the largest request head; bigger heads get 431.
const MAX_HEAD_BYTES: usize = 16 * 1024;

pub async fn run(config: Config) -> Result<(), String> {
    let state = Arc::new(AppState::new(&config)?);
    let listener = TcpListener::bind(config.addr)
        .await
        .map_err(|e| format!("bind {}: {e}", config.addr))?;
    eprintln!("rust-hyper listening on http://{}", config.addr);

    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .max_buf_size(MAX_HEAD_BYTES);

    let mut terminate = signal(SignalKind::terminate()).map_err(|e| e.to_string())?;
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Typically EMFILE: back off instead of spinning.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = terminate.recv() => return Ok(()),
            _ = tokio::signal::ctrl_c() => return Ok(()),
        };
        let _ = stream.set_nodelay(true);
        let state = state.clone();
        let connection = http.serve_connection(
            TokioIo::new(stream),
            service_fn(move |request| routes::handle(request, state.clone())),
        );
        tokio::spawn(async move {
            // A client error (reset, timeout, bad request) only ends its own connection.
            let _ = connection.await;
        });
    }
}
