//! Response encoding straight into the connection's write buffer: static header bytes,
//! a `Date` value rendered once per second per thread, and no allocation per response.

use std::cell::Cell;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::parser::Head;

/// Length of an IMF-fixdate, e.g. `Sun, 29 Nov 2026 19:01:24 GMT`.
const DATE_LEN: usize = 29;

thread_local! {
    /// This worker thread's `Date` value, kept current by [`refresh_date`].
    static DATE: Cell<[u8; DATE_LEN]> = Cell::new(render_date(SystemTime::now()));
}

fn render_date(now: SystemTime) -> [u8; DATE_LEN] {
    let mut date = *b"Thu, 01 Jan 1970 00:00:00 GMT";
    let text = httpdate::fmt_http_date(now);
    if text.len() == DATE_LEN {
        date.copy_from_slice(text.as_bytes());
    }
    date
}

/// Re-renders this thread's `Date` value at every turn of the second; runs forever.
pub async fn refresh_date() {
    loop {
        let now = SystemTime::now();
        DATE.set(render_date(now));
        let into_second = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let to_next = Duration::from_nanos(u64::from(1_000_000_000 - into_second));
        tokio::time::sleep(to_next).await;
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    NotModified,
    BadRequest,
    NotFound,
    MethodNotAllowed,
    RequestTimeout,
    PayloadTooLarge,
    HeaderFieldsTooLarge,
    InternalServerError,
    ServiceUnavailable,
}

impl Status {
    pub fn from_code(code: u16) -> Self {
        match code {
            200 => Status::Ok,
            404 => Status::NotFound,
            405 => Status::MethodNotAllowed,
            408 => Status::RequestTimeout,
            413 => Status::PayloadTooLarge,
            431 => Status::HeaderFieldsTooLarge,
            500 => Status::InternalServerError,
            503 => Status::ServiceUnavailable,
            _ => Status::BadRequest,
        }
    }

    fn line(self) -> &'static [u8] {
        match self {
            Status::Ok => b"HTTP/1.1 200 OK\r\n",
            Status::NotModified => b"HTTP/1.1 304 Not Modified\r\n",
            Status::BadRequest => b"HTTP/1.1 400 Bad Request\r\n",
            Status::NotFound => b"HTTP/1.1 404 Not Found\r\n",
            Status::MethodNotAllowed => b"HTTP/1.1 405 Method Not Allowed\r\n",
            Status::RequestTimeout => b"HTTP/1.1 408 Request Timeout\r\n",
            Status::PayloadTooLarge => b"HTTP/1.1 413 Payload Too Large\r\n",
            Status::HeaderFieldsTooLarge => b"HTTP/1.1 431 Request Header Fields Too Large\r\n",
            Status::InternalServerError => b"HTTP/1.1 500 Internal Server Error\r\n",
            Status::ServiceUnavailable => b"HTTP/1.1 503 Service Unavailable\r\n",
        }
    }

    /// The body of an error answer: the reason phrase.
    fn reason(self) -> &'static [u8] {
        let line = self.line();
        &line[b"HTTP/1.1 200 ".len()..line.len() - 2]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentType {
    Text,
    Json,
    Html,
    Css,
    JavaScript,
    OctetStream,
}

impl ContentType {
    fn header(self) -> &'static [u8] {
        match self {
            ContentType::Text => b"Content-Type: text/plain; charset=utf-8\r\n",
            ContentType::Json => b"Content-Type: application/json\r\n",
            ContentType::Html => b"Content-Type: text/html; charset=utf-8\r\n",
            ContentType::Css => b"Content-Type: text/css; charset=utf-8\r\n",
            ContentType::JavaScript => b"Content-Type: text/javascript; charset=utf-8\r\n",
            ContentType::OctetStream => b"Content-Type: application/octet-stream\r\n",
        }
    }

    /// The type of a static file by its name's extension; unknown ones are octets.
    pub fn of_file(name: &[u8]) -> Self {
        let extension = name.rsplit(|&b| b == b'.').next().filter(|_| name.contains(&b'.')).unwrap_or_default();
        match extension.to_ascii_lowercase().as_slice() {
            b"html" | b"htm" => ContentType::Html,
            b"txt" => ContentType::Text,
            b"css" => ContentType::Css,
            b"js" | b"mjs" => ContentType::JavaScript,
            b"json" => ContentType::Json,
            _ => ContentType::OctetStream,
        }
    }
}

