//! The accept loop: one hyper connection task per socket, hardened with a header-read timeout
//! and a head size limit, until SIGTERM or SIGINT. hyper-util's `auto` builder reads the first
//! bytes of each connection: the HTTP/2 preface means h2c with prior knowledge, anything else
//! HTTP/1.1, so one process serves both protocols on one port (restbench's `h1` and `h2c`).

use std::sync::Arc;
use std::time::Duration;

use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
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

    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .max_buf_size(MAX_HEAD_BYTES)
        // One buffer and one plain write per answer instead of a queue of buffers written
        // with writev: our answers are small, so copying the body is cheaper than the queue.
        .writev(false);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_header_list_size(MAX_HEAD_BYTES as u32);
    let http = Arc::new(builder);

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
        let http = http.clone();
        tokio::spawn(async move {
            let connection = http.serve_connection(
                TokioIo::new(stream),
                service_fn(move |request| routes::handle(request, state.clone())),
            );
            // A client error (reset, timeout, bad request) only ends its own connection.
            let _ = connection.await;
        });
    }
}
