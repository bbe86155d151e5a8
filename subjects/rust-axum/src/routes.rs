//! The routes as an axum `Router` (the seeds' four, TechEmpower's six in `tfb`, and HttpArena's
//! delay), with plain-text answers for every error.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, Path, RawQuery, State};
use axum::http::header::{CONTENT_TYPE, SERVER};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use deadpool_postgres::Pool;

use crate::config::Config;
use crate::db;
use crate::model::{self, Colors, Todo};
use crate::tfb;

/// Largest accepted request body (1 MiB); larger ones get 413.
const BODY_LIMIT: usize = 1024 * 1024;

/// Longest wait `GET /delay/{ms}` grants; a longer one is 400.
const DELAY_MAX_MS: u32 = 10_000;

/// What every handler can see: the todo items and the database pool.
pub struct AppState {
    todos: Vec<Todo>,
    /// `None` when no `DATABASE_URL` was given: `/users` answers 503.
    pool: Option<Pool>,
    /// CachedWorld rows for `/cached-queries`.
    cache: tfb::WorldCache,
}

impl AppState {
    pub fn new(config: &Config) -> Result<Self, String> {
        let pool = match &config.database_url {
            Some(url) => Some(db::pool(url, config.pool_size)?),
            None => None,
        };
        Ok(Self { todos: model::todos(), pool, cache: tfb::WorldCache::new() })
    }
}

type SharedState = State<Arc<AppState>>;

pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/api/test", get(plaintext))
        .route("/rest/todo", get(todo))
        .route("/echo", post(echo))
        .route("/users", get(users))
        .route("/json", get(|| async { techempower(Ok(tfb::json()), tfb::JSON) }))
        .route("/db", get(db))
        .route("/queries", get(queries))
        .route("/fortunes", get(fortunes))
        .route("/updates", get(updates))
        .route("/cached-queries", get(cached_queries))
        .route("/delay/{ms}", get(delay))
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
