//! The routes as an actix-web service configuration: the seeds' four, TechEmpower's six
//! (answered by `tfb`) and HttpArena's delay, static, json-gzip, upload and download.

use std::path::Path;
use std::time::Duration;

use actix_files::Files;
use actix_web::http::StatusCode;
use actix_web::middleware::Compress;
use actix_web::web::Bytes;
use actix_web::{web, HttpRequest, HttpResponse};
use deadpool_postgres::Pool;

use crate::config::Config;
use crate::db;
use crate::model::{self, Colors, Todo};
use crate::tfb;

/// Largest accepted request body (1 MiB); larger ones get 413.
const BODY_LIMIT: usize = 1024 * 1024;

/// Longest wait `GET /delay/{ms}` grants; a longer one is 404.
const DELAY_MAX_MS: u32 = 10_000;

/// Largest `GET /download/{n}` (10 MiB); a larger one is 404.
const DOWNLOAD_MAX: usize = 10 * 1024 * 1024;

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

type SharedState = web::Data<AppState>;

pub fn configure(config: &mut web::ServiceConfig, static_dir: Option<&Path>) {
    config
        .app_data(web::JsonConfig::default().limit(BODY_LIMIT))
        // The `Bytes` extractor's limit (256 KiB by default): upload takes up to 1 MiB, then 413.
        .app_data(web::PayloadConfig::new(BODY_LIMIT))
        .service(web::resource("/api/test").get(plaintext).default_service(web::to(method_not_allowed)))
        // actix-web's `Compress` middleware on this resource only: gzip when Accept-Encoding asks
        // for it (with `Vary: accept-encoding`; it has no minimum size), identity otherwise.
        .service(
            web::resource("/rest/todo")
                .wrap(Compress::default())
                .get(todo)
                .default_service(web::to(method_not_allowed)),
        )
        .service(web::resource("/echo").post(echo).default_service(web::to(method_not_allowed)))
        .service(web::resource("/users").get(users).default_service(web::to(method_not_allowed)))
        .service(web::resource("/json").get(json).default_service(web::to(method_not_allowed)))
        .service(web::resource("/db").get(db).default_service(web::to(method_not_allowed)))
        .service(web::resource("/queries").get(queries).default_service(web::to(method_not_allowed)))
        .service(web::resource("/fortunes").get(fortunes).default_service(web::to(method_not_allowed)))
        .service(web::resource("/updates").get(updates).default_service(web::to(method_not_allowed)))
        .service(
            web::resource("/cached-queries").get(cached_queries).default_service(web::to(method_not_allowed)),
        )
        .service(web::resource("/delay/{ms}").get(delay).default_service(web::to(method_not_allowed)))
        .service(web::resource("/upload").post(upload).default_service(web::to(method_not_allowed)))
        .service(web::resource("/download/{n}").get(download).default_service(web::to(method_not_allowed)))
        .default_service(web::to(not_found));
    // actix-files' `Files` reads each file from disk per request: Content-Type by extension,
    // ETag and Last-Modified, 304 on If-None-Match / If-Modified-Since, `..` refused; a file it
    // does not find gets our plain-text 404. Without STATIC_DIR the prefix is an unknown path.
    if let Some(dir) = static_dir {
        config.service(Files::new("/static", dir).default_handler(web::to(not_found)));
    }
}

async fn plaintext() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("Hello, World!")
}

async fn todo(state: SharedState) -> HttpResponse {
    HttpResponse::Ok().json(&state.todos)
}

/// `Json` parses the typed colors document (400 on bad JSON, 413 over the limit).
async fn echo(colors: web::Json<Colors>) -> HttpResponse {
    HttpResponse::Ok().json(colors.into_inner())
}

async fn users(state: SharedState) -> HttpResponse {
    let Some(pool) = &state.pool else {
        return error(StatusCode::SERVICE_UNAVAILABLE);
    };
    match db::users(pool).await {
        Ok(users) => HttpResponse::Ok().json(users),
        Err(db::Unavailable) => error(StatusCode::SERVICE_UNAVAILABLE),
    }
}

