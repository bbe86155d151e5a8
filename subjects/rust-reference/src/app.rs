//! The four routes: what each request is answered with.

use std::cell::RefCell;
use std::sync::Arc;

use serde::Serialize;

use crate::db::Db;
use crate::http::parser::{Head, Method, Route};
use crate::http::response::{Response, Status};
use crate::model::{Colors, Todo};

/// Per-worker-thread application state.
pub struct App {
    todos: Arc<[Todo]>,
    db: Db,
    /// simd-json's working memory (tape and string buffer), reused by every echo request.
    json_buffers: RefCell<simd_json::Buffers>,
}

impl App {
    pub fn new(todos: Arc<[Todo]>, db: Db) -> Self {
        Self { todos, db, json_buffers: RefCell::new(simd_json::Buffers::new(ECHO_SIZE_HINT)) }
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
            Route::Plaintext | Route::Todo | Route::Users => response.method_not_allowed(b"Allow: GET, HEAD\r\n"),
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
