//! restbench subject `rust-hyper`: the contract served with hyper 1.x directly,
//! without a framework: one `service_fn`, an HTTP/1 connection builder per socket.

mod config;
mod db;
mod model;
mod routes;
mod tfb;
mod server;

use std::process::ExitCode;

use config::Config;

/// mimalloc instead of glibc's malloc: hyper allocates a header map and body buffers for every
/// request, and echo a parsed document of a few dozen blocks; see README.md.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("rust-hyper: {e}");
            return ExitCode::FAILURE;
        }
    };
    let runtime = match runtime(config.workers) {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("rust-hyper: runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(server::run(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rust-hyper: {e}");
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
