//! The verifier's blocking HTTP/2 client with prior knowledge (h2c): one exchange on a new
//! connection, built on the load engine's frame module (`restbench_loadgen::h2::frame`), where
//! the engine's own connection keeps only statuses.
//!
//! The exchange: preface, our SETTINGS (large receive windows, no push), the request's HEADERS
//! and its body as DATA within the server's flow-control windows, then frames until the stream
//! ends. A server may answer (413) and reset the stream before taking the whole body, as with
//! HTTP/1.1; the answer is what counts. Header blocks are decoded whole (a 4 KiB dynamic table
//! at most), and the head and body are capped by the caller's [`Limits`], so a wrong server
//! cannot make us buffer without end. Failures are the HTTP/1.1 client's [`HttpError`]s.

use std::borrow::Cow;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use restbench_loadgen::h2::encode::{
    literal_with_new_name, literal_with_static_name, not_sent_over_h2,
};
use restbench_loadgen::h2::frame::{
    ACK, CONNECTION_WINDOW, CONTINUATION, DATA, DEFAULT_WINDOW, END_HEADERS, END_STREAM, GOAWAY,
    HEAD_LEN, HEADERS, MAX_FRAME, PADDED, PING, PREFACE, PUSH_PROMISE, RST_STREAM, SETTINGS,
    SETTINGS_ENABLE_PUSH, SETTINGS_INITIAL_WINDOW_SIZE, SETTINGS_MAX_FRAME_SIZE, STREAM_WINDOW,
    WINDOW_UPDATE, header_fragment, payload_len, u31, unpadded_len, write_head,
};

use crate::http::{HttpError, Limits, Response};

/// The one stream of the exchange.
const STREAM: u32 = 1;

/// Static-table indexes (RFC 7541 Appendix A) of the names the request block spells.
const AUTHORITY: usize = 1;
const METHOD: usize = 2;
const PATH: usize = 4;
const CONTENT_LENGTH: usize = 28;
/// The static entry `:scheme: http`, indexed whole.
const SCHEME_HTTP: u8 = 0x86;

/// Sends one request over h2c with prior knowledge on a new connection and reads its answer
/// (header names lowercased, as HTTP/2 sends them, in order; framing `http2`).
/// `headers` must not hold connection-specific fields (`Connection`, `Host`, `Content-Length`):
/// they are dropped, `:authority` is the address and the length is the body's. Connecting and
/// sending get `timeout`, the answer gets `timeout` from the end of sending.
pub fn exchange(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    timeout: Duration,
    limits: Limits,
) -> Result<Response, HttpError> {
    let mut conn = Conn::open(addr, timeout)?;
    let mut upload = Upload::new(body);
    // The body's first frames (the default windows allow them before the server's SETTINGS)
    // go in the same write as HEADERS. Tomcat with one worker thread hands the stream to that
    // thread on HEADERS; had DATA come in a later segment, the thread would wait for a body
    // that no thread is left to read off the socket, and the answer would never come.
    let mut first = opening(addr, method, path, headers, body)?;
    first.extend_from_slice(&upload.data_frames());
    conn.write(&first)?;
    upload.after_sending(&mut conn);
    let mut answer = Answer::new(limits);
    loop {
        if upload.sending {
            upload.send_more(&mut conn);
        }
        let frame = conn.frame(MAX_FRAME)?;
        if let Some(response) = on_frame(&frame, &mut conn, &mut upload, &mut answer)? {
            return Ok(response);
        }
    }
}

