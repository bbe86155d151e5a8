//! restbench subject `rust-reference`: the fastest correct HTTP/1.1 server we can write
//! for the contract's routes, to show the machine's ceiling. One single-threaded event
//! loop per worker, a hand-checked parser with pipelining, pre-encoded heads, a cached
//! `Date`, reused buffers, and per-thread PostgreSQL clients.

mod app;
mod config;
mod db;
mod http;
mod model;
mod tfb;
mod worker;

use std::net::{SocketAddr, TcpListener};
use std::process::ExitCode;
use std::sync::Arc;

use config::Config;
use socket2::{Domain, Socket, Type};
use tokio::signal::unix::{signal, SignalKind};

/// mimalloc instead of glibc's malloc: echo allocates its parsed document (a few dozen small
/// blocks) on every request, and glibc spent about 30,000 instructions per echo request in
/// malloc and free (`_int_malloc`, `_int_free`, `malloc_consolidate`); see README.md.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Most database clients per worker: more backends than cores only add contention.
const MAX_CLIENTS_PER_WORKER: usize = 2;
/// Connections the kernel queues before a worker accepts them: delay's load opens 10,000 at
/// once, and a full queue drops SYNs (the client retries after a second). The kernel caps it
/// at `net.core.somaxconn`.
const LISTEN_BACKLOG: i32 = 16 * 1024;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rust-reference: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let config = Config::from_env()?;
    let workers = config
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let database = match &config.database_url {
        Some(url) => {
            let mut pg: tokio_postgres::Config = url.parse().map_err(|e| format!("DATABASE_URL: {e}"))?;
            pg.connect_timeout(std::time::Duration::from_secs(2));
            // The server cancels a query stuck on a lock after 2 s, so the pipelined client is
            // free again (db::QUERY_TIMEOUT answers 503 on this side).
            pg.options("-c statement_timeout=2000");
            Some(pg)
        }
        None => None,
    };
    let shared = Arc::new(worker::Shared {
        todos: model::todos().into(),
        database,
        // DB_POOL_SIZE is the process's budget, split over the workers.
        clients: (config.pool_size / workers).clamp(1, MAX_CLIENTS_PER_WORKER),
        cache: Arc::new(tfb::WorldCache::new(10_000)),
        static_dir: config.static_dir.clone(),
        download: (0..http::parser::DOWNLOAD_MAX).map(|i| i as u8).collect(),
    });

    // Signals are registered before any worker accepts, so SIGTERM always exits cleanly.
    let signals = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .map_err(|e| format!("runtime: {e}"))?;
    let shutdown = signals.block_on(async {
        let mut terminate = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        std::io::Result::Ok(async move {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = interrupt.recv() => {}
            }
        })
    });
    let shutdown = shutdown.map_err(|e| format!("signals: {e}"))?;

    let listener = listen(config.addr).map_err(|e| format!("bind {}: {e}", config.addr))?;
    for index in 0..workers {
        let listener = listener.try_clone().map_err(|e| format!("listener: {e}"))?;
        worker::spawn(index, listener, shared.clone()).map_err(|e| format!("worker: {e}"))?;
    }
    eprintln!("rust-reference listening on http://{} with {workers} workers", config.addr);

    // Returning from main ends the worker threads with the process.
    signals.block_on(shutdown);
    Ok(())
}

/// One listening socket shared by all workers: each accepts when it has time, which
/// balances a few long-lived connections better than per-thread SO_REUSEPORT sockets.
fn listen(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    socket.set_reuse_address(true)?;
    socket.set_nonblocking(true)?;
    socket.bind(&addr.into())?;
    socket.listen(LISTEN_BACKLOG)?;
    Ok(socket.into())
}
