//! The routes (the seeds' four, TechEmpower's six in `tfb`, HttpArena's delay): what each
//! request is answered with.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::db::Db;
use crate::http::parser::{Head, Method, Route};
use crate::http::response::{ContentType, Response, Status};
use crate::tfb::{self, WorldCache};
use crate::model::{Colors, Todo};

/// Per-worker-thread application state.
pub struct App {
    todos: Arc<[Todo]>,
    db: Db,
    /// CachedWorld rows, shared by the workers.
    cache: Arc<WorldCache>,
    /// simd-json's working memory (tape and string buffer), reused by every echo request.
    json_buffers: RefCell<simd_json::Buffers>,
}

impl App {
    pub fn new(todos: Arc<[Todo]>, db: Db, cache: Arc<WorldCache>) -> Self {
        Self { todos, db, cache, json_buffers: RefCell::new(simd_json::Buffers::new(ECHO_SIZE_HINT)) }
    }

    pub fn db(&self) -> &Db {
        &self.db
    }

    /// Appends the answer to one request to `out`; `scratch` is a reusable JSON buffer.
    pub async fn respond(&self, head: &Head, body: &mut [u8], out: &mut Vec<u8>, scratch: &mut Vec<u8>) {
        let response = Response::to(out, head);
        let readable = matches!(head.method, Method::Get | Method::Head);
        match head.route {
            Route::Plaintext if readable => response.plaintext(),
            Route::Todo if readable => json(response, scratch, &*self.todos),
            Route::Echo if head.method == Method::Post => match self.parse_colors(body) {
                Some(colors) => json(response, scratch, &colors),
                None => response.error(Status::BadRequest),
            },
            Route::Users if readable => {
                scratch.clear();
                match self.db.users_json(scratch).await {
                    Ok(()) => response.json(scratch),
                    Err(_) => response.error(Status::ServiceUnavailable),
                }
            }
            Route::Json if readable => {
                techempower(response, scratch, Ok(&tfb::Message { message: "Hello, World!" }))
            }
            Route::Db if readable => {
                techempower(response, scratch, self.db.worlds(1).await.map(|rows| rows[0]).as_ref())
            }
            Route::Queries(n) if readable => {
                techempower(response, scratch, self.db.worlds(n.into()).await.as_deref())
            }
            Route::Updates(n) if readable => {
                techempower(response, scratch, self.db.updates(n.into()).await.as_deref())
            }
            Route::CachedQueries(n) if readable => {
                techempower(response, scratch, self.db.cached(&self.cache, n.into()).await.as_deref())
            }
            Route::Fortunes if readable => {
                scratch.clear();
                match self.db.fortunes_html(scratch).await {
                    Ok(()) => response.techempower(ContentType::Html, scratch),
                    Err(_) => response.error(Status::ServiceUnavailable),
                }
            }
            // tokio's timer: the connection's task waits, the worker's loop serves the others.
            // Requests pipelined behind this one wait their turn, as HTTP/1.1 orders answers.
            Route::Delay(ms) if readable => {
                tokio::time::sleep(Duration::from_millis(ms.into())).await;
                response.text(itoa::Buffer::new().format(ms).as_bytes())
            }
            Route::Plaintext | Route::Todo | Route::Users | Route::Json | Route::Db | Route::Queries(_)
            | Route::Fortunes | Route::Updates(_) | Route::CachedQueries(_) | Route::Delay(_) => {
                response.method_not_allowed(b"Allow: GET, HEAD\r\n")
            }
            Route::Echo => response.method_not_allowed(b"Allow: POST\r\n"),
            Route::NotFound => response.error(Status::NotFound),
        }
    }

    /// Parses the colors document with simd-json, which finds the structure of the whole body
    /// with SIMD instructions (chosen at run time) before serde walks it: on the pretty-printed
    /// seed document serde_json spent about 100,000 instructions per request, most of them
    /// skipping whitespace byte by byte. Strings without escapes borrow from the body.
    fn parse_colors<'b>(&self, body: &'b mut [u8]) -> Option<Colors<'b>> {
        let mut buffers = self.json_buffers.borrow_mut();
        simd_json::serde::from_slice_with_buffers(body, &mut buffers).ok()
    }
}

/// The seed's echo body is 4,266 bytes; simd-json's buffers grow if a body is larger.
const ECHO_SIZE_HINT: usize = 8 * 1024;

/// Serializes `value` afresh into `scratch` and answers it as JSON.
fn json<T: Serialize + ?Sized>(response: Response<'_>, scratch: &mut Vec<u8>, value: &T) {
    scratch.clear();
    match sonic_rs::to_writer(&mut *scratch, value) {
        Ok(()) => response.json(scratch),
        Err(_) => response.error(Status::InternalServerError),
    }
}

/// Serializes a TechEmpower answer into `scratch` and sends it with its `Server` field; a
/// database failure is 503.
fn techempower<T: Serialize + ?Sized>(
    response: Response<'_>,
    scratch: &mut Vec<u8>,
    value: Result<&T, &crate::db::Unavailable>,
) {
    let Ok(value) = value else {
        return response.error(Status::ServiceUnavailable);
    };
    scratch.clear();
    match sonic_rs::to_writer(&mut *scratch, value) {
        Ok(()) => response.techempower(ContentType::Json, scratch),
        Err(_) => response.error(Status::InternalServerError),
    }
}
