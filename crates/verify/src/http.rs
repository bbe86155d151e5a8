//! The verifier's blocking HTTP/1.1 client, for readiness and checks (never for load): it sends
//! exactly the bytes asked for, so the verifier can also send malformed and oversized requests.
//!
//! The server on the other end is a subject, that is someone else's program, so every answer is
//! read within bounds: one deadline for the whole exchange, at most [`MAX_HEAD`] bytes of head
//! and [`BODY_LIMIT`] bytes of body, chunk sizes parsed with checked arithmetic. A server that
//! goes past a bound gets an [`HttpError`] (which the verifier turns into a finding); it can
//! neither crash restbench nor make it buffer without end.
//!
//! Its [`Response`], [`HttpError`] and [`Limits`] are shared with the verifier's h2c client
//! (`h2c`), so the verifier checks the contract over each protocol a subject declares with the
//! same caps and the same findings. The head and chunk-line bounds are the load engine's
//! (`restbench_loadgen::http1_limits`): both HTTP/1.x framers refuse the same servers.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use restbench_loadgen::http1_limits::{MAX_CHUNK_LINE, MAX_HEAD};
use restbench_model::Protocol;

/// The most bytes a response body may take. The largest answer of the contract (the users list)
/// is a few KiB and the echo workload's requests are capped at 1 MiB; 16 MiB leaves room for any
/// honest server and bounds what a dishonest one can make restbench hold.
pub const BODY_LIMIT: usize = 16 * 1024 * 1024;
/// Interim (1xx) answers accepted before the final one: a real server sends one at most.
const MAX_INTERIM: usize = 16;
/// Bytes asked of the socket per read.
const READ_SIZE: usize = 16 * 1024;

/// A response as received.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    /// Header names lowercased, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Framing: `content-length`, `chunked` or `close`.
    pub framing: &'static str,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn body_text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Why no usable response came back. Each variant is about the server, not about restbench: the
/// callers report it as a finding ("no answer (…)") and go on.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("cannot connect to {addr}: {reason}")]
    Connect { addr: SocketAddr, reason: io::Error },
    #[error("no complete answer within {seconds:.1} s")]
    Timeout { seconds: f64 },
    #[error("the connection closed {when}")]
    Closed { when: &'static str },
    #[error("the response head is over {limit} bytes; a server's head is a few hundred")]
    HeadTooLarge { limit: usize },
    #[error(
        "the response body is over {limit} bytes (restbench stopped reading it); the contract's answers are a few KiB"
    )]
    BodyTooLarge { limit: usize },
    #[error("not a valid HTTP/1.1 response: {0}")]
    Malformed(String),
    /// An h2c answer that breaks the protocol (the HTTP/2 twin of `Malformed`).
    #[error("over h2c: not a valid HTTP/2 answer: {0}")]
    Http2(String),
    #[error("over h2c: the server reset the stream (error code {code}) before answering")]
    Reset { code: u32 },
    #[error("{0}")]
    Io(io::Error),
}

impl HttpError {
    /// A short, stable name of the variant, for tables of verdicts.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Connect { .. } => "connect",
            Self::Timeout { .. } => "timeout",
            Self::Closed { .. } => "closed",
            Self::HeadTooLarge { .. } => "head-too-large",
            Self::BodyTooLarge { .. } => "body-too-large",
            Self::Malformed(_) => "malformed",
            Self::Http2(_) => "http2",
            Self::Reset { .. } => "reset",
            Self::Io(_) => "io",
        }
    }
}

