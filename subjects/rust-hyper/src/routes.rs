//! The routes (the seeds' four, TechEmpower's six answered by `tfb`, and HttpArena's delay) and
//! their error answers, as one hyper service function.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use deadpool_postgres::Pool;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Body, Incoming};
use hyper::header::{HeaderValue, ALLOW, CONTENT_TYPE, SERVER};
use hyper::{Method, Request, Response, StatusCode};
use serde::Serialize;

use crate::config::Config;
use crate::db;
use crate::model::{self, Colors, Todo};
use crate::tfb;

/// Largest accepted request body (1 MiB); larger ones get 413.
const BODY_LIMIT: usize = 1024 * 1024;

/// How much of a refused body is still read, and for how long, before the connection is dropped.
const DRAIN_LIMIT: usize = 8 * 1024 * 1024;
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// Buffer sizes for the JSON answers: todo is about 600 bytes, users about 19 KiB.
const TODO_CAPACITY: usize = 1024;
const USERS_CAPACITY: usize = 24 * 1024;

/// `GET /delay/{ms}`: the prefix before the wait, and the longest wait granted (a longer one is
/// 404, like any path that is not a route).
const DELAY_PREFIX: &str = "/delay/";
const DELAY_MAX_MS: u64 = 10_000;

const TEXT_PLAIN: HeaderValue = HeaderValue::from_static("text/plain; charset=utf-8");
const APPLICATION_JSON: HeaderValue = HeaderValue::from_static("application/json");

/// What every request can see: the todo items and the database pool.
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

type Reply = Response<Full<Bytes>>;

pub async fn handle(request: Request<Incoming>, state: Arc<AppState>) -> Result<Reply, Infallible> {
    let reply = match (request.uri().path(), request.method()) {
        ("/api/test", &Method::GET) => reply(StatusCode::OK, TEXT_PLAIN, "Hello, World!"),
        ("/rest/todo", &Method::GET) => json(&state.todos, TODO_CAPACITY),
        ("/echo", &Method::POST) => echo(request).await,
        ("/users", &Method::GET) => users(&state).await,
        ("/json", &Method::GET) => techempower(Ok(tfb::json()), tfb::JSON),
        (route @ ("/db" | "/queries" | "/fortunes" | "/updates" | "/cached-queries"), &Method::GET) => {
            techempower_db(&state, route, request.uri().query()).await
        }
        (path, &Method::GET) if path.starts_with(DELAY_PREFIX) => delay(&path[DELAY_PREFIX.len()..]).await,
        (
            "/api/test" | "/rest/todo" | "/users" | "/json" | "/db" | "/queries" | "/fortunes"
            | "/updates" | "/cached-queries",
            _,
        ) => method_not_allowed("GET"),
        ("/echo", _) => method_not_allowed("POST"),
        (path, _) if path.starts_with(DELAY_PREFIX) => method_not_allowed("GET"),
        _ => error(StatusCode::NOT_FOUND),
    };
    Ok(reply)
}

/// Parses the body as the typed colors document and serializes it again.
async fn echo(request: Request<Incoming>) -> Reply {
    // Refuse an announced oversized body before reading any of it.
    if request.body().size_hint().lower() > BODY_LIMIT as u64 {
        return too_large(request.into_body());
    }
    let body = match Limited::new(request.into_body(), BODY_LIMIT).collect().await {
        Ok(body) => body.to_bytes(),
        Err(e) if e.is::<LengthLimitError>() => return error(StatusCode::PAYLOAD_TOO_LARGE),
        Err(_) => return error(StatusCode::BAD_REQUEST),
    };
    match serde_json::from_slice::<Colors>(&body) {
        // The compact answer is never longer than the (pretty-printed) request.
        Ok(colors) => json(&colors, body.len()),
        Err(_) => error(StatusCode::BAD_REQUEST),
    }
}

