//! The routes (the seeds' four, TechEmpower's six in `tfb`, HttpArena's delay, static, json-gzip,
//! upload and download) on Iron's `Router` (unknown paths get 404, unlike seed (d)'s catch-all),
//! plus a middleware that gives every error a plain-text body.

use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use flate2::write::GzEncoder;
use iron::headers::{AcceptEncoding, ContentEncoding, ContentLength, Encoding, IfModifiedSince, Quality};
use iron::mime::{Mime, SubLevel, TopLevel};
use iron::prelude::*;
use iron::method::Method;
use iron::response::WriteBody;
use iron::{status, AfterMiddleware, Handler};
use mount::Mount;
use router::Router;
use serde::Serialize;
use staticfile::Static;

use crate::config::Config;
use crate::db::{self, Pool};
use crate::model::{self, Colors, Todo};
use crate::tfb;

/// Largest accepted request body (1 MiB); larger ones get 413.
const BODY_LIMIT: usize = 1024 * 1024;
/// Most bytes of a refused body that are still read before answering.
const DRAIN_LIMIT: u64 = 8 * 1024 * 1024;
/// Longest wait `GET /delay/:ms` grants; a longer one is 404.
const DELAY_MAX_MS: u64 = 10_000;
/// Largest `GET /download/:n` (10 MiB); a larger one is 404.
const DOWNLOAD_MAX: usize = 10 * 1024 * 1024;
/// `Cache-Control: max-age` of static files: staticfile's `cache` adds the validators (ETag,
/// Last-Modified) and the 304s with it; 0 makes every client revalidate.
const STATIC_MAX_AGE: Duration = Duration::from_secs(0);

/// What every handler can see: the todo items and the database pool.
pub struct AppState {
    todos: Vec<Todo>,
    /// `None` when no `DATABASE_URL` was given: `/users` answers 503.
    pool: Option<Pool>,
    /// CachedWorld rows for `/cached-queries`.
    cache: tfb::WorldCache,
    /// `/download/:n` answers the first n bytes of this (byte i is i mod 256), made once and kept
    /// for the process's life, so an answer borrows it instead of copying.
    download: &'static [u8],
}

impl AppState {
    pub fn new(config: &Config) -> Result<Self, String> {
        let pool = match &config.database_url {
            Some(url) => Some(db::pool(url, config.pool_size)?),
            None => None,
        };
        let download = Vec::leak((0..DOWNLOAD_MAX).map(|i| i as u8).collect());
        Ok(Self { todos: model::todos(), pool, cache: tfb::WorldCache::new(10_000), download })
    }
}

/// The router wrapped in a chain that renders errors as text.
pub fn handler(state: AppState, static_dir: Option<&Path>) -> impl Handler {
    let state = Arc::new(state);
    let mut router = Router::new();
    router.get("/api/test", |_: &mut Request| Ok(text(status::Ok, "Hello, World!")), "plaintext");
    let todo_state = state.clone();
    // Only this route's chain compresses (see `Gzip`); the others answer as before.
    let mut todo = Chain::new(move |_: &mut Request| Ok(json(&todo_state.todos)));
    todo.link_after(Gzip);
    router.get("/rest/todo", todo, "todo");
    router.post("/echo", echo, "echo");
    router.post("/upload", upload, "upload");
    let download_state = state.clone();
    router.get("/download/:n", move |request: &mut Request| Ok(download(&download_state, request)), "download");
    // staticfile's `Static` under `Mount` (which strips the `/static/` prefix), the Iron
    // ecosystem's file handler: a file of STATIC_DIR read from disk per request, Content-Type by
    // extension, ETag and Last-Modified, 304 on If-Modified-Since; `..` cannot leave the root.
    // Without STATIC_DIR the route is not there (404 like any unknown path).
    if let Some(dir) = static_dir {
        let mut files = Mount::new();
        files.mount("/static/", Static::new(dir).cache(STATIC_MAX_AGE));
        router.get("/static/*file", StaticFiles(files), "static");
    }
    let users_state = state.clone();
    router.get("/users", move |_: &mut Request| Ok(users(&users_state)), "users");
    router.get("/json", |_: &mut Request| Ok(techempower(Ok(tfb::json()), json_type())), "json");
    for (path, name) in [
        ("/db", "db"),
        ("/queries", "queries"),
        ("/fortunes", "fortunes"),
        ("/updates", "updates"),
        ("/cached-queries", "cached-queries"),
    ] {
        let state = state.clone();
        router.get(path, move |request: &mut Request| Ok(techempower_db(&state, path, request.url.query())), name);
    }
    router.get("/delay/:ms", delay, "delay");
    let mut chain = Chain::new(router);
    chain.link_after(ErrorText);
    NoBodyForHead(chain)
}