/// Encodes a request with `Host`, `Content-Length` when there is a body, and `Connection: close`.
pub fn request(method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    for (n, v) in headers {
        out.push_str(&format!("{n}: {v}\r\n"));
    }
    if !body.is_empty() || method == "POST" {
        out.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    out.push_str("\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// Sends raw bytes on a new connection and reads one response. Connecting and sending get
/// `timeout`, receiving gets `timeout` from the end of sending: a whole exchange takes at most
/// twice `timeout`, however slowly the server reads or trickles its answer.
pub fn exchange(addr: SocketAddr, raw: &[u8], timeout: Duration) -> Result<Response, HttpError> {
    let started = Instant::now();
    let mut stream =
        TcpStream::connect_timeout(&addr, timeout).map_err(|source| match source.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => timed_out(timeout),
            _ => HttpError::Connect {
                addr,
                reason: source,
            },
        })?;
    // A server may answer 413 and close (or stop reading) before taking a large body: a failed
    // send is fine as long as an answer can be read, so the answer gets its own time.
    let sent = write_all(&mut stream, raw, started + timeout, timeout);
    let mut conn = Conn {
        stream,
        deadline: Instant::now() + timeout,
        timeout,
    };
    match (read_response(&mut conn, Limits::DEFAULT), sent) {
        (Ok(r), _) => Ok(r),
        // Nothing to read because the request could not be sent: the send failure says more.
        (Err(HttpError::Closed { .. } | HttpError::Io(_)), Err(e)) => Err(e),
        (Err(e), _) => Err(e),
    }
}

/// Where and how the verifier talks to a server: the checks are the same over every protocol,
/// only the transport differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endpoint {
    pub addr: SocketAddr,
    pub protocol: Protocol,
}

impl From<SocketAddr> for Endpoint {
    /// HTTP/1.1, the default protocol.
    fn from(addr: SocketAddr) -> Self {
        Self {
            addr,
            protocol: Protocol::H1,
        }
    }
}

/// `GET path` on a new connection.
pub fn get(addr: SocketAddr, path: &str, timeout: Duration) -> Result<Response, HttpError> {
    exchange(addr, &request("GET", path, &[], b""), timeout)
}

fn timed_out(timeout: Duration) -> HttpError {
    HttpError::Timeout {
        seconds: timeout.as_secs_f64(),
    }
}

/// The time left before `deadline`, or the timeout error once there is none.
fn remaining(deadline: Instant, timeout: Duration) -> Result<Duration, HttpError> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        Err(timed_out(timeout))
    } else {
        Ok(left)
    }
}

/// `write_all` that gives up at the deadline: a server that reads nothing (or one byte a second)
/// cannot hold the request open for longer than the exchange may take.
fn write_all(
    stream: &mut TcpStream,
    mut raw: &[u8],
    deadline: Instant,
    timeout: Duration,
) -> Result<(), HttpError> {
    while !raw.is_empty() {
        stream
            .set_write_timeout(Some(remaining(deadline, timeout)?))
            .map_err(HttpError::Io)?;
        match stream.write(raw) {
            Ok(0) => {
                return Err(HttpError::Closed {
                    when: "while the request was sent",
                });
            }
            Ok(n) => raw = &raw[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(timed_out(timeout));
            }
            Err(e) => return Err(HttpError::Io(e)),
        }
    }
    Ok(())
}

/// The caps a response is read under, over either protocol ([`MAX_HEAD`], [`BODY_LIMIT`];
/// smaller in tests).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Head bytes: an HTTP/1.1 head or trailers, or h2c's header-block fragments.
    pub head: usize,
    pub body: usize,
}

impl Limits {
    pub const DEFAULT: Self = Self {
        head: MAX_HEAD,
        body: BODY_LIMIT,
    };
}

/// What a response is read from: a socket whose read timeout follows the deadline (or, in the
/// tests, a reader that counts what was taken from it).
trait Source: Read {
    /// Blocks no longer than the deadline; the timeout error once it has passed.
    fn before_read(&mut self) -> Result<(), HttpError>;
    fn timeout_error(&self) -> HttpError;
}

struct Conn {
    stream: TcpStream,
    deadline: Instant,
    timeout: Duration,
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream.read(buf)
    }
}

impl Source for Conn {
    fn before_read(&mut self) -> Result<(), HttpError> {
        let left = remaining(self.deadline, self.timeout)?;
        self.stream
            .set_read_timeout(Some(left))
            .map_err(HttpError::Io)
    }

    fn timeout_error(&self) -> HttpError {
        timed_out(self.timeout)
    }
}

/// Received bytes not yet consumed, and the source they come from.
struct Input<'a, S: Source> {
    source: &'a mut S,
    buf: Vec<u8>,
}

impl<S: Source> Input<'_, S> {
    /// Reads once more (at most [`READ_SIZE`] bytes); false at end of stream. Callers check
    /// their cap before each call, so the buffer never holds more than a cap plus one read.
    fn fill(&mut self) -> Result<bool, HttpError> {
        let mut chunk = [0u8; READ_SIZE];
        loop {
            self.source.before_read()?;
            match self.source.read(&mut chunk) {
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    return Ok(n > 0);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(self.source.timeout_error());
                }
                Err(e) => return Err(HttpError::Io(e)),
            }
        }
    }

    /// The offset of the first `needle` at or after `from`, reading until it comes; `None` once
    /// `limit` bytes are buffered without it (`Closed` with `closed` at end of stream).
    fn find_within(
        &mut self,
        needle: &[u8],
        limit: usize,
        closed: &'static str,
    ) -> Result<Option<usize>, HttpError> {
        let mut from = 0;
        loop {
            if let Some(i) = find(&self.buf[from..], needle) {
                return Ok(Some(from + i));
            }
            if self.buf.len() > limit {
                return Ok(None);
            }
            from = self.buf.len().saturating_sub(needle.len() - 1);
            if !self.fill()? {
                return Err(HttpError::Closed { when: closed });
            }
        }
    }
}