/// The whole head of the plaintext answer up to the date, encoded once.
const PLAINTEXT_HEAD: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\nDate: ";
const PLAINTEXT_BODY: &[u8] = b"Hello, World!";

/// One answer being written into the connection's output buffer.
pub struct Response<'a> {
    out: &'a mut Vec<u8>,
    connection: &'static [u8],
    head_only: bool,
}

impl<'a> Response<'a> {
    /// An answer to `head`, keeping its connection semantics (and no body for HEAD).
    pub fn to(out: &'a mut Vec<u8>, head: &Head) -> Self {
        let connection: &'static [u8] = match (head.keep_alive, head.http10) {
            (false, _) => b"Connection: close\r\n",
            (true, true) => b"Connection: keep-alive\r\n",
            (true, false) => b"",
        };
        let head_only = head.method == super::parser::Method::Head;
        Self { out, connection, head_only }
    }

    /// An answer after which the connection is closed, e.g. to an unparseable request.
    pub fn closing(out: &'a mut Vec<u8>) -> Self {
        Self { out, connection: b"Connection: close\r\n", head_only: false }
    }

    pub fn plaintext(mut self) {
        self.out.extend_from_slice(PLAINTEXT_HEAD);
        self.finish_head();
        if !self.head_only {
            self.out.extend_from_slice(PLAINTEXT_BODY);
        }
    }

    /// A plain-text `200` with `body`.
    pub fn text(self, body: &[u8]) {
        self.send(Status::Ok, ContentType::Text, b"", body);
    }

    pub fn json(self, body: &[u8]) {
        self.send(Status::Ok, ContentType::Json, b"", body);
    }

    /// A JSON `200` whose representation depends on Accept-Encoding: `gzip` says the body is
    /// gzip-compressed, and `Vary` is sent either way.
    pub fn json_negotiated(self, body: &[u8], gzip: bool) {
        let fields: &[u8] = if gzip {
            b"Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n"
        } else {
            b"Vary: Accept-Encoding\r\n"
        };
        self.send(Status::Ok, ContentType::Json, fields, body);
    }

    /// A `200` of raw bytes (`application/octet-stream`).
    pub fn octets(self, body: &[u8]) {
        self.send(Status::Ok, ContentType::OctetStream, b"", body);
    }

    /// A `200` of `len` bytes that `fill` appends (a file read from disk), with `extra` fields
    /// (complete lines). If `fill` fails or appends another count, the answer is a 500 instead.
    pub fn sized(self, content_type: ContentType, extra: &[u8], len: usize, fill: impl FnOnce(&mut Vec<u8>) -> bool) {
        let Self { out, connection, head_only } = self;
        let start = out.len();
        out.extend_from_slice(Status::Ok.line());
        out.extend_from_slice(content_type.header());
        out.extend_from_slice(b"Content-Length: ");
        out.extend_from_slice(itoa::Buffer::new().format(len).as_bytes());
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(extra);
        out.extend_from_slice(b"Date: ");
        let mut response = Self { out, connection, head_only };
        response.finish_head();
        if head_only {
            return;
        }
        let body_start = response.out.len();
        if !fill(response.out) || response.out.len() - body_start != len {
            response.out.truncate(start);
            response.error(Status::InternalServerError);
        }
    }

    /// `304 Not Modified` with `extra` fields (the validators): no body, so no Content-Length.
    pub fn not_modified(mut self, extra: &[u8]) {
        self.out.extend_from_slice(Status::NotModified.line());
        self.out.extend_from_slice(extra);
        self.out.extend_from_slice(b"Date: ");
        self.finish_head();
    }

    /// A TechEmpower answer, with the `Server` field TechEmpower requires.
    pub fn techempower(self, content_type: ContentType, body: &[u8]) {
        self.send(Status::Ok, content_type, b"Server: rust-reference\r\n", body);
    }

    /// A plain-text error naming the status, e.g. `Not Found`.
    pub fn error(self, status: Status) {
        self.send(status, ContentType::Text, b"", status.reason());
    }

    /// 405 with the `Allow` field (complete line, CRLF included).
    pub fn method_not_allowed(self, allow: &[u8]) {
        let status = Status::MethodNotAllowed;
        self.send(status, ContentType::Text, allow, status.reason());
    }

    fn send(mut self, status: Status, content_type: ContentType, extra: &[u8], body: &[u8]) {
        let out = &mut *self.out;
        out.extend_from_slice(status.line());
        out.extend_from_slice(content_type.header());
        out.extend_from_slice(b"Content-Length: ");
        out.extend_from_slice(itoa::Buffer::new().format(body.len()).as_bytes());
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(extra);
        out.extend_from_slice(b"Date: ");
        self.finish_head();
        if !self.head_only {
            self.out.extend_from_slice(body);
        }
    }

    /// Writes the date value, the connection field and the blank line.
    fn finish_head(&mut self) {
        self.out.extend_from_slice(&DATE.get());
        self.out.extend_from_slice(b"\r\n");
        self.out.extend_from_slice(self.connection);
        self.out.extend_from_slice(b"\r\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::parser::{Method, Route};

    fn head(method: Method, keep_alive: bool, http10: bool) -> Head {
        Head {
            method,
            route: Route::Plaintext,
            http10,
            keep_alive,
            expect_continue: false,
            accept_gzip: false,
            if_modified_since: None,
        }
    }

    #[test]
    fn plaintext_is_framed_and_dated() {
        let mut out = Vec::new();
        Response::to(&mut out, &head(Method::Get, true, false)).plaintext();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("HTTP/1.1 200 OK\r\n"));
        assert!(text.contains("\r\nDate: ") && text.contains(" GMT\r\n"));
        assert!(text.ends_with("\r\n\r\nHello, World!"));
        assert!(!text.contains("Connection"));
    }

    #[test]
    fn connection_fields_and_head_only() {
        let mut out = Vec::new();
        Response::to(&mut out, &head(Method::Head, true, true)).error(Status::NotFound);
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Content-Length: 9\r\n") && text.contains("Connection: keep-alive\r\n"));
        assert!(text.ends_with("\r\n\r\n"), "no body for HEAD: {text:?}");
        let mut out = Vec::new();
        Response::closing(&mut out).error(Status::HeaderFieldsTooLarge);
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("HTTP/1.1 431 ") && text.contains("Connection: close\r\n"));
        assert!(text.ends_with("\r\n\r\nRequest Header Fields Too Large"));
    }

    #[test]
    fn sized_answers_and_not_modified() {
        let mut out = Vec::new();
        Response::to(&mut out, &head(Method::Get, true, false))
            .sized(ContentType::Css, b"ETag: \"1\"\r\n", 3, |out| {
                out.extend_from_slice(b"a{}");
                true
            });
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Content-Length: 3\r\n") && text.contains("ETag: \"1\"\r\n") && text.ends_with("\r\n\r\na{}"));
        let mut out = Vec::new();
        Response::to(&mut out, &head(Method::Get, true, false)).sized(ContentType::Css, b"", 3, |out| {
            out.extend_from_slice(b"a{");
            true
        });
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("HTTP/1.1 500 ") && !text.contains("a{"), "{text:?}");
        let mut out = Vec::new();
        Response::to(&mut out, &head(Method::Get, true, false)).not_modified(b"ETag: \"1\"\r\n");
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("HTTP/1.1 304 ") && !text.contains("Content-Length") && text.ends_with("\r\n\r\n"));
        assert_eq!(ContentType::of_file(b"app.js"), ContentType::JavaScript);
        assert_eq!(ContentType::of_file(b"archive.bin"), ContentType::OctetStream);
        assert_eq!(ContentType::of_file(b"README"), ContentType::OctetStream);
        assert_eq!(ContentType::of_file(b"INDEX.HTML"), ContentType::Html);
    }
}