/// Parses the body as the typed colors document and serializes it again.
fn echo(request: &mut Request) -> IronResult<Response> {
    let announced = request.headers.get::<ContentLength>().map(|length| length.0);
    if announced.is_some_and(|length| length > BODY_LIMIT as u64) {
        return Ok(too_large(request));
    }
    let mut body = Vec::new();
    if request.body.by_ref().take(BODY_LIMIT as u64 + 1).read_to_end(&mut body).is_err() {
        return Ok(text(status::BadRequest, "Bad Request"));
    }
    if body.len() > BODY_LIMIT {
        return Ok(too_large(request));
    }
    Ok(match serde_json::from_slice::<Colors>(&body) {
        Ok(colors) => json(&colors),
        Err(_) => text(status::BadRequest, "Bad Request"),
    })
}

/// The length and CRC-32 of the body as read through Iron's `request.body` (hyper decodes a
/// chunked body there), at most 1 MiB: more is 413, as for echo.
fn upload(request: &mut Request) -> IronResult<Response> {
    let announced = request.headers.get::<ContentLength>().map(|length| length.0);
    if announced.is_some_and(|length| length > BODY_LIMIT as u64) {
        return Ok(too_large(request));
    }
    let mut body = Vec::new();
    if request.body.by_ref().take(BODY_LIMIT as u64 + 1).read_to_end(&mut body).is_err() {
        return Ok(text(status::BadRequest, "Bad Request"));
    }
    if body.len() > BODY_LIMIT {
        return Ok(too_large(request));
    }
    Ok(Response::with((status::Ok, format!("{} {:08x}", body.len(), crc32fast::hash(&body)))))
}

/// The first `n` bytes of the start-up pattern, borrowed (no copy per answer); a segment that is
/// not a whole number up to [`DOWNLOAD_MAX`] is 404.
fn download(state: &AppState, request: &Request) -> Response {
    let segment = request.extensions.get::<Router>().and_then(|params| params.find("n")).unwrap_or("");
    let n = Some(segment)
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|&n| n <= DOWNLOAD_MAX);
    let Some(n) = n else {
        return text(status::NotFound, "Not Found");
    };
    let body: Box<dyn WriteBody> = Box::new(&state.download[..n]);
    let octet_stream = Mime(TopLevel::Application, SubLevel::Ext("octet-stream".into()), vec![]);
    let mut response = Response::with((status::Ok, octet_stream, body));
    response.headers.set(ContentLength(n as u64));
    response
}

/// gzip for the todo answer when the request's Accept-Encoding allows it, with
/// `Vary: Accept-Encoding` either way. Iron has no compression middleware of its own (and
/// iron-pack, the ecosystem's, skips bodies under 860 bytes and sends no `Vary`), so this is an
/// `AfterMiddleware`, Iron's hook for rewriting answers, over flate2: the body is compressed
/// per request at flate2's default level and sent with its Content-Length.
struct Gzip;