/// What the client sends first: the preface, our SETTINGS and connection window, and the
/// request's HEADERS (with END_STREAM when there is no body).
fn opening(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Result<Vec<u8>, HttpError> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(PREFACE);
    write_head(&mut out, 12, SETTINGS, 0, 0);
    for (id, value) in [
        (SETTINGS_ENABLE_PUSH, 0u32),
        (SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW),
    ] {
        out.extend_from_slice(&id.to_be_bytes());
        out.extend_from_slice(&value.to_be_bytes());
    }
    write_head(&mut out, 4, WINDOW_UPDATE, 0, 0);
    out.extend_from_slice(&(CONNECTION_WINDOW - DEFAULT_WINDOW as u32).to_be_bytes());
    let block = header_block(addr, method, path, headers, body);
    if block.len() > MAX_FRAME {
        return Err(HttpError::Http2(format!(
            "the request headers take {} bytes, more than one frame",
            block.len()
        )));
    }
    let flags = if body.is_empty() {
        END_HEADERS | END_STREAM
    } else {
        END_HEADERS
    };
    write_head(&mut out, block.len(), HEADERS, flags, STREAM);
    out.extend_from_slice(&block);
    Ok(out)
}

/// The request's header block: pseudo-headers, then the caller's fields lowercased, without the
/// ones HTTP/2 forbids or that are ours to write; every field a literal without indexing.
fn header_block(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Vec<u8> {
    let mut block = Vec::with_capacity(128);
    literal_with_static_name(&mut block, METHOD, method.as_bytes());
    block.push(SCHEME_HTTP);
    literal_with_static_name(&mut block, PATH, path.as_bytes());
    literal_with_static_name(&mut block, AUTHORITY, addr.to_string().as_bytes());
    for (name, value) in headers {
        let lower = name.to_ascii_lowercase();
        if not_sent_over_h2(&lower, value) {
            continue;
        }
        literal_with_new_name(&mut block, lower.as_bytes(), value.as_bytes());
    }
    if !body.is_empty() || matches!(method, "POST" | "PUT" | "PATCH") {
        literal_with_static_name(
            &mut block,
            CONTENT_LENGTH,
            body.len().to_string().as_bytes(),
        );
    }
    block
}

/// One frame from the server: kind, flags, stream id and payload.
struct Frame {
    kind: u8,
    flags: u8,
    id: u32,
    payload: Vec<u8>,
}

/// Handles one frame; the response once the stream has ended with one.
fn on_frame(
    frame: &Frame,
    conn: &mut Conn,
    upload: &mut Upload<'_>,
    answer: &mut Answer,
) -> Result<Option<Response>, HttpError> {
    let Frame {
        kind,
        flags,
        id,
        ref payload,
    } = *frame;
    match kind {
        SETTINGS if flags & ACK == 0 => {
            upload.on_settings(payload)?;
            let mut ack = Vec::with_capacity(HEAD_LEN);
            write_head(&mut ack, 0, SETTINGS, ACK, 0);
            let _ = conn.write(&ack);
        }
        PING if flags & ACK == 0 && payload.len() == 8 => {
            let mut pong = Vec::with_capacity(HEAD_LEN + 8);
            write_head(&mut pong, 8, PING, ACK, 0);
            pong.extend_from_slice(payload);
            let _ = conn.write(&pong);
        }
        WINDOW_UPDATE if payload.len() == 4 => upload.on_window_update(id, u31(payload)),
        GOAWAY if payload.len() >= 8 && u31(payload) < STREAM => {
            return Err(HttpError::Closed {
                when: "with GOAWAY before processing the request",
            });
        }
        RST_STREAM if id == STREAM => {
            let code = payload
                .get(..4)
                .map_or(0, |c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]));
            return Err(HttpError::Reset { code });
        }
        PUSH_PROMISE => {
            return Err(HttpError::Http2(
                "PUSH_PROMISE although push was disabled".into(),
            ));
        }
        HEADERS | CONTINUATION if id == STREAM => return answer.on_header_frame(frame),
        DATA if id == STREAM => return answer.on_data(flags, payload),
        _ => {}
    }
    Ok(None)
}

/// The request body going out within the server's flow-control windows and frame size.
struct Upload<'a> {
    body: &'a [u8],
    sent: usize,
    /// The server's windows for what we send, and its largest frame.
    conn_window: i64,
    stream_window: i64,
    initial_window: i64,
    max_frame: usize,
    /// Sending stops when the whole body is out or the server stops reading.
    sending: bool,
}

