//! The routes (the seeds' four, TechEmpower's six answered by `tfb`, and HttpArena's delay,
//! static, json-gzip, upload and download) and their error answers, as one hyper service function.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use deadpool_postgres::Pool;
use http_body_util::{BodyExt, Either, Full, LengthLimitError, Limited};
use hyper::body::{Body, Incoming};
use hyper::header::{HeaderValue, ALLOW, CONTENT_TYPE, ETAG, IF_NONE_MATCH, LAST_MODIFIED, SERVER};
use hyper::{Method, Request, Response, StatusCode};
use hyper_staticfile::util::FileResponseBuilder;
use hyper_staticfile::{AcceptEncoding, ResolveResult, Resolver};
use serde::Serialize;
use tower::ServiceExt;
use tower_http::compression::predicate::SizeAbove;
use tower_http::compression::{Compression, CompressionBody};

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

/// `GET /download/{n}`: the prefix, and the largest n granted (10 MiB; a larger one is 404).
const DOWNLOAD_PREFIX: &str = "/download/";
const DOWNLOAD_MAX: usize = 10 * 1024 * 1024;

/// `GET /static/{file}`: the prefix, stripped before the file is looked up in `STATIC_DIR`.
const STATIC_PREFIX: &str = "/static";

/// Smallest body the compression middleware compresses: todo's ~500-byte document is compressed
/// (tower-http's default minimum is 32 bytes; set here so that it is stated).
const COMPRESS_MIN_BYTES: u64 = 100;

const TEXT_PLAIN: HeaderValue = HeaderValue::from_static("text/plain; charset=utf-8");
const APPLICATION_JSON: HeaderValue = HeaderValue::from_static("application/json");
const OCTET_STREAM: HeaderValue = HeaderValue::from_static("application/octet-stream");

/// What every request can see: the todo items and the database pool.
pub struct AppState {
    todos: Vec<Todo>,
    /// `None` when no `DATABASE_URL` was given: `/users` answers 503.
    pool: Option<Pool>,
    /// CachedWorld rows for `/cached-queries`.
    cache: tfb::WorldCache,
    /// hyper-staticfile's resolver over `STATIC_DIR`; `None` without it (`/static/` is 404).
    static_files: Option<Resolver>,
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
        let static_files = config.static_dir.as_ref().map(Resolver::new);
        let download = (0..DOWNLOAD_MAX).map(|i| i as u8).collect::<Vec<u8>>().into();
        Ok(Self { todos: model::todos(), pool, cache: tfb::WorldCache::new(), static_files, download })
    }
}

/// Most answers are one buffer; a static file streams from disk, and todo goes through the
/// compression middleware. An `Either` rather than a boxed body: no allocation per answer.
type Reply = Response<Either<Full<Bytes>, Either<hyper_staticfile::Body, CompressionBody<Full<Bytes>>>>>;

pub async fn handle(request: Request<Incoming>, state: Arc<AppState>) -> Result<Reply, Infallible> {
    let reply = match (request.uri().path(), request.method()) {
        ("/api/test", &Method::GET) => reply(StatusCode::OK, TEXT_PLAIN, "Hello, World!"),
        ("/rest/todo", &Method::GET) => todo(request, &state).await,
        ("/echo", &Method::POST) => echo(request).await,
        ("/upload", &Method::POST) => upload(request).await,
        ("/users", &Method::GET) => users(&state).await,
        ("/json", &Method::GET) => techempower(Ok(tfb::json()), tfb::JSON),
        (route @ ("/db" | "/queries" | "/fortunes" | "/updates" | "/cached-queries"), &Method::GET) => {
            techempower_db(&state, route, request.uri().query()).await
        }
        (path, &Method::GET) if path.starts_with(DELAY_PREFIX) => delay(&path[DELAY_PREFIX.len()..]).await,
        (path, &Method::GET) if path.starts_with(DOWNLOAD_PREFIX) => {
            download(&state, &path[DOWNLOAD_PREFIX.len()..])
        }
        (path, &Method::GET | &Method::HEAD) if path.starts_with("/static/") => {
            static_file(request, &state).await
        }
        (
            "/api/test" | "/rest/todo" | "/users" | "/json" | "/db" | "/queries" | "/fortunes"
            | "/updates" | "/cached-queries",
            _,
        ) => method_not_allowed("GET"),
        ("/echo" | "/upload", _) => method_not_allowed("POST"),
        (path, _) if path.starts_with(DELAY_PREFIX) || path.starts_with(DOWNLOAD_PREFIX) => {
            method_not_allowed("GET")
        }
        (path, _) if path.starts_with("/static/") => method_not_allowed("GET, HEAD"),
        _ => error(StatusCode::NOT_FOUND),
    };
    Ok(reply)
}

/// The todo list through tower-http's compression middleware, driven for this one request with
/// tower's `oneshot`: gzip when Accept-Encoding asks for it (with `Vary: Accept-Encoding`),
/// identity otherwise. Only this route is wrapped, so the others keep their plain body.
async fn todo(request: Request<Incoming>, state: &AppState) -> Reply {
    let todos = &state.todos;
    let answer = tower::service_fn(move |_: Request<Incoming>| {
        let response = json_full(todos, TODO_CAPACITY);
        async move { Ok::<_, Infallible>(response) }
    });
    let compressed = Compression::new(answer).compress_when(SizeAbove::new(COMPRESS_MIN_BYTES));
    match compressed.oneshot(request).await {
        Ok(response) => response.map(|body| Either::Right(Either::Right(body))),
        Err(never) => match never {},
    }
}