/// Answers `ms` after waiting that long on tokio's timer: the wait holds only this connection's
/// task, no thread. A segment that is not whole milliseconds up to [`DELAY_MAX_MS`] is 404 at once.
async fn delay(segment: &str) -> Reply {
    let Some(ms) = delay_ms(segment) else {
        return error(StatusCode::NOT_FOUND);
    };
    tokio::time::sleep(Duration::from_millis(ms)).await;
    reply(StatusCode::OK, TEXT_PLAIN, ms.to_string())
}

/// Plain decimal digits only (`u64::from_str` would also take a leading `+`).
fn delay_ms(segment: &str) -> Option<u64> {
    if segment.is_empty() || !segment.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    segment.parse().ok().filter(|&ms| ms <= DELAY_MAX_MS)
}

/// Answers 413 at once, while a background task reads and discards the rest of the body
/// (bounded in bytes and time), so a client still sending it gets the answer, not a reset.
fn too_large(body: Incoming) -> Reply {
    tokio::spawn(async move {
        let drain = async {
            let mut body = Limited::new(body, DRAIN_LIMIT);
            while let Some(Ok(_)) = body.frame().await {}
        };
        let _ = tokio::time::timeout(DRAIN_TIMEOUT, drain).await;
    });
    error(StatusCode::PAYLOAD_TOO_LARGE)
}

async fn users(state: &AppState) -> Reply {
    let Some(pool) = &state.pool else {
        return error(StatusCode::SERVICE_UNAVAILABLE);
    };
    match db::users(pool).await {
        Ok(users) => json(&users, USERS_CAPACITY),
        Err(db::Unavailable) => error(StatusCode::SERVICE_UNAVAILABLE),
    }
}

/// Serializes into a buffer allocated once at about the answer's size: `serde_json::to_vec`
/// starts at 128 bytes and reallocates and copies as the answer grows (four times for todo,
/// eight for users).
fn json<T: Serialize + ?Sized>(value: &T, capacity: usize) -> Reply {
    let mut body = Vec::with_capacity(capacity);
    match serde_json::to_writer(&mut body, value) {
        Ok(()) => reply(StatusCode::OK, APPLICATION_JSON, body),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR),
    }
}

fn method_not_allowed(allow: &'static str) -> Reply {
    let mut response = error(StatusCode::METHOD_NOT_ALLOWED);
    response.headers_mut().insert(ALLOW, HeaderValue::from_static(allow));
    response
}

/// A short text body naming the status, e.g. `Not Found`.
fn error(status: StatusCode) -> Reply {
    reply(status, TEXT_PLAIN, status.canonical_reason().unwrap_or("Error"))
}

/// Content-Length comes from the full body and `Date` from hyper itself.
fn reply(status: StatusCode, content_type: HeaderValue, body: impl Into<Bytes>) -> Reply {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, content_type);
    response
}

/// TechEmpower's database routes.
async fn techempower_db(state: &AppState, route: &str, query: Option<&str>) -> Reply {
    let Some(pool) = &state.pool else {
        return error(StatusCode::SERVICE_UNAVAILABLE);
    };
    match route {
        "/db" => techempower(tfb::db(pool).await, tfb::JSON),
        "/queries" => techempower(tfb::queries(pool, tfb::count(query, "queries")).await, tfb::JSON),
        "/fortunes" => techempower(tfb::fortunes(pool).await, tfb::HTML),
        "/updates" => techempower(tfb::updates(pool, tfb::count(query, "queries")).await, tfb::JSON),
        _ => techempower(state.cache.cached_queries(pool, tfb::count(query, "count")).await, tfb::JSON),
    }
}

/// A TechEmpower answer with the `Server` header TechEmpower requires (hyper adds `Date`).
fn techempower(body: Result<Vec<u8>, db::Unavailable>, content_type: &'static str) -> Reply {
    match body {
        Ok(body) => {
            let mut response = reply(StatusCode::OK, HeaderValue::from_static(content_type), body);
            response.headers_mut().insert(SERVER, HeaderValue::from_static("hyper"));
            response
        }
        Err(db::Unavailable) => error(StatusCode::SERVICE_UNAVAILABLE),
    }
}
