//! The routes as an axum `Router` (the seeds' four, TechEmpower's six in `tfb`, and HttpArena's
//! delay, static, json-gzip, upload and download), with plain-text answers for every error.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, RawQuery, State};
use axum::handler::HandlerWithoutStateExt;
use axum::http::header::{CONTENT_TYPE, SERVER};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use deadpool_postgres::Pool;
use tower_http::compression::predicate::SizeAbove;
use tower_http::compression::CompressionLayer;
use tower_http::services::ServeDir;

use crate::config::Config;
use crate::db;
use crate::model::{self, Colors, Todo};
use crate::tfb;

/// Largest accepted request body (1 MiB); larger ones get 413.
const BODY_LIMIT: usize = 1024 * 1024;

/// Longest wait `GET /delay/{ms}` grants; a longer one is 400.
const DELAY_MAX_MS: u32 = 10_000;

/// Largest `GET /download/{n}` (10 MiB); a larger one is 400.
const DOWNLOAD_MAX: usize = 10 * 1024 * 1024;

/// Smallest body the compression layer compresses: todo's ~500-byte document is compressed
/// (tower-http's default minimum is 32 bytes; set here so that it is stated).
const COMPRESS_MIN_BYTES: u64 = 100;

/// What every handler can see: the todo items and the database pool.
pub struct AppState {
    todos: Vec<Todo>,
    /// `None` when no `DATABASE_URL` was given: `/users` answers 503.
    pool: Option<Pool>,
    /// CachedWorld rows for `/cached-queries`.
    cache: tfb::WorldCache,
    /// `/download/{n}` answers the first n bytes of this (byte i is i mod 256), made once:
    /// `Bytes::slice` shares it without a copy.
    download: Bytes,
}

impl AppState {
    pub fn new(config: &Config) -> Result<Self, String> {
        let pool = match &config.database_url {
            Some(url) => Some(db::pool(url, config.pool_size)?),
            None => None,
        };
        let download = (0..DOWNLOAD_MAX).map(|i| i as u8).collect::<Vec<u8>>().into();
        Ok(Self { todos: model::todos(), pool, cache: tfb::WorldCache::new(), download })
    }
}

type SharedState = State<Arc<AppState>>;

pub fn router(state: Arc<AppState>, static_dir: Option<&std::path::Path>) -> Router {
    let router = Router::new()
        .route("/api/test", get(plaintext))
        // tower-http's compression layer on this route only: gzip when Accept-Encoding asks for
        // it (with `Vary: Accept-Encoding`), identity otherwise; the other routes stay unwrapped.
        .route(
            "/rest/todo",
            get(todo).layer(CompressionLayer::new().compress_when(SizeAbove::new(COMPRESS_MIN_BYTES))),
        )
        .route("/echo", post(echo))
        .route("/users", get(users))
        .route("/json", get(|| async { techempower(Ok(tfb::json()), tfb::JSON) }))
        .route("/db", get(db))
        .route("/queries", get(queries))
        .route("/fortunes", get(fortunes))
        .route("/updates", get(updates))
        .route("/cached-queries", get(cached_queries))
        .route("/delay/{ms}", get(delay))
        .route("/upload", post(upload))
        .route("/download/{n}", get(download));
    // tower-http's `ServeDir` reads each file from disk per request: Content-Type by extension,
    // ETag and Last-Modified, 304 on If-None-Match / If-Modified-Since, `..` refused; files it
    // does not find get our plain-text 404. Without STATIC_DIR the prefix is an unknown path.
    let router = match static_dir {
        Some(dir) => router.nest_service(
            "/static",
            ServeDir::new(dir)
                .append_index_html_on_directories(false)
                .not_found_service((|| async { error(StatusCode::NOT_FOUND) }).into_service()),
        ),
        None => router,
    };
    router
        .fallback(|| async { error(StatusCode::NOT_FOUND) })
        .method_not_allowed_fallback(|| async { error(StatusCode::METHOD_NOT_ALLOWED) })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state)
}

