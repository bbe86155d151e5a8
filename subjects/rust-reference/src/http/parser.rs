//! An incremental HTTP/1.x request parser: bytes in, complete requests out.
//!
//! It is pure (no I/O), so split reads, pipelining and every malformed input can be
//! unit-tested. The head is parsed by `httparse`; the body framing (Content-Length or
//! chunked) is decoded here with strict rules and hard limits, so no input can make it
//! allocate more than [`MAX_BODY`] bytes or loop without progress.

use std::mem::MaybeUninit;

/// Largest request head (request line + headers); larger ones get 431.
pub const MAX_HEAD: usize = 16 * 1024;
/// Largest request body; larger ones get 413.
pub const MAX_BODY: usize = 1024 * 1024;
/// Most header fields in one head; more get 431.
const MAX_HEADERS: usize = 64;
/// Longest chunk-size line, extensions included (they are read and ignored).
const MAX_CHUNK_LINE: usize = 4 * 1024;
/// Largest trailer section of a chunked body (read and ignored).
const MAX_TRAILERS: usize = 16 * 1024;

/// The resource a request names, resolved once while parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    Plaintext,
    Todo,
    Echo,
    Users,
    /// TechEmpower's types; the row counts are clamped to 1..=500 here.
    Json,
    Db,
    Queries(u16),
    Fortunes,
    Updates(u16),
    CachedQueries(u16),
    /// HttpArena's slow handler: `/delay/{ms}`, whole milliseconds up to [`DELAY_MAX_MS`].
    Delay(u16),
    /// HttpArena's static files: `/static/{file}`, the decoded name in [`Parts::static_name`].
    Static,
    /// HttpArena's upload: `POST /upload`, answered with the body's length and CRC-32.
    Upload,
    /// HttpArena's download: `/download/{n}`, n bytes up to [`DOWNLOAD_MAX`].
    Download(u32),
    NotFound,
}

/// Longest wait `/delay/{ms}` grants; a longer one is 404 like any path that is not a route.
pub const DELAY_MAX_MS: u16 = 10_000;
/// Largest `/download/{n}` (10 MiB); a larger one is 404 like any path that is not a route.
pub const DOWNLOAD_MAX: u32 = 10 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
    Post,
    Other,
}

/// What the server needs from a request head; nothing borrows the read buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    pub method: Method,
    pub route: Route,
    /// HTTP/1.0 (answers keep-alive only when asked to).
    pub http10: bool,
    /// Whether the connection stays open after this request.
    pub keep_alive: bool,
    /// The client waits for `100 Continue` before sending the body.
    pub expect_continue: bool,
    /// Todo only: Accept-Encoding allows gzip.
    pub accept_gzip: bool,
    /// Static only: If-Modified-Since, as seconds since the Unix epoch.
    pub if_modified_since: Option<u64>,
}

/// A complete request's parts beyond its head, borrowed from the parser.
pub struct Parts<'a> {
    /// The decoded body, writable: the JSON parser decodes strings in place.
    pub body: &'a mut [u8],
    /// Static only: the percent-decoded file name after `/static/` (checked by the app).
    pub static_name: &'a [u8],
    /// Static only: the If-None-Match fields, joined by commas; empty when there were none.
    pub if_none_match: &'a [u8],
}

/// A request the server must refuse; the connection is closed after the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseError {
    /// Malformed syntax or framing: 400.
    BadRequest,
    /// Head over [`MAX_HEAD`] bytes or [`MAX_HEADERS`] fields: 431.
    HeadTooLarge,
    /// Body over [`MAX_BODY`] bytes: 413.
    BodyTooLarge,
}

impl ParseError {
    pub fn status(self) -> u16 {
        match self {
            ParseError::BadRequest => 400,
            ParseError::HeadTooLarge => 431,
            ParseError::BodyTooLarge => 413,
        }
    }
}