fn read_response<S: Source>(source: &mut S, limits: Limits) -> Result<Response, HttpError> {
    let mut input = Input {
        source,
        buf: Vec::new(),
    };
    read_one(&mut input, limits)
}

/// The most bytes [`exchange_trailing`] keeps of what follows an answer.
const TRAILING_LIMIT: usize = 64 * 1024;
/// How long [`exchange_trailing`] waits for what follows an answer, or for the close.
const TRAILING_WAIT: Duration = Duration::from_millis(300);

/// [`exchange`], and then whatever the server sends after the answer before it closes the
/// connection (at most 64 KiB, for at most 300 ms): where a 304
/// that carries a body shows, since a client must read a 304 as ending at its head.
pub fn exchange_trailing(
    addr: SocketAddr,
    raw: &[u8],
    timeout: Duration,
) -> Result<(Response, Vec<u8>), HttpError> {
    let mut stream =
        TcpStream::connect_timeout(&addr, timeout).map_err(|source| HttpError::Connect {
            addr,
            reason: source,
        })?;
    write_all(&mut stream, raw, Instant::now() + timeout, timeout)?;
    let mut conn = Conn {
        stream,
        deadline: Instant::now() + timeout,
        timeout,
    };
    let mut input = Input {
        source: &mut conn,
        buf: Vec::new(),
    };
    let response = read_one(&mut input, Limits::DEFAULT)?;
    let mut trailing = std::mem::take(&mut input.buf);
    conn.deadline = Instant::now() + TRAILING_WAIT;
    let mut chunk = [0u8; READ_SIZE];
    while trailing.len() < TRAILING_LIMIT {
        if conn.before_read().is_err() {
            break;
        }
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => trailing.extend_from_slice(&chunk[..n]),
        }
    }
    trailing.truncate(TRAILING_LIMIT);
    Ok((response, trailing))
}

/// One final answer from `input`, interim answers skipped.
fn read_one<S: Source>(input: &mut Input<'_, S>, limits: Limits) -> Result<Response, HttpError> {
    let mut interim = 0;
    loop {
        let head_end = read_head(input, limits)?;
        let (status, headers) = parse_head(&input.buf[..head_end])?;
        input.buf.drain(..head_end + 4);
        if (100..200).contains(&status) {
            interim += 1;
            if interim > MAX_INTERIM {
                return Err(HttpError::Malformed(format!(
                    "more than {MAX_INTERIM} interim (1xx) answers before a final one"
                )));
            }
            continue;
        }
        let (body, framing) = read_body(input, status, &headers, limits)?;
        return Ok(Response {
            status,
            headers,
            body,
            framing,
        });
    }
}

/// Reads until the buffer holds a whole head; where its blank line starts.
fn read_head<S: Source>(input: &mut Input<'_, S>, limits: Limits) -> Result<usize, HttpError> {
    let head_end = loop {
        // Refuse at once what is not HTTP, rather than waiting for a blank line that may never
        // come.
        let n = input.buf.len().min(5);
        if input.buf[..n] != b"HTTP/"[..n] {
            let line = input.buf.split(|&b| b == b'\n').next().unwrap_or_default();
            return Err(HttpError::Malformed(format!(
                "the answer starts with {:?}, not with an HTTP/1.x status line",
                snippet(line)
            )));
        }
        if let Some(i) = find(&input.buf, b"\r\n\r\n") {
            break i;
        }
        if input.buf.len() > limits.head {
            return Err(HttpError::HeadTooLarge { limit: limits.head });
        }
        if !input.fill()? {
            return Err(HttpError::Closed {
                when: if input.buf.is_empty() {
                    "before a response"
                } else {
                    "inside the response head"
                },
            });
        }
    };
    if head_end > limits.head {
        return Err(HttpError::HeadTooLarge { limit: limits.head });
    }
    Ok(head_end)
}

/// A head without its blank line: the status and the headers, names lowercased.
fn parse_head(head: &[u8]) -> Result<(u16, Vec<(String, String)>), HttpError> {
    let head = String::from_utf8_lossy(head);
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = parse_status_line(status_line).ok_or_else(|| {
        HttpError::Malformed(format!(
            "not an HTTP/1.x status line: {:?}",
            snippet(status_line.as_bytes())
        ))
    })?;
    let headers = lines
        .filter_map(|l| {
            l.split_once(':')
                .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        })
        .collect();
    Ok((status, headers))
}

