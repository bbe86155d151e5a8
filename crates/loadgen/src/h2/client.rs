//! One blocking HTTP/2 exchange with prior knowledge (h2c) on a new connection: the verifier's
//! transport over h2c, where the load engine's [`super::H2Conn`] only keeps statuses.
//!
//! The exchange: preface, our SETTINGS (large receive windows, no push), the request's HEADERS
//! and its body as DATA within the server's flow-control windows, then frames until the stream
//! ends. A server may answer (413) and reset the stream before taking the whole body, as with
//! HTTP/1.1; the answer is what counts. Header blocks go through the same HPACK decoder as the
//! engine, and the head and body are capped by the caller, so a wrong server cannot make us
//! buffer without end.

use std::borrow::Cow;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use super::{
    ACK, CONNECTION_WINDOW, CONTINUATION, DATA, DEFAULT_WINDOW, END_HEADERS, END_STREAM, GOAWAY,
    HEADERS, MAX_FRAME, PADDED, PING, PREFACE, PUSH_PROMISE, RST_STREAM, SETTINGS, STREAM_WINDOW,
    WINDOW_UPDATE, frame_head, header_fragment, literal_indexed_name, string, unpadded_len,
};

/// SETTINGS identifiers (RFC 9113 §6.5.2).
const SETTINGS_ENABLE_PUSH: u16 = 0x2;
const SETTINGS_INITIAL_WINDOW_SIZE: u16 = 0x4;
const SETTINGS_MAX_FRAME_SIZE: u16 = 0x5;
/// The one stream of the exchange.
const STREAM: u32 = 1;

/// An answer over h2c: header names lowercased (HTTP/2 sends them so), in order.
#[derive(Debug, Clone)]
pub struct H2cAnswer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Why no answer came back; each is about the server or the network, worded for a finding.
#[derive(Debug, thiserror::Error)]
pub enum H2cError {
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
    #[error("the server reset the stream (error code {code}) before answering")]
    Reset { code: u32 },
    #[error("not a valid HTTP/2 answer: {0}")]
    Malformed(String),
    #[error("{0}")]
    Io(io::Error),
}

/// Caps of one exchange, as the HTTP/1.1 verifier client has them.
#[derive(Debug, Clone, Copy)]
pub struct H2cLimits {
    /// Header block bytes of the answer (all HEADERS and CONTINUATION payloads).
    pub head: usize,
    pub body: usize,
}