/// Result of one [`Parser::parse`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parsed {
    /// Bytes of the input used up; the caller drops them from its buffer.
    pub consumed: usize,
    /// A whole request is ready in [`Parser::head`] and [`Parser::body`].
    pub complete: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Head,
    Fixed { remaining: usize },
    ChunkSize,
    ChunkData { remaining: usize },
    ChunkDataEnd,
    Trailers { seen: usize },
    Done,
}

/// Parses one request at a time; reuse it for every request of a connection.
#[derive(Debug)]
pub struct Parser {
    phase: Phase,
    head: Option<Head>,
    body: Vec<u8>,
    continue_sent: bool,
    static_name: Vec<u8>,
    if_none_match: Vec<u8>,
}

impl Default for Parser {
    fn default() -> Self {
        Self::new()
    }
}

impl Parser {
    pub fn new() -> Self {
        Self {
            phase: Phase::Head,
            head: None,
            body: Vec::new(),
            continue_sent: false,
            static_name: Vec::new(),
            if_none_match: Vec::new(),
        }
    }

    /// Consumes what it can of `input`. After a complete request, the next call starts
    /// the following one (pipelining); after an error the connection must be closed.
    pub fn parse(&mut self, input: &[u8]) -> Result<Parsed, ParseError> {
        if self.phase == Phase::Done {
            self.start_next();
        }
        let mut consumed = 0;
        loop {
            let rest = &input[consumed..];
            let step = match self.phase {
                Phase::Head => self.parse_head(rest)?,
                Phase::Fixed { remaining } => {
                    let take = remaining.min(rest.len());
                    self.body.extend_from_slice(&rest[..take]);
                    self.phase = match remaining - take {
                        0 => Phase::Done,
                        remaining => Phase::Fixed { remaining },
                    };
                    Some(take)
                }
                Phase::ChunkSize => self.parse_chunk_size(rest)?,
                Phase::ChunkData { remaining } => {
                    let take = remaining.min(rest.len());
                    self.body.extend_from_slice(&rest[..take]);
                    self.phase = match remaining - take {
                        0 => Phase::ChunkDataEnd,
                        remaining => Phase::ChunkData { remaining },
                    };
                    Some(take)
                }
                Phase::ChunkDataEnd => match rest {
                    [b'\r', b'\n', ..] => {
                        self.phase = Phase::ChunkSize;
                        Some(2)
                    }
                    [] | [b'\r'] => None,
                    _ => return Err(ParseError::BadRequest),
                },
                Phase::Trailers { seen } => self.parse_trailer(rest, seen)?,
                Phase::Done => return Ok(Parsed { consumed, complete: true }),
            };
            match step {
                Some(used) if used > 0 || self.phase == Phase::Done => consumed += used,
                _ => return Ok(Parsed { consumed, complete: false }),
            }
        }
    }

    /// The head of the request being parsed, once it is complete.
    pub fn head(&self) -> Option<&Head> {
        self.head.as_ref()
    }

