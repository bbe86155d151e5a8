//! The routes (the seeds' four, TechEmpower's six in `tfb`, HttpArena's delay, static,
//! json-gzip, upload and download): what each request is answered with.

use std::cell::RefCell;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use flate2::{Compress, Compression, FlushCompress};
use serde::Serialize;

use crate::db::Db;
use crate::http::parser::{Head, Method, Parts, Route};
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
    /// `STATIC_DIR`; `None`: `/static/` is 404.
    static_dir: Option<PathBuf>,
    /// The start-up pattern `/download/{n}` answers a prefix of.
    download: Arc<[u8]>,
    /// This worker's deflate state and output buffer, reset for every gzip answer.
    gzip: RefCell<Gzip>,
}

impl App {
    pub fn new(
        todos: Arc<[Todo]>,
        db: Db,
        cache: Arc<WorldCache>,
        static_dir: Option<PathBuf>,
        download: Arc<[u8]>,
    ) -> Self {
        Self {
            todos,
            db,
            cache,
            json_buffers: RefCell::new(simd_json::Buffers::new(ECHO_SIZE_HINT)),
            static_dir,
            download,
            gzip: RefCell::new(Gzip::new()),
        }
    }

    pub fn db(&self) -> &Db {
        &self.db
    }

    /// Appends the answer to one request to `out`; `scratch` is a reusable JSON buffer.
    pub async fn respond(&self, head: &Head, parts: Parts<'_>, out: &mut Vec<u8>, scratch: &mut Vec<u8>) {
        let response = Response::to(out, head);
        let readable = matches!(head.method, Method::Get | Method::Head);
        match head.route {
            Route::Plaintext if readable => response.plaintext(),
            Route::Todo if readable => self.todo(response, scratch, head.accept_gzip),
            Route::Echo if head.method == Method::Post => match self.parse_colors(parts.body) {
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
            Route::Static if readable => self.static_file(response, &parts, head.if_modified_since),
            // The parser has read the whole body (chunked or not, 413 past 1 MiB).
            Route::Upload if head.method == Method::Post => {
                let mut answer = [0u8; 32];
                let mut cursor = &mut answer[..];
                let _ = write!(cursor, "{} {:08x}", parts.body.len(), crc32fast::hash(parts.body));
                let written = 32 - cursor.len();
                response.text(&answer[..written])
            }
            Route::Download(n) if readable => response.octets(&self.download[..n as usize]),
            Route::Plaintext | Route::Todo | Route::Users | Route::Json | Route::Db | Route::Queries(_)
            | Route::Fortunes | Route::Updates(_) | Route::CachedQueries(_) | Route::Delay(_)
            | Route::Static | Route::Download(_) => response.method_not_allowed(b"Allow: GET, HEAD\r\n"),
            Route::Echo | Route::Upload => response.method_not_allowed(b"Allow: POST\r\n"),
            Route::NotFound => response.error(Status::NotFound),
        }
    }

    /// The todo list serialized afresh, and gzip-compressed afresh when Accept-Encoding allows
    /// it (this server has no compression layer: the deflate stream is reset and run per answer).
    fn todo(&self, response: Response<'_>, scratch: &mut Vec<u8>, gzip: bool) {
        scratch.clear();
        if sonic_rs::to_writer(&mut *scratch, &*self.todos).is_err() {
            return response.error(Status::InternalServerError);
        }
        if !gzip {
            return response.json_negotiated(scratch, false);
        }
        let mut encoder = self.gzip.borrow_mut();
        match encoder.compress(scratch) {
            Some(compressed) => response.json_negotiated(compressed, true),
            None => response.error(Status::InternalServerError),
        }
    }

    /// A file of `STATIC_DIR`, opened and read per request with `std::fs` (the page cache keeps
    /// it hot; nothing is held in memory). Its ETag (size and mtime) and Last-Modified come from
    /// the open file's metadata; If-None-Match, when sent, decides alone (RFC 9110 §13.1.3), else
    /// If-Modified-Since not older than the mtime gets 304. The name must be one path component,
    /// so nothing outside the folder can be named.
    fn static_file(&self, response: Response<'_>, parts: &Parts<'_>, if_modified_since: Option<u64>) {
        let name = parts.static_name;
        let one_component = !name.is_empty()
            && name != b"."
            && name != b".."
            && !name.iter().any(|&b| b == b'/' || b == 0);
        let Some(dir) = self.static_dir.as_ref().filter(|_| one_component) else {
            return response.error(Status::NotFound);
        };
        let Ok(file) = File::open(dir.join(OsStr::from_bytes(name))) else {
            return response.error(Status::NotFound);
        };
        let Ok(metadata) = file.metadata() else {
            return response.error(Status::InternalServerError);
        };
        if !metadata.is_file() {
            return response.error(Status::NotFound);
        }
        let modified = metadata.modified().unwrap_or(UNIX_EPOCH);
        let mtime = modified.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let len = metadata.len();

        const FIELDS: usize = 160;
        let mut fields = [0u8; FIELDS];
        let mut cursor = &mut fields[..];
        let etag_start = b"ETag: ".len();
        let _ = write!(cursor, "ETag: \"{len:x}-{mtime:x}\"\r\nLast-Modified: {}\r\n", httpdate::HttpDate::from(modified));
        let written = FIELDS - cursor.len();
        let fields = &fields[..written];
        let etag = &fields[etag_start..fields.iter().position(|&b| b == b'\r').unwrap_or(etag_start)];

        let fresh = if !parts.if_none_match.is_empty() {
            etag_matches(parts.if_none_match, etag)
        } else {
            if_modified_since.is_some_and(|since| mtime <= since)
        };
        if fresh {
            return response.not_modified(fields);
        }
        let Ok(len) = usize::try_from(len) else {
            return response.error(Status::InternalServerError);
        };
        response.sized(ContentType::of_file(name), fields, len, |out| {
            out.reserve(len);
            file.take(len as u64).read_to_end(out).is_ok()
        });
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

/// A gzip member's fixed header: deflate, no flags, no mtime, no extra flags, OS unknown.
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];

/// gzip by hand around flate2's raw deflate (RFC 1952: header, deflate stream, CRC-32 and
/// length), so that a worker reuses one deflate state (about 300 KiB) instead of allocating one
/// per answer as `GzEncoder::new` would. flate2's default level (6), as zlib's gzip.
struct Gzip {
    deflate: Compress,
    out: Vec<u8>,
}

impl Gzip {
    fn new() -> Self {
        Self { deflate: Compress::new(Compression::default(), false), out: Vec::new() }
    }

    /// `input` as one gzip member, or `None` if deflate fails.
    fn compress(&mut self, input: &[u8]) -> Option<&[u8]> {
        self.deflate.reset();
        self.out.clear();
        self.out.extend_from_slice(&GZIP_HEADER);
        self.out.reserve(input.len() + 64);
        let start = self.deflate.total_in();
        loop {
            let consumed = usize::try_from(self.deflate.total_in() - start).ok()?;
            let status = self.deflate.compress_vec(&input[consumed..], &mut self.out, FlushCompress::Finish).ok()?;
            match status {
                flate2::Status::StreamEnd => break,
                // Out of room: grow and go on.
                flate2::Status::Ok | flate2::Status::BufError => self.out.reserve(self.out.capacity().max(256)),
            }
        }
        self.out.extend_from_slice(&crc32fast::hash(input).to_le_bytes());
        self.out.extend_from_slice(&(input.len() as u32).to_le_bytes());
        Some(&self.out)
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