impl<'a> Upload<'a> {
    fn new(body: &'a [u8]) -> Self {
        Self {
            body,
            sent: 0,
            conn_window: DEFAULT_WINDOW,
            stream_window: DEFAULT_WINDOW,
            initial_window: DEFAULT_WINDOW,
            max_frame: MAX_FRAME,
            sending: !body.is_empty(),
        }
    }

    /// Sends as much of the body as the windows allow. When sending ends, the answer's clock
    /// starts, as in the HTTP/1.1 client.
    fn send_more(&mut self, conn: &mut Conn) {
        let out = self.data_frames();
        // A server that answered early may stop reading: a failed send is fine as long as its
        // answer can still be read.
        if !out.is_empty() && conn.write(&out).is_err() {
            self.sending = false;
        }
        self.after_sending(conn);
    }

    /// Sending ends with the body; then the answer's clock starts.
    fn after_sending(&mut self, conn: &mut Conn) {
        if self.sent == self.body.len() {
            self.sending = false;
        }
        if !self.sending {
            conn.deadline = Instant::now() + conn.timeout;
        }
    }

    /// The DATA frames the windows allow now, END_STREAM on the last of the body.
    fn data_frames(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        let body = self.body;
        while self.sent < body.len() && self.conn_window > 0 && self.stream_window > 0 {
            let n = (body.len() - self.sent)
                .min(self.max_frame)
                .min(self.conn_window as usize)
                .min(self.stream_window as usize);
            let last = self.sent + n == body.len();
            write_head(&mut out, n, DATA, if last { END_STREAM } else { 0 }, STREAM);
            out.extend_from_slice(&body[self.sent..self.sent + n]);
            self.sent += n;
            self.conn_window -= n as i64;
            self.stream_window -= n as i64;
        }
        out
    }