/// Sends one request over h2c with prior knowledge on a new connection and reads its answer.
/// `headers` must not hold connection-specific fields (`Connection`, `Host`, `Content-Length`):
/// they are dropped, `:authority` is the address and the length is the body's. Connecting and
/// sending get `timeout`, the answer gets `timeout` from the end of sending.
pub fn h2c_exchange(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    timeout: Duration,
    limits: H2cLimits,
) -> Result<H2cAnswer, H2cError> {
    let stream =
        TcpStream::connect_timeout(&addr, timeout).map_err(|source| match source.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => timed_out(timeout),
            _ => H2cError::Connect {
                addr,
                reason: source,
            },
        })?;
    let _ = stream.set_nodelay(true);
    let mut x = Exchange {
        stream,
        deadline: Instant::now() + timeout,
        timeout,
        buf: Vec::with_capacity(32 * 1024),
        start: 0,
    };
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(PREFACE);
    frame_head(&mut out, 12, SETTINGS, 0, 0);
    for (id, value) in [
        (SETTINGS_ENABLE_PUSH, 0u32),
        (SETTINGS_INITIAL_WINDOW_SIZE, STREAM_WINDOW),
    ] {
        out.extend_from_slice(&id.to_be_bytes());
        out.extend_from_slice(&value.to_be_bytes());
    }
    frame_head(&mut out, 4, WINDOW_UPDATE, 0, 0);
    out.extend_from_slice(&(CONNECTION_WINDOW - DEFAULT_WINDOW as u32).to_be_bytes());
    let block = header_block(addr, method, path, headers, body);
    if block.len() > MAX_FRAME {
        return Err(H2cError::Malformed(format!(
            "the request headers take {} bytes, more than one frame",
            block.len()
        )));
    }
    let flags = if body.is_empty() {
        END_HEADERS | END_STREAM
    } else {
        END_HEADERS
    };
    frame_head(&mut out, block.len(), HEADERS, flags, STREAM);
    out.extend_from_slice(&block);
    x.write(&out)?;

    let mut decoder = fluke_hpack::Decoder::new();
    decoder.set_max_allowed_table_size(4096);
    // The server's windows for what we send, and its largest frame.
    let mut conn_window = DEFAULT_WINDOW;
    let mut stream_window = DEFAULT_WINDOW;
    let mut initial_window = DEFAULT_WINDOW;
    let mut max_frame = MAX_FRAME;
    let mut sent = 0usize;
    // Sending stops when the server has answered whole or reset the stream.
    let mut sending = !body.is_empty();
    let mut head_bytes = 0usize;
    let mut block: Vec<u8> = Vec::new();
    let mut block_ends_stream = false;
    let mut status: Option<u16> = None;
    let mut answer_headers = Vec::new();
    let mut answer_body = Vec::new();
    // The answer's clock starts when sending ends, as in the HTTP/1.1 client.
    let mut answer_clock = body.is_empty();
    loop {
        if sending {
            let mut out = Vec::new();
            while sent < body.len() && conn_window > 0 && stream_window > 0 {
                let n = (body.len() - sent)
                    .min(max_frame)
                    .min(conn_window as usize)
                    .min(stream_window as usize);
                let last = sent + n == body.len();
                frame_head(&mut out, n, DATA, if last { END_STREAM } else { 0 }, STREAM);
                out.extend_from_slice(&body[sent..sent + n]);
                sent += n;
                conn_window -= n as i64;
                stream_window -= n as i64;
            }
            if !out.is_empty() {
                // A server that answered early may stop reading: a failed send is fine as
                // long as its answer can still be read.
                if x.write(&out).is_err() {
                    sending = false;
                }
            }
            if sent == body.len() {
                sending = false;
            }
            if !sending && !answer_clock {
                answer_clock = true;
                x.deadline = Instant::now() + x.timeout;
            }
        }
        let (kind, flags, id, payload) = x.frame(MAX_FRAME)?;
        match kind {
            SETTINGS if flags & ACK == 0 => {
                if payload.len() % 6 != 0 {
                    return Err(H2cError::Malformed("a SETTINGS frame of odd length".into()));
                }
                for s in payload.chunks(6) {
                    let key = u16::from_be_bytes([s[0], s[1]]);
                    let value = u32::from_be_bytes([s[2], s[3], s[4], s[5]]);
                    match key {
                        SETTINGS_INITIAL_WINDOW_SIZE => {
                            stream_window += i64::from(value) - initial_window;
                            initial_window = i64::from(value);
                        }
                        SETTINGS_MAX_FRAME_SIZE => {
                            max_frame = (value as usize).clamp(MAX_FRAME, 1 << 24)
                        }
                        _ => {}
                    }
                }
                let mut ack = Vec::with_capacity(9);
                frame_head(&mut ack, 0, SETTINGS, ACK, 0);
                let _ = x.write(&ack);
            }
            SETTINGS => {}
            PING if flags & ACK == 0 && payload.len() == 8 => {
                let mut pong = Vec::with_capacity(17);
                frame_head(&mut pong, 8, PING, ACK, 0);
                pong.extend_from_slice(&payload);
                let _ = x.write(&pong);
            }
            WINDOW_UPDATE if payload.len() == 4 => {
                let inc = i64::from(
                    u32::from_be_bytes([payload[0], payload[1], payload[2], payload[3]])
                        & 0x7fff_ffff,
                );
                if id == 0 {
                    conn_window += inc;
                } else if id == STREAM {
                    stream_window += inc;
                }
            }
            GOAWAY if payload.len() >= 8 => {
                let last = u32::from_be_bytes([payload[0], payload[1], payload[2], payload[3]])
                    & 0x7fff_ffff;
                if last < STREAM {
                    return Err(H2cError::Closed {
                        when: "with GOAWAY before processing the request",
                    });
                }
            }
            RST_STREAM if id == STREAM => {
                let code = payload
                    .get(..4)
                    .map_or(0, |c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]));
                return Err(H2cError::Reset { code });
            }
            PUSH_PROMISE => {
                return Err(H2cError::Malformed(
                    "PUSH_PROMISE although push was disabled".into(),
                ));
            }
            HEADERS | CONTINUATION if id == STREAM => {
                let fragment = if kind == HEADERS {
                    header_fragment(flags, &payload)
                        .ok_or_else(|| H2cError::Malformed("a bad HEADERS frame".into()))?
                } else {
                    &payload[..]
                };
                head_bytes += fragment.len();
                if head_bytes > limits.head {
                    return Err(H2cError::HeadTooLarge { limit: limits.head });
                }
                if kind == HEADERS {
                    block.clear();
                    block_ends_stream = flags & END_STREAM != 0;
                }
                block.extend_from_slice(fragment);
                if flags & END_HEADERS != 0 {
                    let mut fields = Vec::new();
                    decoder
                        .decode_with_cb(&block, |n: Cow<[u8]>, v: Cow<[u8]>| {
                            fields.push((
                                String::from_utf8_lossy(&n).into_owned(),
                                String::from_utf8_lossy(&v).into_owned(),
                            ));
                        })
                        .map_err(|_| {
                            H2cError::Malformed("an undecodable HPACK header block".into())
                        })?;
                    let code = fields
                        .iter()
                        .find(|(n, _)| n == ":status")
                        .and_then(|(_, v)| v.parse::<u16>().ok());
                    match (status, code) {
                        // Trailers: ignored, as the HTTP/1.1 client ignores them.
                        (Some(_), _) => {}
                        (None, Some(c)) if (100..200).contains(&c) => {}
                        (None, Some(c)) => {
                            status = Some(c);
                            answer_headers = fields
                                .into_iter()
                                .filter(|(n, _)| !n.starts_with(':'))
                                .collect();
                        }
                        (None, None) => {
                            return Err(H2cError::Malformed(
                                "a response header block without :status".into(),
                            ));
                        }
                    }
                    if block_ends_stream {
                        return finish(status, answer_headers, answer_body);
                    }
                }
            }
            DATA if id == STREAM => {
                let len = unpadded_len(flags, &payload)
                    .ok_or_else(|| H2cError::Malformed("a bad DATA frame".into()))?;
                if status.is_none() {
                    return Err(H2cError::Malformed("DATA before the response head".into()));
                }
                let start = if flags & PADDED != 0 { 1 } else { 0 };
                if answer_body.len() + len > limits.body {
                    return Err(H2cError::BodyTooLarge { limit: limits.body });
                }
                answer_body.extend_from_slice(&payload[start..start + len]);
                if flags & END_STREAM != 0 {
                    return finish(status, answer_headers, answer_body);
                }
            }
            _ => {}
        }
    }
}