    /// The decoded body (writable: the JSON parser decodes strings in place) and the
    /// static-file fields of the complete request.
    pub fn parts(&mut self) -> Parts<'_> {
        Parts { body: &mut self.body, static_name: &self.static_name, if_none_match: &self.if_none_match }
    }

    /// True while a head has been parsed and its body is still expected.
    pub fn in_body(&self) -> bool {
        !matches!(self.phase, Phase::Head | Phase::Done)
    }

    /// True once per request when the client waits for `100 Continue` before its body.
    pub fn take_continue(&mut self) -> bool {
        let waiting = self.in_body()
            && self.body.is_empty()
            && !self.continue_sent
            && self.head.is_some_and(|head| head.expect_continue);
        self.continue_sent |= waiting;
        waiting
    }

    fn start_next(&mut self) {
        self.phase = Phase::Head;
        self.head = None;
        self.continue_sent = false;
        self.body.clear();
        self.static_name.clear();
        self.if_none_match.clear();
        // A rare large body must not stay allocated for the connection's lifetime.
        if self.body.capacity() > 64 * 1024 {
            self.body = Vec::new();
        }
    }

    /// Parses the head if it is complete, choosing the body framing. `None`: need more bytes.
    fn parse_head(&mut self, input: &[u8]) -> Result<Option<usize>, ParseError> {
        let window = &input[..input.len().min(MAX_HEAD)];
        // Left uninitialized: httparse writes only the fields it finds, so a request does not
        // pay for zeroing all 64 (2 KiB) first.
        let mut fields = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; MAX_HEADERS];
        let mut request = httparse::Request::new(&mut []);
        let len = match request.parse_with_uninit_headers(window, &mut fields) {
            Ok(httparse::Status::Complete(len)) => len,
            Ok(httparse::Status::Partial) if window.len() >= MAX_HEAD => {
                return Err(ParseError::HeadTooLarge);
            }
            Ok(httparse::Status::Partial) => return Ok(None),
            Err(httparse::Error::TooManyHeaders) => return Err(ParseError::HeadTooLarge),
            Err(_) => return Err(ParseError::BadRequest),
        };
        let http10 = request.version == Some(0);
        let method = match request.method {
            Some("GET") => Method::Get,
            Some("HEAD") => Method::Head,
            Some("POST") => Method::Post,
            _ => Method::Other,
        };
        let target = request.path.unwrap_or_default();
        let route = route(target);
        if route == Route::Static {
            let path = target.split_once('?').map_or(target, |(path, _)| path);
            percent_decode_into(&path.as_bytes()["/static/".len()..], &mut self.static_name);
        }

        let mut framing = Framing::default();
        let (mut close, mut keep_alive, mut expect_continue) = (false, false, false);
        let (mut accept_gzip, mut if_modified_since) = (false, None);
        for field in request.headers.iter() {
            let name = field.name;
            let value = trim(field.value);
            if name.eq_ignore_ascii_case("content-length") {
                framing.content_length(value)?;
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                framing.transfer_encoding(value)?;
            } else if name.eq_ignore_ascii_case("connection") {
                for token in value.split(|&b| b == b',').map(trim) {
                    close |= token.eq_ignore_ascii_case(b"close");
                    keep_alive |= token.eq_ignore_ascii_case(b"keep-alive");
                }
            } else if name.eq_ignore_ascii_case("expect") {
                expect_continue = !http10 && value.eq_ignore_ascii_case(b"100-continue");
            } else if route == Route::Todo && name.eq_ignore_ascii_case("accept-encoding") {
                accept_gzip = accepts_gzip(value);
            } else if route == Route::Static && name.eq_ignore_ascii_case("if-none-match") {
                if !self.if_none_match.is_empty() {
                    self.if_none_match.push(b',');
                }
                self.if_none_match.extend_from_slice(value);
            } else if route == Route::Static && name.eq_ignore_ascii_case("if-modified-since") {
                // An unparseable date is ignored, as RFC 9110 §13.1.3 says.
                if_modified_since = std::str::from_utf8(value)
                    .ok()
                    .and_then(|date| httpdate::parse_http_date(date).ok())
                    .and_then(|date| date.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|since| since.as_secs());
            }
        }

        self.phase = match framing {
            Framing { chunked: true, .. } if http10 => return Err(ParseError::BadRequest),
            Framing { chunked: true, .. } => Phase::ChunkSize,
            Framing { length: Some(0) | None, .. } => Phase::Done,
            Framing { length: Some(length), .. } => match usize::try_from(length) {
                Ok(remaining) if remaining <= MAX_BODY => Phase::Fixed { remaining },
                _ => return Err(ParseError::BodyTooLarge),
            },
        };
        // Both framings at once smell of request smuggling: honour chunked, then close.
        let ambiguous = framing.chunked && framing.length.is_some();
        let keep_alive = !close && !ambiguous && (!http10 || keep_alive);
        self.head = Some(Head { method, route, http10, keep_alive, expect_continue, accept_gzip, if_modified_since });
        Ok(Some(len))
    }

    /// Reads `size[;extensions]\r\n`. `None`: need more bytes.
    fn parse_chunk_size(&mut self, input: &[u8]) -> Result<Option<usize>, ParseError> {
        let Some(line) = line(input, MAX_CHUNK_LINE)? else {
            return Ok(None);
        };
        let size_end = line.iter().position(|&b| b == b';').unwrap_or(line.len());
        let (digits, extensions) = line.split_at(size_end);
        // At most 16 hex digits, so the size always fits in a u64.
        if digits.is_empty() || digits.len() > 16 || extensions.iter().any(|&b| is_ctl(b)) {
            return Err(ParseError::BadRequest);
        }
        let mut size = 0u64;
        for &digit in digits {
            let value = (digit as char).to_digit(16).ok_or(ParseError::BadRequest)?;
            size = size << 4 | u64::from(value);
        }
        let room = MAX_BODY - self.body.len();
        self.phase = match usize::try_from(size) {
            Ok(0) => Phase::Trailers { seen: 0 },
            Ok(remaining) if remaining <= room => Phase::ChunkData { remaining },
            _ => return Err(ParseError::BodyTooLarge),
        };
        Ok(Some(line.len() + 2))
    }

    /// Reads one trailer line, or the empty line that ends the body. `None`: need more bytes.
    fn parse_trailer(&mut self, input: &[u8], seen: usize) -> Result<Option<usize>, ParseError> {
        let Some(line) = line(input, MAX_TRAILERS - seen)? else {
            return Ok(None);
        };
        if line.is_empty() {
            self.phase = Phase::Done;
            return Ok(Some(2));
        }
        let colon = line.iter().position(|&b| b == b':');
        if colon.is_none_or(|at| at == 0) || line.iter().any(|&b| is_ctl(b) && b != b'\t') {
            return Err(ParseError::BadRequest);
        }
        self.phase = Phase::Trailers { seen: seen + line.len() + 2 };
        Ok(Some(line.len() + 2))
    }
}