/// The body of a final answer and how it was framed: none for 204 and 304, chunked,
/// `Content-Length`, or until the server closes.
fn read_body<S: Source>(
    input: &mut Input<'_, S>,
    status: u16,
    headers: &[(String, String)],
    limits: Limits,
) -> Result<(Vec<u8>, &'static str), HttpError> {
    let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    let chunked =
        header("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().ends_with("chunked"));
    if status == 204 || status == 304 {
        Ok((Vec::new(), "content-length"))
    } else if chunked {
        Ok((read_chunked(input, limits)?, "chunked"))
    } else if let Some(len) = header("content-length") {
        let len = parse_content_length(len, limits.body)?;
        Ok((read_sized(input, len)?, "content-length"))
    } else {
        Ok((read_to_close(input, limits)?, "close"))
    }
}

/// A body of `len` bytes (already checked against the cap).
fn read_sized<S: Source>(input: &mut Input<'_, S>, len: usize) -> Result<Vec<u8>, HttpError> {
    while input.buf.len() < len {
        if !input.fill()? {
            return Err(HttpError::Closed {
                when: "before the end of the body announced by Content-Length",
            });
        }
    }
    input.buf.truncate(len);
    Ok(std::mem::take(&mut input.buf))
}

/// A body that ends when the server closes the connection, within the cap.
fn read_to_close<S: Source>(
    input: &mut Input<'_, S>,
    limits: Limits,
) -> Result<Vec<u8>, HttpError> {
    loop {
        if input.buf.len() > limits.body {
            return Err(HttpError::BodyTooLarge { limit: limits.body });
        }
        if !input.fill()? {
            break;
        }
    }
    Ok(std::mem::take(&mut input.buf))
}

/// `HTTP/1.x SSS[ reason]` → `SSS`; anything else → `None`.
fn parse_status_line(line: &str) -> Option<u16> {
    let rest = line.strip_prefix("HTTP/1.")?.as_bytes();
    let (minor, rest) = rest.split_first()?;
    let (space, rest) = rest.split_first()?;
    if !minor.is_ascii_digit() || *space != b' ' || rest.len() < 3 {
        return None;
    }
    let (code, after) = rest.split_at(3);
    if !code.iter().all(u8::is_ascii_digit) || after.first().is_some_and(|&b| b != b' ') {
        return None;
    }
    std::str::from_utf8(code).ok()?.parse().ok()
}

/// A Content-Length that fits under `limit`: digits only; a larger one is refused before a
/// byte of the body is read.
fn parse_content_length(value: &str, limit: usize) -> Result<usize, HttpError> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(HttpError::Malformed(format!(
            "Content-Length {:?} is not a number",
            snippet(value.as_bytes())
        )));
    }
    // All digits: the only way to fail is to be too large for any buffer.
    match value.parse::<u64>() {
        Ok(n) if n <= limit as u64 => Ok(n as usize),
        _ => Err(HttpError::BodyTooLarge { limit }),
    }
}

fn read_chunked<S: Source>(input: &mut Input<'_, S>, limits: Limits) -> Result<Vec<u8>, HttpError> {
    let bad = |m: String| HttpError::Malformed(m);
    let mut body: Vec<u8> = Vec::new();
    loop {
        let Some(eol) = input.find_within(b"\r\n", MAX_CHUNK_LINE, "inside a chunked body")? else {
            return Err(bad(format!(
                "a chunk-size line longer than {MAX_CHUNK_LINE} bytes"
            )));
        };
        if eol > MAX_CHUNK_LINE {
            return Err(bad(format!(
                "a chunk-size line longer than {MAX_CHUNK_LINE} bytes"
            )));
        }
        let line = String::from_utf8_lossy(&input.buf[..eol]).into_owned();
        let digits = line.split(';').next().unwrap_or("").trim();
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad(format!(
                "invalid chunk size {:?}",
                snippet(line.as_bytes())
            )));
        }
        // Hex digits only: a parse failure is a size beyond u64, so beyond any limit too.
        let size = u64::from_str_radix(digits, 16).unwrap_or(u64::MAX);
        input.buf.drain(..eol + 2);
        if size == 0 {
            read_trailers(input, limits)?;
            return Ok(body);
        }
        let total = (body.len() as u64).checked_add(size);
        if total.is_none_or(|t| t > limits.body as u64) {
            return Err(HttpError::BodyTooLarge { limit: limits.body });
        }
        // Fits in the limit, so in a usize. Moved into the body as it arrives: the buffer holds
        // one read at most.
        let mut left = size as usize;
        while left > 0 {
            if input.buf.is_empty() && !input.fill()? {
                return Err(HttpError::Closed {
                    when: "inside a chunk",
                });
            }
            let take = left.min(input.buf.len());
            body.extend_from_slice(&input.buf[..take]);
            input.buf.drain(..take);
            left -= take;
        }
        while input.buf.len() < 2 {
            if !input.fill()? {
                return Err(HttpError::Closed {
                    when: "inside a chunked body",
                });
            }
        }
        if &input.buf[..2] != b"\r\n" {
            return Err(bad(format!(
                "a chunk of {size} bytes is not followed by CRLF (the size is wrong)"
            )));
        }
        input.buf.drain(..2);
    }
}