impl AfterMiddleware for Gzip {
    fn after(&self, request: &mut Request, mut response: Response) -> IronResult<Response> {
        response.headers.set_raw("Vary", vec![b"Accept-Encoding".to_vec()]);
        if !accepts_gzip(request) || response.headers.has::<ContentEncoding>() {
            return Ok(response);
        }
        let Some(mut body) = response.body.take() else {
            return Ok(response);
        };
        let mut encoder = GzEncoder::new(Vec::new(), flate2::Compression::default());
        let compressed = body.write_body(&mut encoder).and_then(|()| encoder.flush()).and_then(|()| encoder.finish());
        match compressed {
            Ok(bytes) => {
                response.headers.set(ContentEncoding(vec![Encoding::Gzip]));
                response.set_mut(bytes);
                Ok(response)
            }
            Err(_) => Ok(text(status::InternalServerError, "Internal Server Error")),
        }
    }
}

/// Whether Accept-Encoding names gzip (or `*`) with a quality above 0; an explicit `gzip;q=0`
/// refuses it.
fn accepts_gzip(request: &Request) -> bool {
    let Some(AcceptEncoding(items)) = request.headers.get::<AcceptEncoding>() else {
        return false;
    };
    let quality = |wanted: &dyn Fn(&Encoding) -> bool| items.iter().find(|item| wanted(&item.item)).map(|item| item.quality);
    match quality(&|e| *e == Encoding::Gzip || *e == Encoding::EncodingExt("x-gzip".into())) {
        Some(q) => q > Quality(0),
        None => quality(&|e| *e == Encoding::EncodingExt("*".into())).is_some_and(|q| q > Quality(0)),
    }
}

/// staticfile with two gaps filled: it gives every file a (weak) ETag but evaluates only
/// If-Modified-Since, so a matching If-None-Match is answered 304 here (RFC 9110 §13.1.2; with
/// If-None-Match present If-Modified-Since is ignored, §13.1.3); and it panics on a path whose
/// percent-decoding is not UTF-8, which is 404 here instead.
struct StaticFiles(Mount);

impl Handler for StaticFiles {
    fn handle(&self, request: &mut Request) -> IronResult<Response> {
        if !request.url.path().iter().all(|segment| percent_decodes_to_utf8(segment)) {
            return Ok(text(status::NotFound, "Not Found"));
        }
        let wanted = request.headers.get_raw("If-None-Match").map(|values| values.concat());
        if wanted.is_some() {
            request.headers.remove::<IfModifiedSince>();
        }
        let response = self.0.handle(request)?;
        let etag = response.headers.get_raw("ETag").and_then(|values| values.first()).cloned();
        match (wanted, etag) {
            (Some(wanted), Some(etag)) if etag_matches(&wanted, &etag) => {
                let mut not_modified = Response::with(status::NotModified);
                not_modified.headers.set_raw("ETag", vec![etag]);
                if let Some(modified) = response.headers.get_raw("Last-Modified") {
                    not_modified.headers.set_raw("Last-Modified", modified.to_vec());
                }
                Ok(not_modified)
            }
            _ => Ok(response),
        }
    }
}

/// If-None-Match's weak comparison: `*`, or any listed tag equal to `etag` once `W/` is dropped.
fn etag_matches(wanted: &[u8], etag: &[u8]) -> bool {
    fn opaque(tag: &[u8]) -> &[u8] {
        let tag = tag.trim_ascii();
        tag.strip_prefix(b"W/").unwrap_or(tag)
    }
    wanted.trim_ascii() == b"*" || wanted.split(|&b| b == b',').any(|tag| opaque(tag) == opaque(etag))
}

/// Whether `%XX` escapes in `segment` decode to UTF-8 (a malformed escape stays as it is).
fn percent_decodes_to_utf8(segment: &str) -> bool {
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(high), Some(low)) => {
                decoded.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                decoded.push(byte);
                i += 1;
            }
        }
    }
    std::str::from_utf8(&decoded).is_ok()
}

/// 413, after reading and discarding the rest of the body (bounded in bytes, and in
/// time by the read timeout): hyper 0.10 would otherwise close the connection with
/// unread data, and the client would see a reset instead of the answer.
fn too_large(request: &mut Request) -> Response {
    let _ = io::copy(&mut request.body.by_ref().take(DRAIN_LIMIT), &mut io::sink());
    text(status::PayloadTooLarge, "Payload Too Large")
}