async fn plaintext() -> &'static str {
    "Hello, World!"
}

async fn todo(State(state): SharedState) -> Response {
    Json(&state.todos).into_response()
}

/// `Json` parses the typed colors document (400 on bad JSON, 413 over the limit).
async fn echo(Json(colors): Json<Colors>) -> Json<Colors> {
    Json(colors)
}

async fn users(State(state): SharedState) -> Response {
    let Some(pool) = &state.pool else {
        return error(StatusCode::SERVICE_UNAVAILABLE);
    };
    match db::users(pool).await {
        Ok(users) => Json(users).into_response(),
        Err(db::Unavailable) => error(StatusCode::SERVICE_UNAVAILABLE),
    }
}

/// Answers `ms` after waiting that long on tokio's timer: the wait holds only this request's
/// task, no thread. `Path` refuses a segment that is not a `u32` with 400 before the handler runs.
async fn delay(Path(ms): Path<u32>) -> Response {
    if ms > DELAY_MAX_MS {
        return error(StatusCode::BAD_REQUEST);
    }
    tokio::time::sleep(Duration::from_millis(ms.into())).await;
    ms.to_string().into_response()
}

/// The length and CRC-32 of the body as read: the `Bytes` extractor collects it (chunked or
/// not) under `DefaultBodyLimit`, so a body over 1 MiB is 413 before this runs.
async fn upload(body: Bytes) -> String {
    format!("{} {:08x}", body.len(), crc32fast::hash(&body))
}

/// The first `n` bytes of the start-up pattern; `Path` refuses a segment that is not a `usize`
/// with 400, and so is `n` above 10 MiB.
async fn download(State(state): SharedState, Path(n): Path<usize>) -> Response {
    if n > DOWNLOAD_MAX {
        return error(StatusCode::BAD_REQUEST);
    }
    ([(CONTENT_TYPE, "application/octet-stream")], state.download.slice(..n)).into_response()
}

/// A short text body naming the status, so every answer has a `Content-Type`.
fn error(status: StatusCode) -> Response {
    (status, status.canonical_reason().unwrap_or("Error")).into_response()
}

/// A TechEmpower answer with the `Server` header TechEmpower requires (hyper adds `Date`).
fn techempower(body: Result<Vec<u8>, db::Unavailable>, content_type: &'static str) -> Response {
    match body {
        Ok(body) => ([(SERVER, "axum"), (CONTENT_TYPE, content_type)], body).into_response(),
        Err(db::Unavailable) => error(StatusCode::SERVICE_UNAVAILABLE),
    }
}

async fn db(State(state): SharedState) -> Response {
    let Some(pool) = &state.pool else { return error(StatusCode::SERVICE_UNAVAILABLE) };
    techempower(tfb::db(pool).await, tfb::JSON)
}

async fn queries(State(state): SharedState, RawQuery(query): RawQuery) -> Response {
    let Some(pool) = &state.pool else { return error(StatusCode::SERVICE_UNAVAILABLE) };
    techempower(tfb::queries(pool, tfb::count(query.as_deref(), "queries")).await, tfb::JSON)
}

async fn fortunes(State(state): SharedState) -> Response {
    let Some(pool) = &state.pool else { return error(StatusCode::SERVICE_UNAVAILABLE) };
    techempower(tfb::fortunes(pool).await, tfb::HTML)
}

async fn updates(State(state): SharedState, RawQuery(query): RawQuery) -> Response {
    let Some(pool) = &state.pool else { return error(StatusCode::SERVICE_UNAVAILABLE) };
    techempower(tfb::updates(pool, tfb::count(query.as_deref(), "queries")).await, tfb::JSON)
}

async fn cached_queries(State(state): SharedState, RawQuery(query): RawQuery) -> Response {
    let Some(pool) = &state.pool else { return error(StatusCode::SERVICE_UNAVAILABLE) };
    let n = tfb::count(query.as_deref(), "count");
    techempower(state.cache.cached_queries(pool, n).await, tfb::JSON)
}
