//! One worker: a thread with its own single-threaded tokio runtime, accepting from
//! the shared listener and serving each connection as a local task. Nothing is shared
//! between workers on the hot path (no locks, no work stealing).

use std::net::TcpListener;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use tokio::task::{spawn_local, LocalSet};

use crate::app::App;
use crate::db::Db;
use crate::http::{conn, response};
use crate::model::Todo;

/// What every worker starts from.
pub struct Shared {
    pub todos: Arc<[Todo]>,
    pub database: Option<tokio_postgres::Config>,
    /// Database clients per worker.
    pub clients: usize,
    /// CachedWorld rows for `/cached-queries`, shared by the workers.
    pub cache: Arc<crate::tfb::WorldCache>,
    /// `STATIC_DIR`, the folder `/static/{file}` reads from; `None`: every such path is 404.
    pub static_dir: Option<PathBuf>,
    /// `/download/{n}` answers the first n bytes of this (byte i is i mod 256), made at start-up.
    pub download: Arc<[u8]>,
}

/// Starts a worker thread serving `listener` (a duplicate of the shared socket).
pub fn spawn(index: usize, listener: TcpListener, shared: Arc<Shared>) -> std::io::Result<thread::JoinHandle<()>> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    thread::Builder::new().name(format!("worker-{index}")).spawn(move || {
        LocalSet::new().block_on(&runtime, run(listener, shared));
    })
}

async fn run(listener: TcpListener, shared: Arc<Shared>) {
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("rust-reference: worker listener: {e}");
            std::process::exit(1);
        }
    };
    let db = Db::new(shared.database.clone(), shared.clients);
    let app = Rc::new(App::new(
        shared.todos.clone(),
        db,
        shared.cache.clone(),
        shared.static_dir.clone(),
        shared.download.clone(),
    ));
    spawn_local(response::refresh_date());
    spawn_local({
        let app = app.clone();
        async move { app.db().connect_all().await }
    });
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let _ = stream.set_nodelay(true);
                spawn_local(conn::serve(stream, app.clone()));
            }
            // Typically EMFILE: back off instead of spinning; the other workers go on.
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}
