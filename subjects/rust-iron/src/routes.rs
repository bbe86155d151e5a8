//! The routes (the seeds' four, TechEmpower's six in `tfb`, HttpArena's delay) on Iron's `Router` (unknown paths get 404, unlike seed (d)'s
//! catch-all), plus a middleware that gives every error a plain-text body.

use std::io::{self, Read};
use std::sync::Arc;
use std::time::Duration;

use iron::headers::ContentLength;
use iron::mime::{Mime, SubLevel, TopLevel};
use iron::prelude::*;
use iron::method::Method;
use iron::{status, AfterMiddleware, Handler};
use router::Router;
use serde::Serialize;

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
        Ok(Self { todos: model::todos(), pool, cache: tfb::WorldCache::new(10_000) })
    }
}

/// The router wrapped in a chain that renders errors as text.
pub fn handler(state: AppState) -> impl Handler {
    let state = Arc::new(state);
    let mut router = Router::new();
    router.get("/api/test", |_: &mut Request| Ok(text(status::Ok, "Hello, World!")), "plaintext");
    let todo_state = state.clone();
    router.get("/rest/todo", move |_: &mut Request| Ok(json(&todo_state.todos)), "todo");
    router.post("/echo", echo, "echo");
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