/// How the body is delimited, gathered over all header fields.
#[derive(Debug, Default)]
struct Framing {
    length: Option<u64>,
    chunked: bool,
    seen_transfer_encoding: bool,
}

impl Framing {
    /// Only plain decimal digits; repeated fields must agree.
    fn content_length(&mut self, value: &[u8]) -> Result<(), ParseError> {
        if value.is_empty() || value.len() > 18 || !value.iter().all(u8::is_ascii_digit) {
            return Err(ParseError::BadRequest);
        }
        let length = value.iter().fold(0u64, |n, &d| n * 10 + u64::from(d - b'0'));
        match self.length.replace(length) {
            Some(previous) if previous != length => Err(ParseError::BadRequest),
            _ => Ok(()),
        }
    }

    /// Only one field, exactly `chunked`: any other coding is refused.
    fn transfer_encoding(&mut self, value: &[u8]) -> Result<(), ParseError> {
        if self.seen_transfer_encoding || !value.eq_ignore_ascii_case(b"chunked") {
            return Err(ParseError::BadRequest);
        }
        self.seen_transfer_encoding = true;
        self.chunked = true;
        Ok(())
    }
}

/// Maps a request target to a route; the query string counts only for TechEmpower's row
/// counts.
fn route(target: &str) -> Route {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    match path {
        "/api/test" => Route::Plaintext,
        "/rest/todo" => Route::Todo,
        "/echo" => Route::Echo,
        "/users" => Route::Users,
        "/json" => Route::Json,
        "/db" => Route::Db,
        "/queries" => Route::Queries(count(query, "queries")),
        "/fortunes" => Route::Fortunes,
        "/updates" => Route::Updates(count(query, "queries")),
        "/cached-queries" => Route::CachedQueries(count(query, "count")),
        "/upload" => Route::Upload,
        _ if path.starts_with("/static/") => Route::Static,
        _ => match (path.strip_prefix("/delay/").and_then(delay_ms), path.strip_prefix("/download/")) {
            (Some(ms), _) => Route::Delay(ms),
            (None, Some(n)) => download_bytes(n).map_or(Route::NotFound, Route::Download),
            (None, None) => Route::NotFound,
        },
    }
}

