//! The four routes: what each request is answered with.

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
}

impl App {
    pub fn new(todos: Arc<[Todo]>, db: Db) -> Self {
        Self { todos, db }
    }

    pub fn db(&self) -> &Db {
        &self.db
    }

    /// Appends the answer to one request to `out`; `scratch` is a reusable JSON buffer.
    pub async fn respond(&self, head: &Head, body: &[u8], out: &mut Vec<u8>, scratch: &mut Vec<u8>) {
        let response = Response::to(out, head);
        let readable = matches!(head.method, Method::Get | Method::Head);
        match head.route {
            Route::Plaintext if readable => response.plaintext(),
            Route::Todo if readable => json(response, scratch, &*self.todos),
            Route::Echo if head.method == Method::Post => match serde_json::from_slice::<Colors>(body) {
                Ok(colors) => json(response, scratch, &colors),
                Err(_) => response.error(Status::BadRequest),
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
}

/// Serializes `value` afresh into `scratch` and answers it as JSON.
fn json<T: Serialize + ?Sized>(response: Response<'_>, scratch: &mut Vec<u8>, value: &T) {
    scratch.clear();
    match serde_json::to_writer(&mut *scratch, value) {
        Ok(()) => response.json(scratch),
        Err(_) => response.error(Status::InternalServerError),
    }
}