    /// The server's SETTINGS: its initial stream window and largest frame.
    fn on_settings(&mut self, payload: &[u8]) -> Result<(), HttpError> {
        if !payload.len().is_multiple_of(6) {
            return Err(HttpError::Http2("a SETTINGS frame of odd length".into()));
        }
        for s in payload.chunks(6) {
            let key = u16::from_be_bytes([s[0], s[1]]);
            let value = u32::from_be_bytes([s[2], s[3], s[4], s[5]]);
            match key {
                SETTINGS_INITIAL_WINDOW_SIZE => {
                    self.stream_window += i64::from(value) - self.initial_window;
                    self.initial_window = i64::from(value);
                }
                SETTINGS_MAX_FRAME_SIZE => {
                    self.max_frame = (value as usize).clamp(MAX_FRAME, 1 << 24)
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn on_window_update(&mut self, id: u32, increment: u32) {
        let increment = i64::from(increment);
        if id == 0 {
            self.conn_window += increment;
        } else if id == STREAM {
            self.stream_window += increment;
        }
    }
}

/// The answer as it arrives: header blocks decoded whole, the body collected, both capped.
struct Answer {
    limits: Limits,
    decoder: fluke_hpack::Decoder<'static>,
    /// Header-block bytes so far (all HEADERS and CONTINUATION fragments).
    head_bytes: usize,
    block: Vec<u8>,
    block_ends_stream: bool,
    /// The final status, once its header block has come.
    status: Option<u16>,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn new(limits: Limits) -> Self {
        let mut decoder = fluke_hpack::Decoder::new();
        decoder.set_max_allowed_table_size(4096);
        Self {
            limits,
            decoder,
            head_bytes: 0,
            block: Vec::new(),
            block_ends_stream: false,
            status: None,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// A HEADERS or CONTINUATION frame of our stream; the response if it ends the stream.
    fn on_header_frame(&mut self, frame: &Frame) -> Result<Option<Response>, HttpError> {
        let fragment = if frame.kind == HEADERS {
            header_fragment(frame.flags, &frame.payload)
                .ok_or_else(|| HttpError::Http2("a bad HEADERS frame".into()))?
        } else {
            &frame.payload[..]
        };
        self.head_bytes += fragment.len();
        if self.head_bytes > self.limits.head {
            return Err(HttpError::HeadTooLarge {
                limit: self.limits.head,
            });
        }
        if frame.kind == HEADERS {
            self.block.clear();
            self.block_ends_stream = frame.flags & END_STREAM != 0;
        }
        self.block.extend_from_slice(fragment);
        if frame.flags & END_HEADERS == 0 {
            return Ok(None);
        }
        self.on_header_block()?;
        if self.block_ends_stream {
            return self.finish().map(Some);
        }
        Ok(None)
    }

    /// A whole header block: the final head, an interim (1xx) head, or trailers.
    fn on_header_block(&mut self) -> Result<(), HttpError> {
        let mut fields = Vec::new();
        self.decoder
            .decode_with_cb(&self.block, |n: Cow<[u8]>, v: Cow<[u8]>| {
                fields.push((
                    String::from_utf8_lossy(&n).into_owned(),
                    String::from_utf8_lossy(&v).into_owned(),
                ));
            })
            .map_err(|_| HttpError::Http2("an undecodable HPACK header block".into()))?;
        let code = fields
            .iter()
            .find(|(n, _)| n == ":status")
            .and_then(|(_, v)| v.parse::<u16>().ok());
        match (self.status, code) {
            // Trailers: ignored, as the HTTP/1.1 client ignores them.
            (Some(_), _) => {}
            (None, Some(c)) if (100..200).contains(&c) => {}
            (None, Some(c)) => {
                self.status = Some(c);
                self.headers = fields
                    .into_iter()
                    .filter(|(n, _)| !n.starts_with(':'))
                    .collect();
            }
            (None, None) => {
                return Err(HttpError::Http2(
                    "a response header block without :status".into(),
                ));
            }
        }
        Ok(())
    }

    /// A DATA frame of our stream; the response if it ends the stream.
    fn on_data(&mut self, flags: u8, payload: &[u8]) -> Result<Option<Response>, HttpError> {
        let len = unpadded_len(flags, payload)
            .ok_or_else(|| HttpError::Http2("a bad DATA frame".into()))?;
        if self.status.is_none() {
            return Err(HttpError::Http2("DATA before the response head".into()));
        }
        let start = if flags & PADDED != 0 { 1 } else { 0 };
        if self.body.len() + len > self.limits.body {
            return Err(HttpError::BodyTooLarge {
                limit: self.limits.body,
            });
        }
        self.body.extend_from_slice(&payload[start..start + len]);
        if flags & END_STREAM != 0 {
            return self.finish().map(Some);
        }
        Ok(None)
    }

    fn finish(&mut self) -> Result<Response, HttpError> {
        match self.status {
            Some(status) => Ok(Response {
                status,
                headers: std::mem::take(&mut self.headers),
                body: std::mem::take(&mut self.body),
                framing: "http2",
            }),
            None => Err(HttpError::Http2(
                "the stream ended without an answer".into(),
            )),
        }
    }
}

fn timed_out(timeout: Duration) -> HttpError {
    HttpError::Timeout {
        seconds: timeout.as_secs_f64(),
    }
}

/// The connection with its deadline and read buffer.
struct Conn {
    stream: TcpStream,
    deadline: Instant,
    timeout: Duration,
    buf: Vec<u8>,
    /// Where the unread bytes of `buf` start.
    start: usize,
}

impl Conn {
    fn open(addr: SocketAddr, timeout: Duration) -> Result<Self, HttpError> {
        let stream =
            TcpStream::connect_timeout(&addr, timeout).map_err(|source| match source.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => timed_out(timeout),
                _ => HttpError::Connect {
                    addr,
                    reason: source,
                },
            })?;
        let _ = stream.set_nodelay(true);
        Ok(Self {
            stream,
            deadline: Instant::now() + timeout,
            timeout,
            buf: Vec::with_capacity(32 * 1024),
            start: 0,
        })
    }

    fn remaining(&self) -> Result<Duration, HttpError> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            Err(timed_out(self.timeout))
        } else {
            Ok(left)
        }
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), HttpError> {
        let left = self.remaining()?;
        self.stream
            .set_write_timeout(Some(left))
            .map_err(HttpError::Io)?;
        self.stream.write_all(bytes).map_err(|e| match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => timed_out(self.timeout),
            _ => HttpError::Io(e),
        })
    }

    /// The next whole frame, reading until it is all there.
    fn frame(&mut self, max_frame: usize) -> Result<Frame, HttpError> {
        loop {
            if let Some(frame) = self.buffered_frame(max_frame)? {
                return Ok(frame);
            }
            self.read_more()?;
        }
    }

    /// The next frame if the buffer holds all of it.
    fn buffered_frame(&mut self, max_frame: usize) -> Result<Option<Frame>, HttpError> {
        let have = &self.buf[self.start..];
        if have.len() < HEAD_LEN {
            return Ok(None);
        }
        let len = payload_len(have);
        if len > max_frame {
            return Err(HttpError::Http2(format!(
                "a frame of {len} bytes, over the {max_frame} we allow"
            )));
        }
        if have.len() < HEAD_LEN + len {
            return Ok(None);
        }
        let frame = Frame {
            kind: have[3],
            flags: have[4],
            id: u31(&have[5..HEAD_LEN]),
            payload: have[HEAD_LEN..HEAD_LEN + len].to_vec(),
        };
        self.start += HEAD_LEN + len;
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        Ok(Some(frame))
    }

    /// One read into the buffer, within the deadline.
    fn read_more(&mut self) -> Result<(), HttpError> {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        let left = self.remaining()?;
        self.stream
            .set_read_timeout(Some(left))
            .map_err(HttpError::Io)?;
        let mut chunk = [0u8; 16 * 1024];
        match self.stream.read(&mut chunk) {
            Ok(0) => Err(HttpError::Closed {
                when: "before the answer was complete",
            }),
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(())
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                Err(timed_out(self.timeout))
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(()),
            Err(e) => Err(HttpError::Io(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    use bytes::Bytes;

    use super::*;

    /// What the test server does with each request.
    #[derive(Clone)]
    enum Behaviour {
        /// `200 ok`, `content-type: text/plain`.
        Ok,
        /// Echo the body, counting those that differ from this one.
        Echo(Vec<u8>),
        /// RST_STREAM INTERNAL_ERROR (2) instead of an answer.
        Reset,
    }

    /// An HTTP/2 server built with the `h2` crate on a tokio runtime of its own: the client is
    /// checked against an implementation it shares no code with.
    struct Server {
        addr: SocketAddr,
        bad_bodies: Arc<AtomicU64>,
    }

    fn server(behaviour: Behaviour) -> Server {
        let bad_bodies = Arc::new(AtomicU64::new(0));
        let bad = bad_bodies.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(l.local_addr().unwrap()).unwrap();
                while let Ok((s, _)) = l.accept().await {
                    tokio::spawn(serve_conn(s, behaviour.clone(), bad.clone()));
                }
            });
        });
        Server {
            addr: rx.recv().unwrap(),
            bad_bodies,
        }
    }

    async fn serve_conn(io: tokio::net::TcpStream, b: Behaviour, bad: Arc<AtomicU64>) {
        let Ok(mut conn) = h2::server::Builder::new().handshake::<_, Bytes>(io).await else {
            return;
        };
        while let Some(next) = conn.accept().await {
            let Ok((req, mut respond)) = next else { break };
            let (b, bad) = (b.clone(), bad.clone());
            tokio::spawn(async move {
                let mut body = req.into_body();
                let mut data = Vec::new();
                while let Some(chunk) = body.data().await {
                    let Ok(chunk) = chunk else { return };
                    let _ = body.flow_control().release_capacity(chunk.len());
                    data.extend_from_slice(&chunk);
                }
                let answer = match b {
                    Behaviour::Reset => {
                        respond.send_reset(h2::Reason::INTERNAL_ERROR);
                        return;
                    }
                    Behaviour::Echo(want) => {
                        if data != want {
                            bad.fetch_add(1, Ordering::Relaxed);
                        }
                        Bytes::from(data)
                    }
                    Behaviour::Ok => Bytes::from_static(b"ok"),
                };
                let resp = ::http::Response::builder()
                    .status(200)
                    .header("content-type", "text/plain")
                    .body(())
                    .unwrap();
                if let Ok(mut send) = respond.send_response(resp, false) {
                    let _ = send.send_data(answer, true);
                }
            });
        }
    }

    #[test]
    fn an_exchange_gets_status_headers_and_body() {
        let srv = server(Behaviour::Ok);
        let a = exchange(
            srv.addr,
            "GET",
            "/api/test",
            &[("Accept", "text/plain"), ("Connection", "close")],
            b"",
            Duration::from_secs(5),
            Limits::DEFAULT,
        )
        .expect("an answer");
        assert_eq!(a.status, 200);
        assert_eq!(a.body, b"ok");
        assert_eq!(a.framing, "http2");
        assert!(
            a.headers
                .iter()
                .any(|(n, v)| n == "content-type" && v == "text/plain"),
            "{:?}",
            a.headers
        );
    }

    #[test]
    fn a_body_larger_than_the_default_window_is_sent_byte_for_byte() {
        // 200 KB: more than the 65,535-byte initial windows, so WINDOW_UPDATEs must be waited for.
        let body: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let srv = server(Behaviour::Echo(body.clone()));
        let a = exchange(
            srv.addr,
            "POST",
            "/echo",
            &[("Content-Type", "application/octet-stream")],
            &body,
            Duration::from_secs(5),
            Limits::DEFAULT,
        )
        .expect("an answer");
        assert_eq!(a.status, 200);
        assert!(a.body == body, "the echo differs from the body sent");
        assert_eq!(srv.bad_bodies.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn a_reset_is_reported_and_the_body_is_capped() {
        let srv = server(Behaviour::Reset);
        let e = exchange(
            srv.addr,
            "GET",
            "/",
            &[],
            b"",
            Duration::from_secs(5),
            Limits::DEFAULT,
        )
        .unwrap_err();
        assert!(matches!(e, HttpError::Reset { code: 2 }), "{e}");
        assert_eq!(
            e.to_string(),
            "over h2c: the server reset the stream (error code 2) before answering"
        );

        let body = vec![b'x'; 50_000];
        let srv = server(Behaviour::Echo(body.clone()));
        let small = Limits {
            head: 64 * 1024,
            body: 1000,
        };
        let e = exchange(
            srv.addr,
            "POST",
            "/",
            &[],
            &body,
            Duration::from_secs(5),
            small,
        )
        .unwrap_err();
        assert!(matches!(e, HttpError::BodyTooLarge { limit: 1000 }), "{e}");
    }

    #[test]
    fn an_exchange_with_a_closed_port_is_a_connect_error() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let e = exchange(
            SocketAddr::from(([127, 0, 0, 1], port)),
            "GET",
            "/",
            &[],
            b"",
            Duration::from_secs(2),
            Limits::DEFAULT,
        )
        .unwrap_err();
        assert!(matches!(e, HttpError::Connect { .. }), "{e}");
    }

    #[test]
    fn the_request_block_drops_what_http2_does_not_send() {
        let addr = SocketAddr::from(([127, 0, 0, 1], 8080));
        let block = header_block(
            addr,
            "POST",
            "/echo",
            &[("Host", "x"), ("Connection", "close"), ("X-Test", "yes")],
            b"abc",
        );
        let headers = fluke_hpack::Decoder::new().decode(&block).unwrap();
        let text: Vec<(String, String)> = headers
            .into_iter()
            .map(|(n, v)| (String::from_utf8(n).unwrap(), String::from_utf8(v).unwrap()))
            .collect();
        let want = [
            (":method", "POST"),
            (":scheme", "http"),
            (":path", "/echo"),
            (":authority", "127.0.0.1:8080"),
            ("x-test", "yes"),
            ("content-length", "3"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()));
        assert_eq!(text, want);
    }
}