/// Plain decimal digits up to [`DOWNLOAD_MAX`].
fn download_bytes(segment: &str) -> Option<u32> {
    if segment.is_empty() || !segment.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    segment.parse().ok().filter(|&n| n <= DOWNLOAD_MAX)
}

/// Appends `input` with its `%XX` escapes decoded; a `%` not followed by two hex digits stays.
fn percent_decode_into(input: &[u8], out: &mut Vec<u8>) {
    let hex = |b: u8| (b as char).to_digit(16);
    let mut i = 0;
    while i < input.len() {
        match (input[i], input.get(i + 1).copied().and_then(hex), input.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
}

/// Whether an Accept-Encoding value allows gzip: `gzip` (or `x-gzip`) with a quality above 0,
/// or, when gzip is not named, `*` with one. `identity` alone or `gzip;q=0` refuses it.
fn accepts_gzip(value: &[u8]) -> bool {
    let (mut gzip, mut any) = (None, None);
    for item in value.split(|&b| b == b',') {
        let mut params = item.split(|&b| b == b';');
        let coding = trim(params.next().unwrap_or_default());
        let allowed = params
            .filter_map(|param| {
                let (key, q) = param.split_at(param.iter().position(|&b| b == b'=')?);
                trim(key).eq_ignore_ascii_case(b"q").then(|| trim(&q[1..]))
            })
            .next_back()
            // A quality is zero only as `0`, `0.`, `0.0`, … (RFC 9110 §12.4.2).
            .is_none_or(|q| !(q.first() == Some(&b'0') && q[1..].iter().all(|&b| b == b'.' || b == b'0')));
        if coding.eq_ignore_ascii_case(b"gzip") || coding.eq_ignore_ascii_case(b"x-gzip") {
            gzip = Some(allowed);
        } else if coding == b"*" {
            any = Some(allowed);
        }
    }
    gzip.or(any).unwrap_or(false)
}

/// Plain decimal digits up to [`DELAY_MAX_MS`] (`u16::from_str` would also take a leading `+`).
fn delay_ms(segment: &str) -> Option<u16> {
    if segment.is_empty() || !segment.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    segment.parse().ok().filter(|&ms| ms <= DELAY_MAX_MS)
}

/// `name=N` of a query string, clamped to 1..=500; missing or not a number is 1.
fn count(query: &str, name: &str) -> u16 {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
        .and_then(|v| v.parse::<i64>().ok())
        .unwrap_or(1)
        .clamp(1, 500) as u16
}

/// The next CRLF-terminated line (without the CRLF), within `limit` bytes.
/// `None`: no line end yet; a bare LF or an over-long line is an error.
fn line(input: &[u8], limit: usize) -> Result<Option<&[u8]>, ParseError> {
    let window = &input[..input.len().min(limit)];
    match window.iter().position(|&b| b == b'\n') {
        Some(end) if end > 0 && window[end - 1] == b'\r' => {
            let line = &window[..end - 1];
            if line.contains(&b'\r') {
                Err(ParseError::BadRequest)
            } else {
                Ok(Some(line))
            }
        }
        Some(_) => Err(ParseError::BadRequest),
        None if window.len() >= limit => Err(ParseError::BadRequest),
        None => Ok(None),
    }
}

fn trim(bytes: &[u8]) -> &[u8] {
    bytes.trim_ascii()
}

fn is_ctl(byte: u8) -> bool {
    byte < 0x20 || byte == 0x7f
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `input` in pieces of `step` bytes, as a socket might deliver it, and
    /// collects every complete request (head and body) or the first error.
    fn feed(input: &[u8], step: usize) -> Result<Vec<(Head, Vec<u8>)>, ParseError> {
        let mut parser = Parser::new();
        let mut buffer = Vec::new();
        let mut requests = Vec::new();
        for piece in input.chunks(step.max(1)) {
            buffer.extend_from_slice(piece);
            loop {
                let parsed = parser.parse(&buffer)?;
                buffer.drain(..parsed.consumed);
                if !parsed.complete {
                    break;
                }
                requests.push((*parser.head().unwrap(), parser.parts().body.to_vec()));
            }
        }
        Ok(requests)
    }

    fn feed_all_ways(input: &[u8]) -> Result<Vec<(Head, Vec<u8>)>, ParseError> {
        let whole = feed(input, input.len());
        for step in [1, 2, 3, 7, 64] {
            assert_eq!(feed(input, step), whole, "split into {step}-byte reads");
        }
        whole
    }

    #[test]
    fn simple_get() {
        let requests = feed_all_ways(b"GET /api/test HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        assert_eq!(requests.len(), 1);
        let (head, body) = &requests[0];
        assert_eq!((head.method, head.route, head.keep_alive), (Method::Get, Route::Plaintext, true));
        assert!(body.is_empty());
    }

    #[test]
    fn pipelined_requests_in_order() {
        let mut input = Vec::new();
        for _ in 0..16 {
            input.extend_from_slice(b"GET /rest/todo HTTP/1.1\r\nHost: x\r\n\r\n");
        }
        input.extend_from_slice(b"POST /echo HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}");
        input.extend_from_slice(b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n");
        input.extend_from_slice(b"GET /users?x=1 HTTP/1.1\r\n\r\n");
        let requests = feed_all_ways(&input).unwrap();
        assert_eq!(requests.len(), 19);
        assert!(requests[..16].iter().all(|(head, _)| head.route == Route::Todo));
        assert_eq!(requests[16].1, b"{}");
        assert_eq!(requests[17].1, b"[]");
        assert_eq!(requests[18].0.route, Route::Users);
        for (target, want) in [
            ("/queries?queries=2", Route::Queries(2)),
            ("/queries?queries=0", Route::Queries(1)),
            ("/queries?queries=foo", Route::Queries(1)),
            ("/updates?queries=501", Route::Updates(500)),
            ("/cached-queries?count=", Route::CachedQueries(1)),
            ("/queries", Route::Queries(1)),
        ] {
            assert_eq!(route(target), want, "{target}");
        }
    }

    #[test]
    fn delay_takes_whole_milliseconds_up_to_the_limit() {
        for (target, want) in [
            ("/delay/10", Route::Delay(10)),
            ("/delay/0", Route::Delay(0)),
            ("/delay/010?x=1", Route::Delay(10)),
            ("/delay/10000", Route::Delay(10_000)),
            ("/delay/10001", Route::NotFound),
            ("/delay/99999999999999999999", Route::NotFound),
            ("/delay/soon", Route::NotFound),
            ("/delay/+5", Route::NotFound),
            ("/delay/", Route::NotFound),
            ("/delay/5/6", Route::NotFound),
        ] {
            assert_eq!(route(target), want, "{target}");
        }
    }

    #[test]
    fn httparena_routes() {
        for (target, want) in [
            ("/upload", Route::Upload),
            ("/download/102400", Route::Download(102_400)),
            ("/download/0", Route::Download(0)),
            ("/download/10485760", Route::Download(10_485_760)),
            ("/download/10485761", Route::NotFound),
            ("/download/ten", Route::NotFound),
            ("/download/", Route::NotFound),
            ("/static/index.html", Route::Static),
            ("/static", Route::NotFound),
        ] {
            assert_eq!(route(target), want, "{target}");
        }
        let mut parser = Parser::new();
        let input = b"GET /static/a%20b%2e%2Ftxt?v=1 HTTP/1.1\r\nIf-None-Match: \"x\"\r\nIf-None-Match: W/\"y\"\r\n\
            If-Modified-Since: Thu, 01 Jan 2026 00:00:00 GMT\r\n\r\n";
        assert!(parser.parse(input).unwrap().complete);
        assert_eq!(parser.head().unwrap().if_modified_since, Some(1_767_225_600));
        let parts = parser.parts();
        assert_eq!((parts.static_name, parts.if_none_match), (&b"a b./txt"[..], &b"\"x\",W/\"y\""[..]));
    }

    #[test]
    fn accept_encoding_allows_gzip() {
        for (value, want) in [
            ("gzip, br", true),
            ("br;q=1.0, gzip;q=0.5", true),
            ("GZIP", true),
            ("*", true),
            ("identity", false),
            ("", false),
            ("gzip;q=0", false),
            ("gzip; q=0.000, *", false),
            ("*;q=0", false),
            ("deflate, *;q=0.1", true),
        ] {
            assert_eq!(accepts_gzip(value.as_bytes()), want, "{value:?}");
        }
    }

    #[test]
    fn chunked_body_with_extensions_and_trailers() {
        let input = b"POST /echo HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n\
            4;ext=1\r\n{\"a\"\r\nB\r\n:[1,2,3,4]}\r\n0\r\nX-Trailer: yes\r\n\r\n";
        let requests = feed_all_ways(input).unwrap();
        assert_eq!(requests[0].1, b"{\"a\":[1,2,3,4]}");
    }

    #[test]
    fn malformed_chunks_are_rejected() {
        for body in [
            &b"\r\n"[..],
            b"0x5\r\nhello\r\n0\r\n\r\n",
            b"+5\r\nhello\r\n0\r\n\r\n",
            b" 5\r\nhello\r\n0\r\n\r\n",
            b"5 0\r\nhello\r\n0\r\n\r\n",
            b"fffffffffffffffff\r\n",
            b"5\nhello\r\n0\r\n\r\n",
            b"5\r\nhelloXX0\r\n\r\n",
            b"5;a\rb\r\nhello\r\n0\r\n\r\n",
            b"0\r\nnot a trailer\r\n\r\n",
        ] {
            let mut input = b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
            input.extend_from_slice(body);
            assert_eq!(feed(&input, input.len()), Err(ParseError::BadRequest), "{:?}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn chunk_sizes_cannot_overflow_the_body_limit() {
        let input = b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1000\r\n";
        let mut input = input.to_vec();
        input.extend(std::iter::repeat_n(b'a', 0x1000));
        input.extend_from_slice(b"\r\nfffffffffffff000\r\n");
        assert_eq!(feed(&input, 1000), Err(ParseError::BodyTooLarge));
    }

    #[test]
    fn endless_chunk_extension_is_cut_off() {
        let mut input = b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2;".to_vec();
        input.extend(std::iter::repeat_n(b'x', 32 * 1024));
        assert_eq!(feed(&input, 512), Err(ParseError::BadRequest));
    }

    #[test]
    fn oversized_heads_get_431() {
        let mut input = b"GET /api/test HTTP/1.1\r\nX-Big: ".to_vec();
        input.extend(std::iter::repeat_n(b'a', MAX_HEAD));
        input.extend_from_slice(b"\r\n\r\n");
        assert_eq!(feed(&input, 4096), Err(ParseError::HeadTooLarge));
        let mut input = b"GET /api/test HTTP/1.1\r\n".to_vec();
        for i in 0..=MAX_HEADERS {
            input.extend_from_slice(format!("X-{i}: 1\r\n").as_bytes());
        }
        input.extend_from_slice(b"\r\n");
        assert_eq!(feed(&input, input.len()), Err(ParseError::HeadTooLarge));
    }

    #[test]
    fn oversized_bodies_get_413_before_reading_them() {
        let input = format!("POST /echo HTTP/1.1\r\nContent-Length: {}\r\n\r\n", MAX_BODY + 1);
        assert_eq!(feed(input.as_bytes(), 5), Err(ParseError::BodyTooLarge));
        let input = format!("POST /echo HTTP/1.1\r\nContent-Length: {MAX_BODY}\r\n\r\n");
        assert_eq!(feed(input.as_bytes(), 5), Ok(vec![]), "exactly the limit waits for the body");
    }

    #[test]
    fn content_length_must_be_plain_and_consistent() {
        for value in ["+3", "1Z", "0x10", "", "-48", "1,0", "99999999999999999999"] {
            let input = format!("POST /echo HTTP/1.1\r\nContent-Length: {value}\r\n\r\n");
            assert_eq!(feed(input.as_bytes(), 64), Err(ParseError::BadRequest), "{value:?}");
        }
        let conflicting = b"POST /echo HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 0\r\n\r\nx";
        assert_eq!(feed(conflicting, 64), Err(ParseError::BadRequest));
        let repeated = b"POST /echo HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx";
        assert_eq!(feed(repeated, 64).unwrap()[0].1, b"x");
    }

    #[test]
    fn transfer_encoding_rules() {
        for te in ["gzip", "chunked, gzip", ",chunked", "chunked\x0b"] {
            let input = format!("POST /echo HTTP/1.1\r\nTransfer-Encoding: {te}\r\n\r\n0\r\n\r\n");
            assert_eq!(feed(input.as_bytes(), 64), Err(ParseError::BadRequest), "{te:?}");
        }
        let twice = b"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert_eq!(feed(twice, 64), Err(ParseError::BadRequest));
        let http10 = b"POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
        assert_eq!(feed(http10, 64), Err(ParseError::BadRequest));
        // Both framings: chunked wins and the connection is closed afterwards.
        let both = b"POST /echo HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n";
        let requests = feed(both, 64).unwrap();
        assert_eq!((requests[0].1.as_slice(), requests[0].0.keep_alive), (&b"x"[..], false));
    }

    #[test]
    fn connection_persistence() {
        let close = feed(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 64).unwrap();
        assert!(!close[0].0.keep_alive);
        let http10 = feed(b"GET / HTTP/1.0\r\n\r\n", 64).unwrap();
        assert!(http10[0].0.http10 && !http10[0].0.keep_alive);
        let http10_ka = feed(b"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", 64).unwrap();
        assert!(http10_ka[0].0.keep_alive);
    }

    #[test]
    fn expect_continue_is_signalled_once() {
        let mut parser = Parser::new();
        let head = b"POST /echo HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n";
        assert_eq!(parser.parse(head), Ok(Parsed { consumed: head.len(), complete: false }));
        assert!(parser.take_continue());
        assert!(!parser.take_continue());
        assert_eq!(parser.parse(b"{}"), Ok(Parsed { consumed: 2, complete: true }));
    }

    #[test]
    fn garbage_is_a_bad_request() {
        for input in [
            &b"GETT\x01 / HTTP/1.1\r\n\r\n"[..],
            b"GET / HTTP/1.32\r\n\r\n",
            b"GET / HTTP/4294967295.255\r\n\r\n",
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
            b"GET / HTTP/1.1\r\nContent-Length : 5\r\n\r\n",
            b"GET / HTTP/1.1\r\nNo colon here\r\n\r\n",
            b"GET / HTTP/1.1\r\nX: a\x00b\r\n\r\n",
        ] {
            assert_eq!(feed(input, input.len()), Err(ParseError::BadRequest), "{:?}", String::from_utf8_lossy(input));
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet = b"GET POST /echo HTTP/1.1\r\n:0123456789abcdefContent-Length Transfer-Encoding chunked\x00\xff;";
        for _ in 0..2000 {
            let len = (next() % 300) as usize;
            let input: Vec<u8> = (0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect();
            let _ = feed(&input, 1 + (next() % 17) as usize);
        }
    }
}
