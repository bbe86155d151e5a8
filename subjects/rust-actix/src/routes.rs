//! The four routes as an actix-web service configuration.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use deadpool_postgres::Pool;

use crate::config::Config;
use crate::db;
use crate::model::{self, Colors, Todo};

/// Largest accepted request body (1 MiB); larger ones get 413.
const BODY_LIMIT: usize = 1024 * 1024;

/// What every handler can see: the todo items and the database pool.
pub struct AppState {
    todos: Vec<Todo>,
    /// `None` when no `DATABASE_URL` was given: `/users` answers 503.
    pool: Option<Pool>,
}

impl AppState {
    pub fn new(config: &Config) -> Result<Self, String> {
        let pool = match &config.database_url {
            Some(url) => Some(db::pool(url, config.pool_size)?),
            None => None,
        };
        Ok(Self { todos: model::todos(), pool })
    }
}

type SharedState = web::Data<AppState>;

pub fn configure(config: &mut web::ServiceConfig) {
    config
        .app_data(web::JsonConfig::default().limit(BODY_LIMIT))
        .service(web::resource("/api/test").get(plaintext).default_service(web::to(method_not_allowed)))
        .service(web::resource("/rest/todo").get(todo).default_service(web::to(method_not_allowed)))
        .service(web::resource("/echo").post(echo).default_service(web::to(method_not_allowed)))
        .service(web::resource("/users").get(users).default_service(web::to(method_not_allowed)))
        .default_service(web::to(not_found));
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