/// The length and CRC-32 of the body as it is read, frame by frame (Content-Length or chunked),
/// through `Limited`: past 1 MiB it is 413.
async fn upload(request: Request<Incoming>) -> Reply {
    if request.body().size_hint().lower() > BODY_LIMIT as u64 {
        return too_large(request.into_body());
    }
    let mut body = Limited::new(request.into_body(), BODY_LIMIT);
    let (mut length, mut crc) = (0usize, crc32fast::Hasher::new());
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(frame) => {
                if let Some(data) = frame.data_ref() {
                    length += data.len();
                    crc.update(data);
                }
            }
            Err(e) if e.is::<LengthLimitError>() => return error(StatusCode::PAYLOAD_TOO_LARGE),
            Err(_) => return error(StatusCode::BAD_REQUEST),
        }
    }
    reply(StatusCode::OK, TEXT_PLAIN, format!("{length} {:08x}", crc.finalize()))
}

/// The first `n` bytes of the start-up pattern; a segment that is not a whole number up to
/// [`DOWNLOAD_MAX`] is 404.
fn download(state: &AppState, segment: &str) -> Reply {
    let n = Some(segment)
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|&n| n <= DOWNLOAD_MAX);
    match n {
        Some(n) => reply(StatusCode::OK, OCTET_STREAM, state.download.slice(..n)),
        None => error(StatusCode::NOT_FOUND),
    }
}

/// A file of `STATIC_DIR` by hyper-staticfile: its resolver sanitizes the path (`..` and
/// percent-encoded tricks stay inside the root) and opens the file with tokio's fs; its
/// response builder adds Content-Type by extension, Content-Length, ETag and Last-Modified,
/// and answers a matching If-Modified-Since with 304. It does not evaluate If-None-Match,
/// so that is done here on its ETag (RFC 9110 §13.1.2, which also makes If-Modified-Since
/// ignored when If-None-Match is sent).
async fn static_file(request: Request<Incoming>, state: &AppState) -> Reply {
    let Some(resolver) = &state.static_files else {
        return error(StatusCode::NOT_FOUND);
    };
    let path = &request.uri().path()[STATIC_PREFIX.len()..];
    let file = match resolver.resolve_path(path, AcceptEncoding::none()).await {
        Ok(ResolveResult::Found(file)) => file,
        Ok(ResolveResult::PermissionDenied) => return error(StatusCode::FORBIDDEN),
        // A directory is not listed or redirected (`/static/` gets its index.html, if any).
        Ok(_) => return error(StatusCode::NOT_FOUND),
        Err(_) => return error(StatusCode::INTERNAL_SERVER_ERROR),
    };
    let if_none_match = request.headers().get(IF_NONE_MATCH);
    let mut builder = FileResponseBuilder::new();
    builder.request(&request);
    if if_none_match.is_some() {
        builder.if_modified_since(None);
    }
    let Ok(mut response) = builder.build(file) else {
        return error(StatusCode::INTERNAL_SERVER_ERROR);
    };
    if let (Some(wanted), Some(etag)) = (if_none_match, response.headers().get(ETAG))
        && etag_matches(wanted.as_bytes(), etag.as_bytes())
    {
        let mut not_modified = Response::new(hyper_staticfile::Body::Empty);
        *not_modified.status_mut() = StatusCode::NOT_MODIFIED;
        for name in [ETAG, LAST_MODIFIED] {
            if let Some(value) = response.headers_mut().remove(&name) {
                not_modified.headers_mut().insert(name, value);
            }
        }
        response = not_modified;
    }
    response.map(|body| Either::Right(Either::Left(body)))
}

/// If-None-Match's weak comparison: `*`, or any listed tag equal to `etag` once `W/` is dropped.
fn etag_matches(wanted: &[u8], etag: &[u8]) -> bool {
    fn opaque(tag: &[u8]) -> &[u8] {
        let tag = tag.trim_ascii();
        tag.strip_prefix(b"W/").unwrap_or(tag)
    }
    wanted.trim_ascii() == b"*" || wanted.split(|&b| b == b',').any(|tag| opaque(tag) == opaque(etag))
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
    json_full(value, capacity).map(Either::Left)
}

/// [`json`] as a plain one-buffer response, for the compression middleware to wrap.
fn json_full<T: Serialize + ?Sized>(value: &T, capacity: usize) -> Response<Full<Bytes>> {
    let mut body = Vec::with_capacity(capacity);
    match serde_json::to_writer(&mut body, value) {
        Ok(()) => full(StatusCode::OK, APPLICATION_JSON, body),
        Err(_) => {
            let status = StatusCode::INTERNAL_SERVER_ERROR;
            full(status, TEXT_PLAIN, status.canonical_reason().unwrap_or("Error"))
        }
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
    full(status, content_type, body).map(Either::Left)
}

fn full(status: StatusCode, content_type: HeaderValue, body: impl Into<Bytes>) -> Response<Full<Bytes>> {
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