/// Answers `ms` after sleeping that long in the handler thread: Iron is synchronous, so a waiting
/// request holds its thread (and its keep-alive connection) like any other. A segment that is
/// not whole milliseconds up to [`DELAY_MAX_MS`] is 404 at once.
fn delay(request: &mut Request) -> IronResult<Response> {
    let segment = request.extensions.get::<Router>().and_then(|params| params.find("ms")).unwrap_or("");
    let ms = Some(segment)
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|s| s.parse::<u64>().ok())
        .filter(|&ms| ms <= DELAY_MAX_MS);
    let Some(ms) = ms else {
        return Ok(text(status::NotFound, "Not Found"));
    };
    std::thread::sleep(Duration::from_millis(ms));
    Ok(Response::with((status::Ok, ms.to_string())))
}

fn users(state: &AppState) -> Response {
    let Some(pool) = &state.pool else {
        return text(status::ServiceUnavailable, "Service Unavailable");
    };
    match db::users(pool) {
        Ok(users) => json(&users),
        Err(db::Unavailable) => text(status::ServiceUnavailable, "Service Unavailable"),
    }
}

fn json<T: Serialize + ?Sized>(value: &T) -> Response {
    match serde_json::to_string(value) {
        Ok(body) => Response::with((status::Ok, Mime(TopLevel::Application, SubLevel::Json, vec![]), body)),
        Err(_) => text(status::InternalServerError, "Internal Server Error"),
    }
}

/// Iron defaults the content type to `text/plain`.
fn text(status: status::Status, body: &'static str) -> Response {
    Response::with((status, body))
}

/// Gives the router's bodiless errors (404, 301 to the slash-less path) a text body.
struct ErrorText;

impl AfterMiddleware for ErrorText {
    fn catch(&self, _: &mut Request, error: IronError) -> IronResult<Response> {
        let status = error.response.status.unwrap_or(status::InternalServerError);
        let mut response = error.response;
        if response.body.is_none() {
            response.set_mut(status.canonical_reason().unwrap_or("Error"));
        }
        Ok(response)
    }
}

/// Drops the body of answers to HEAD, which Iron would otherwise send (the router
/// serves HEAD with the GET handler and rewrites the method, so check it before).
struct NoBodyForHead<H>(H);

impl<H: Handler> Handler for NoBodyForHead<H> {
    fn handle(&self, request: &mut Request) -> IronResult<Response> {
        let head = request.method == Method::Head;
        let mut response = self.0.handle(request)?;
        if head {
            response.body = None;
        }
        Ok(response)
    }
}

fn json_type() -> Mime {
    Mime(TopLevel::Application, SubLevel::Json, vec![])
}

/// TechEmpower's database routes.
fn techempower_db(state: &AppState, path: &str, query: Option<&str>) -> Response {
    let Some(pool) = &state.pool else {
        return text(status::ServiceUnavailable, "Service Unavailable");
    };
    match path {
        "/db" => techempower(tfb::db(pool), json_type()),
        "/queries" => techempower(tfb::queries(pool, tfb::count(query, "queries")), json_type()),
        "/fortunes" => techempower(tfb::fortunes(pool), "text/html; charset=utf-8".parse().unwrap_or_else(|_| json_type())),
        "/updates" => techempower(tfb::updates(pool, tfb::count(query, "queries")), json_type()),
        _ => techempower(tfb::cached_queries(pool, &state.cache, tfb::count(query, "count")), json_type()),
    }
}

/// A TechEmpower answer with the `Server` header TechEmpower requires (hyper adds `Date`).
fn techempower(body: Result<String, db::Unavailable>, content_type: Mime) -> Response {
    match body {
        Ok(body) => {
            let mut response = Response::with((status::Ok, content_type, body));
            response.headers.set(iron::headers::Server("iron".to_string()));
            response
        }
        Err(db::Unavailable) => text(status::ServiceUnavailable, "Service Unavailable"),
    }
}