/// Trailer lines until an empty one, [`MAX_HEAD`] bytes at most. A server that closes instead
/// of ending them is forgiven: the body is complete.
fn read_trailers<S: Source>(input: &mut Input<'_, S>, limits: Limits) -> Result<(), HttpError> {
    let mut taken = 0usize;
    loop {
        let eol = match input.find_within(b"\r\n", limits.head - taken.min(limits.head), "") {
            Ok(Some(eol)) => eol,
            Ok(None) => return Err(HttpError::HeadTooLarge { limit: limits.head }),
            Err(HttpError::Closed { .. }) => return Ok(()),
            Err(e) => return Err(e),
        };
        taken += eol + 2;
        if taken > limits.head {
            return Err(HttpError::HeadTooLarge { limit: limits.head });
        }
        input.buf.drain(..eol + 2);
        if eol == 0 {
            return Ok(());
        }
    }
}

/// The first 60 bytes, for messages.
fn snippet(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(60)];
    let text = String::from_utf8_lossy(cut).into_owned();
    if bytes.len() > 60 {
        format!("{text}…")
    } else {
        text
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;
    use std::thread::JoinHandle;

    // -----------------------------------------------------------------------------------------
    // Against a scripted reader: the exact number of bytes the client takes is known.

    /// Hands out `data`, then `tail` over and over (or ends, or blocks as a silent socket
    /// would), counting every byte the client took.
    struct Scripted {
        data: Vec<u8>,
        pos: usize,
        tail: Option<Vec<u8>>,
        silent_at_end: bool,
        taken: usize,
    }

    impl Scripted {
        fn then_eof(data: &[u8]) -> Self {
            Self {
                data: data.to_vec(),
                pos: 0,
                tail: None,
                silent_at_end: false,
                taken: 0,
            }
        }

        fn then_forever(data: &[u8], tail: &[u8]) -> Self {
            Self {
                tail: Some(tail.to_vec()),
                ..Self::then_eof(data)
            }
        }

        fn then_silent(data: &[u8]) -> Self {
            Self {
                silent_at_end: true,
                ..Self::then_eof(data)
            }
        }
    }

    impl Read for Scripted {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.pos == self.data.len() {
                match &self.tail {
                    Some(tail) => {
                        self.data = tail.clone();
                        self.pos = 0;
                    }
                    None if self.silent_at_end => {
                        return Err(io::Error::from(io::ErrorKind::WouldBlock));
                    }
                    None => return Ok(0),
                }
            }
            let n = out.len().min(self.data.len() - self.pos);
            out[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
            self.pos += n;
            self.taken += n;
            Ok(n)
        }
    }

    impl Source for Scripted {
        fn before_read(&mut self) -> Result<(), HttpError> {
            Ok(())
        }

        fn timeout_error(&self) -> HttpError {
            timed_out(Duration::ZERO)
        }
    }

    fn read(s: &mut Scripted) -> Result<Response, HttpError> {
        read_response(s, Limits::DEFAULT)
    }

    fn kind(r: Result<Response, HttpError>) -> &'static str {
        match r {
            Ok(r) => panic!("expected an error, got {} {:?}", r.status, r.body_text()),
            Err(e) => {
                // Every refusal must say something useful.
                assert!(!e.to_string().is_empty());
                e.kind()
            }
        }
    }

    #[test]
    fn honest_answers_are_read_as_before() {
        let r = read(&mut Scripted::then_eof(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
        ))
        .unwrap();
        assert_eq!(
            (r.status, r.framing, &r.body[..]),
            (200, "content-length", &b"hello"[..])
        );
        assert_eq!(r.header("content-type"), Some("text/plain"));

        let r = read(&mut Scripted::then_eof(
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
              5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n",
        ))
        .unwrap();
        assert_eq!(
            (r.status, r.framing, r.body_text().as_str()),
            (200, "chunked", "hello world")
        );

        let r = read(&mut Scripted::then_eof(
            b"HTTP/1.0 404 Not Found\r\n\r\nno such path",
        ))
        .unwrap();
        assert_eq!(
            (r.status, r.framing, r.body_text().as_str()),
            (404, "close", "no such path")
        );

        let r = read(&mut Scripted::then_eof(b"HTTP/1.1 204 No Content\r\n\r\n")).unwrap();
        assert_eq!((r.status, r.body.len()), (204, 0));

        // A server that closes instead of ending its trailers still delivered the body.
        let r = read(&mut Scripted::then_eof(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n",
        ))
        .unwrap();
        assert_eq!(r.body_text(), "ok");
    }

    #[test]
    fn status_lines_are_parsed_strictly() {
        assert_eq!(parse_status_line("HTTP/1.1 200 OK"), Some(200));
        assert_eq!(parse_status_line("HTTP/1.0 404"), Some(404));
        assert_eq!(
            parse_status_line("HTTP/1.1 503 Service Unavailable"),
            Some(503)
        );
        for garbage in [
            "HTTP/1.1 2000 OK",
            "HTTP/1.1 20 OK",
            "HTTP/1.1 +20 OK",
            "HTTP/1.1  200 OK",
            "HTTP/2 200",
            "HTTP/1.x 200 OK",
            "HTTP/1.1",
            "",
            "HTTP/1.1 2é0 OK",
        ] {
            assert_eq!(parse_status_line(garbage), None, "{garbage:?}");
        }
    }

    #[test]
    fn a_chunk_size_of_all_ones_is_refused_without_reading_on() {
        // Today's main wrapped `size + 2` and panicked (exit 101).
        for size in [
            "ffffffffffffffff",
            "fffffffffffffffe",
            "1ffffffffffffffff",
            "1000001",
        ] {
            let head = format!("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n{size}\r\n");
            let mut s = Scripted::then_forever(head.as_bytes(), b"x");
            assert_eq!(kind(read(&mut s)), "body-too-large", "{size}");
            assert_eq!(s.taken, head.len(), "{size}: read past the size line");
        }
        // Chunks that add up past the limit.
        let mut s = Scripted::then_eof(
            format!(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n{:x}\r\n",
                BODY_LIMIT
            )
            .as_bytes(),
        );
        assert_eq!(kind(read(&mut s)), "body-too-large");
    }

    #[test]
    fn an_endless_chunked_body_stops_at_the_body_limit() {
        let mut chunk = format!("{:x}\r\n", READ_SIZE).into_bytes();
        chunk.extend(std::iter::repeat_n(b'a', READ_SIZE));
        chunk.extend_from_slice(b"\r\n");
        let mut s = Scripted::then_forever(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            &chunk,
        );
        assert_eq!(kind(read(&mut s)), "body-too-large");
        assert!(
            s.taken <= BODY_LIMIT + 2 * READ_SIZE,
            "took {} bytes",
            s.taken
        );
    }

    #[test]
    fn an_endless_close_delimited_body_stops_at_the_body_limit() {
        let mut s = Scripted::then_forever(b"HTTP/1.1 200 OK\r\n\r\n", &[b'z'; 4096]);
        assert_eq!(kind(read(&mut s)), "body-too-large");
        assert!(
            s.taken <= BODY_LIMIT + 2 * READ_SIZE,
            "took {} bytes",
            s.taken
        );
    }

    #[test]
    fn a_content_length_over_the_limit_is_refused_before_the_body() {
        for len in [
            (BODY_LIMIT + 1).to_string(),
            "99999999999999".into(),
            "18446744073709551616".into(),
            "999999999999999999999999999999".into(),
        ] {
            let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {len}\r\n\r\n");
            let mut s = Scripted::then_forever(head.as_bytes(), b"x");
            assert_eq!(kind(read(&mut s)), "body-too-large", "{len}");
            assert_eq!(s.taken, head.len(), "{len}: read into the body");
        }
        for len in ["-1", "12abc", "", "0x10", "1 2"] {
            let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {len}\r\n\r\n");
            assert_eq!(
                kind(read(&mut Scripted::then_eof(head.as_bytes()))),
                "malformed",
                "{len:?}"
            );
        }
        // Within the limit but cut short.
        let s = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
        assert_eq!(kind(read(&mut Scripted::then_eof(s))), "closed");
    }

    #[test]
    fn an_endless_head_stops_at_the_head_limit() {
        let mut s =
            Scripted::then_forever(b"HTTP/1.1 200 OK\r\n", b"X-Filler: aaaaaaaaaaaaaaaa\r\n");
        assert_eq!(kind(read(&mut s)), "head-too-large");
        assert!(s.taken <= MAX_HEAD + READ_SIZE, "took {} bytes", s.taken);

        // A complete head, but too large.
        let mut big = b"HTTP/1.1 200 OK\r\n".to_vec();
        while big.len() <= MAX_HEAD {
            big.extend_from_slice(b"X-Filler: aaaaaaaaaaaaaaaa\r\n");
        }
        big.extend_from_slice(b"Content-Length: 0\r\n\r\n");
        assert_eq!(kind(read(&mut Scripted::then_eof(&big))), "head-too-large");

        // Endless trailers count as head.
        let mut s = Scripted::then_forever(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n",
            b"X-Trailer: aaaaaaaaaaaaaaaa\r\n",
        );
        assert_eq!(kind(read(&mut s)), "head-too-large");
        assert!(
            s.taken <= 2 * MAX_HEAD + READ_SIZE,
            "took {} bytes",
            s.taken
        );
    }

    #[test]
    fn garbage_is_refused_at_once() {
        for garbage in [
            &b"SSH-2.0-OpenSSH_9.6\r\n"[..],
            b"hello\r\n\r\n",
            b"HTTP/1.1 abc OK\r\n\r\n",
            b"HTTP/1.1 2000 OK\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n",
        ] {
            let what = String::from_utf8_lossy(garbage);
            assert_eq!(
                kind(read(&mut Scripted::then_silent(garbage))),
                "malformed",
                "{what:?}"
            );
        }
        // Endless garbage without a line end is refused from its first bytes.
        let mut s = Scripted::then_forever(b"", b"\x00\x01\x02garbage");
        assert_eq!(kind(read(&mut s)), "malformed");
        assert!(s.taken <= READ_SIZE, "took {} bytes", s.taken);
        // An endless chunk-size line.
        let mut s = Scripted::then_forever(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            b"ffffffff",
        );
        assert_eq!(kind(read(&mut s)), "malformed");
        assert!(
            s.taken <= MAX_HEAD + MAX_CHUNK_LINE + READ_SIZE,
            "took {} bytes",
            s.taken
        );
        // Interim answers without end.
        let mut s = Scripted::then_forever(b"", b"HTTP/1.1 100 Continue\r\n\r\n");
        assert_eq!(kind(read(&mut s)), "malformed");
    }

    #[test]
    fn silence_and_early_close_are_named() {
        assert_eq!(kind(read(&mut Scripted::then_silent(b""))), "timeout");
        assert_eq!(
            kind(read(&mut Scripted::then_silent(b"HTTP/1.1 200 OK\r\n"))),
            "timeout"
        );
        assert_eq!(kind(read(&mut Scripted::then_eof(b""))), "closed");
        assert_eq!(
            kind(read(&mut Scripted::then_eof(b"HTTP/1.1 200"))),
            "closed"
        );
    }

    // -----------------------------------------------------------------------------------------
    // Against tiny hostile servers on 127.0.0.1, through `exchange` as the harness calls it.

    /// A server that accepts one connection and treats it with `behaviour`; the handle yields
    /// what `behaviour` returns (bytes it managed to write).
    fn hostile(
        behaviour: impl FnOnce(TcpStream) -> usize + Send + 'static,
    ) -> (SocketAddr, JoinHandle<usize>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let handle = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            // Bounded even if the client misbehaves: the test ends either way.
            stream
                .set_read_timeout(Some(Duration::from_secs(30)))
                .unwrap();
            stream
                .set_write_timeout(Some(Duration::from_secs(30)))
                .unwrap();
            behaviour(stream)
        });
        (addr, handle)
    }

    /// Reads until the client closes (or 30 s pass).
    fn wait_for_close(stream: &mut TcpStream) {
        let mut buf = [0u8; 4096];
        while stream.read(&mut buf).is_ok_and(|n| n > 0) {}
    }

    /// Writes `head`, then `block` until the client goes away; the bytes written.
    fn endless(mut stream: TcpStream, head: &[u8], block: &[u8]) -> usize {
        let mut written = 0;
        if stream.write_all(head).is_err() {
            return 0;
        }
        written += head.len();
        while stream.write_all(block).is_ok() {
            written += block.len();
        }
        written
    }

    /// What the kernel may hold between the two ends of a loopback connection (the most the
    /// send and receive buffers grow to): bytes a server wrote that the client never read.
    fn socket_buffers() -> usize {
        let max = |file: &str| {
            std::fs::read_to_string(file)
                .ok()
                .and_then(|s| s.split_whitespace().last()?.parse::<usize>().ok())
                .unwrap_or(64 << 20)
        };
        // Doubled: the kernel counts bookkeeping into these limits, and reports half.
        2 * (max("/proc/sys/net/ipv4/tcp_rmem") + max("/proc/sys/net/ipv4/tcp_wmem"))
    }

    const GENEROUS: Duration = Duration::from_secs(60);

    #[test]
    fn a_silent_server_times_out() {
        let (addr, server) = hostile(|mut s| {
            wait_for_close(&mut s);
            0
        });
        let e = get(addr, "/", Duration::from_millis(300)).unwrap_err();
        assert_eq!(e.kind(), "timeout", "{e}");
        drop(server.join());
    }

    #[test]
    fn a_server_that_trickles_its_answer_times_out() {
        // One byte at a time, never finishing: each read succeeds, the deadline still holds.
        let (addr, server) = hostile(|mut s| {
            let mut n = 0;
            for b in b"HTTP/1.1 200 OK\r\n"
                .iter()
                .chain(std::iter::repeat(&b'a'))
            {
                if s.write_all(&[*b]).is_err() {
                    break;
                }
                n += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            n
        });
        let e = get(addr, "/", Duration::from_millis(300)).unwrap_err();
        assert_eq!(e.kind(), "timeout", "{e}");
        server.join().unwrap();
    }

    #[test]
    fn a_server_streaming_an_endless_body_gets_an_error_and_is_read_no_further() {
        let (addr, server) = hostile(|s| endless(s, b"HTTP/1.1 200 OK\r\n\r\n", &[b'z'; 65536]));
        let e = get(addr, "/", GENEROUS).unwrap_err();
        assert_eq!(e.kind(), "body-too-large", "{e}");
        let written = server.join().unwrap();
        // The client closed the connection after the cap: the server could not write on.
        assert!(
            written <= BODY_LIMIT + socket_buffers(),
            "the server wrote {written} bytes"
        );
    }

    #[test]
    fn a_server_streaming_endless_chunks_gets_an_error() {
        let mut block = b"10000\r\n".to_vec();
        block.extend(std::iter::repeat_n(b'c', 0x10000));
        block.extend_from_slice(b"\r\n");
        let (addr, server) = hostile(move |s| {
            endless(
                s,
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                &block,
            )
        });
        let e = get(addr, "/", GENEROUS).unwrap_err();
        assert_eq!(e.kind(), "body-too-large", "{e}");
        let written = server.join().unwrap();
        assert!(
            written <= BODY_LIMIT + socket_buffers(),
            "the server wrote {written} bytes"
        );
    }

    #[test]
    fn a_server_sending_a_huge_chunk_size_gets_an_error() {
        let (addr, server) = hostile(|mut s| {
            let _ = s.write_all(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nabc",
            );
            wait_for_close(&mut s);
            0
        });
        let e = get(addr, "/", GENEROUS).unwrap_err();
        assert_eq!(e.kind(), "body-too-large", "{e}");
        drop(server.join());
    }

    #[test]
    fn a_server_sending_an_endless_head_gets_an_error() {
        let (addr, server) =
            hostile(|s| endless(s, b"HTTP/1.1 200 OK\r\n", b"X-Filler: aaaaaaaaaaaaaaaa\r\n"));
        let e = get(addr, "/", GENEROUS).unwrap_err();
        assert_eq!(e.kind(), "head-too-large", "{e}");
        let written = server.join().unwrap();
        assert!(
            written <= MAX_HEAD + socket_buffers(),
            "the server wrote {written} bytes"
        );
    }

    #[test]
    fn a_server_sending_garbage_gets_an_error() {
        let (addr, server) = hostile(|mut s| {
            let _ = s.write_all(b"SSH-2.0-OpenSSH_9.6\r\n");
            wait_for_close(&mut s);
            0
        });
        let e = get(addr, "/", GENEROUS).unwrap_err();
        assert_eq!(e.kind(), "malformed", "{e}");
        drop(server.join());
    }

    #[test]
    fn an_answer_sent_before_the_request_is_taken_as_the_answer() {
        // One request per connection: an answer that comes first cannot be told from a fast one.
        // The verifier checks what it says (status, body), so a wrong canned answer still fails.
        let (addr, server) = hostile(|mut s| {
            let _ = s.write_all(b"HTTP/1.1 418 I'm a teapot\r\nContent-Length: 3\r\n\r\ntea");
            wait_for_close(&mut s);
            0
        });
        let r = get(addr, "/", GENEROUS).unwrap();
        assert_eq!((r.status, r.body_text().as_str()), (418, "tea"));
        drop(server.join());
    }

    #[test]
    fn a_refused_connection_is_named() {
        let addr = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap()
        };
        let e = get(addr, "/", Duration::from_secs(5)).unwrap_err();
        assert_eq!(e.kind(), "connect", "{e}");
    }
}