fn finish(
    status: Option<u16>,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
) -> Result<H2cAnswer, H2cError> {
    match status {
        Some(status) => Ok(H2cAnswer {
            status,
            headers,
            body,
        }),
        None => Err(H2cError::Malformed(
            "the stream ended without an answer".into(),
        )),
    }
}

/// The request's header block: pseudo-headers, then the caller's fields lowercased, without the
/// ones HTTP/2 forbids or that are ours to write.
fn header_block(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Vec<u8> {
    let mut block = Vec::with_capacity(128);
    literal_indexed_name(&mut block, 2, method.as_bytes());
    block.push(0x86); // :scheme http
    literal_indexed_name(&mut block, 4, path.as_bytes());
    literal_indexed_name(&mut block, 1, addr.to_string().as_bytes());
    for (name, value) in headers {
        let lower = name.to_ascii_lowercase();
        if super::not_sent_over_h2(&lower, value) {
            continue;
        }
        block.push(0x00);
        string(&mut block, lower.as_bytes());
        string(&mut block, value.as_bytes());
    }
    if !body.is_empty() || matches!(method, "POST" | "PUT" | "PATCH") {
        literal_indexed_name(&mut block, 28, body.len().to_string().as_bytes());
    }
    block
}

fn timed_out(timeout: Duration) -> H2cError {
    H2cError::Timeout {
        seconds: timeout.as_secs_f64(),
    }
}

/// The connection with its deadline and read buffer.
struct Exchange {
    stream: TcpStream,
    deadline: Instant,
    timeout: Duration,
    buf: Vec<u8>,
    /// Where the unread bytes of `buf` start.
    start: usize,
}

impl Exchange {
    fn remaining(&self) -> Result<Duration, H2cError> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            Err(timed_out(self.timeout))
        } else {
            Ok(left)
        }
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), H2cError> {
        let left = self.remaining()?;
        self.stream
            .set_write_timeout(Some(left))
            .map_err(H2cError::Io)?;
        self.stream.write_all(bytes).map_err(|e| match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => timed_out(self.timeout),
            _ => H2cError::Io(e),
        })
    }

    /// The next whole frame: kind, flags, stream id and payload.
    fn frame(&mut self, max_frame: usize) -> Result<(u8, u8, u32, Vec<u8>), H2cError> {
        loop {
            let have = &self.buf[self.start..];
            if have.len() >= 9 {
                let len = u32::from_be_bytes([0, have[0], have[1], have[2]]) as usize;
                if len > max_frame {
                    return Err(H2cError::Malformed(format!(
                        "a frame of {len} bytes, over the {max_frame} we allow"
                    )));
                }
                if have.len() >= 9 + len {
                    let kind = have[3];
                    let flags = have[4];
                    let id = u32::from_be_bytes([have[5], have[6], have[7], have[8]]) & 0x7fff_ffff;
                    let payload = have[9..9 + len].to_vec();
                    self.start += 9 + len;
                    if self.start == self.buf.len() {
                        self.buf.clear();
                        self.start = 0;
                    }
                    return Ok((kind, flags, id, payload));
                }
            }
            if self.start > 0 {
                self.buf.drain(..self.start);
                self.start = 0;
            }
            let left = self.remaining()?;
            self.stream
                .set_read_timeout(Some(left))
                .map_err(H2cError::Io)?;
            let mut chunk = [0u8; 16 * 1024];
            match self.stream.read(&mut chunk) {
                Ok(0) => {
                    return Err(H2cError::Closed {
                        when: "before the answer was complete",
                    });
                }
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(timed_out(self.timeout));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(H2cError::Io(e)),
            }
        }
    }
}