/// Answers `ms` after waiting that long on the worker's timer (`actix_web::rt::time::sleep`,
/// tokio's): the wait holds no thread, so the worker serves other requests meanwhile. `Path`
/// refuses a segment that is not a `u32` with 404 before the handler runs.
async fn delay(ms: web::Path<u32>) -> HttpResponse {
    let ms = ms.into_inner();
    if ms > DELAY_MAX_MS {
        return error(StatusCode::NOT_FOUND);
    }
    actix_web::rt::time::sleep(Duration::from_millis(ms.into())).await;
    HttpResponse::Ok().content_type("text/plain").body(ms.to_string())
}

/// The length and CRC-32 of the body as read: the `Bytes` extractor collects it (chunked or
/// not) under `PayloadConfig`'s limit, so a body over 1 MiB is 413 before this runs.
async fn upload(body: Bytes) -> HttpResponse {
    let answer = format!("{} {:08x}", body.len(), crc32fast::hash(&body));
    HttpResponse::Ok().content_type("text/plain").body(answer)
}

/// The first `n` bytes of the start-up pattern; `Path` refuses a segment that is not a `usize`
/// with 404, and so is `n` above 10 MiB.
async fn download(state: SharedState, n: web::Path<usize>) -> HttpResponse {
    let n = n.into_inner();
    if n > DOWNLOAD_MAX {
        return error(StatusCode::NOT_FOUND);
    }
    HttpResponse::Ok().content_type("application/octet-stream").body(state.download.slice(..n))
}

async fn not_found() -> HttpResponse {
    error(StatusCode::NOT_FOUND)
}

async fn method_not_allowed() -> HttpResponse {
    error(StatusCode::METHOD_NOT_ALLOWED)
}

/// A short text body naming the status, so every answer has a `Content-Type`.
fn error(status: StatusCode) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/plain; charset=utf-8")
        .body(status.canonical_reason().unwrap_or("Error"))
}

/// A TechEmpower answer with the `Server` header TechEmpower requires (actix adds `Date`).
fn techempower(body: Result<Vec<u8>, db::Unavailable>, content_type: &'static str) -> HttpResponse {
    match body {
        Ok(body) => HttpResponse::Ok()
            .insert_header(("Server", "actix-web"))
            .content_type(content_type)
            .body(body),
        Err(db::Unavailable) => error(StatusCode::SERVICE_UNAVAILABLE),
    }
}

async fn json() -> HttpResponse {
    techempower(Ok(tfb::json()), tfb::JSON)
}

async fn db(state: SharedState) -> HttpResponse {
    let Some(pool) = &state.pool else { return error(StatusCode::SERVICE_UNAVAILABLE) };
    techempower(tfb::db(pool).await, tfb::JSON)
}

async fn queries(state: SharedState, request: HttpRequest) -> HttpResponse {
    let Some(pool) = &state.pool else { return error(StatusCode::SERVICE_UNAVAILABLE) };
    let n = tfb::count(Some(request.query_string()), "queries");
    techempower(tfb::queries(pool, n).await, tfb::JSON)
}

async fn fortunes(state: SharedState) -> HttpResponse {
    let Some(pool) = &state.pool else { return error(StatusCode::SERVICE_UNAVAILABLE) };
    techempower(tfb::fortunes(pool).await, tfb::HTML)
}

async fn updates(state: SharedState, request: HttpRequest) -> HttpResponse {
    let Some(pool) = &state.pool else { return error(StatusCode::SERVICE_UNAVAILABLE) };
    let n = tfb::count(Some(request.query_string()), "queries");
    techempower(tfb::updates(pool, n).await, tfb::JSON)
}

async fn cached_queries(state: SharedState, request: HttpRequest) -> HttpResponse {
    let Some(pool) = &state.pool else { return error(StatusCode::SERVICE_UNAVAILABLE) };
    let n = tfb::count(Some(request.query_string()), "count");
    techempower(state.cache.cached_queries(pool, n).await, tfb::JSON)
}
