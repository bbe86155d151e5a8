//! HTTP/2 framing inside the mio worker, written here rather than taken from the `h2` crate.
//!
//! Why: the `h2` crate needs tokio, so it would be a second worker type with a runtime per thread,
//! futures, wakers and a `Bytes` per frame. Here a request is encoded once (HPACK literals without
//! indexing, so no encoder state) and sending it costs a `memcpy` and a stream id patched in place;
//! responses are framed from the connection's read buffer without copying. Header blocks are
//! only scanned for `:status`: we advertise SETTINGS_HEADER_TABLE_SIZE 0, so the server keeps no
//! HPACK dynamic table for us (RFC 7541 §4.2) and every other field is skipped by its length,
//! Huffman-coded or not. A full decoder costs more than everything else a request does here:
//! `fluke-hpack` builds its Huffman table on every coded string, 60 % of the generator's CPU
//! against hyper's h2c when it decoded every block. So the CPU per request stays close to the
//! HTTP/1.1 path: one `write` per batch of streams, one `read` per batch of answers.
//!
//! Flow control: we advertise a 16 MiB stream window and raise the connection window to 1 GiB at
//! once, topping both up with WINDOW_UPDATE at half, so a server never waits on us; request
//! bodies are at most 65,535 bytes (the default stream window) and go out whole when the
//! server's connection window allows. GOAWAY: streams above its last id were never processed and
//! are sent again elsewhere (RFC 9113 §6.8); the others finish, then the connection is replaced.
//! RST_STREAM: the stream's request counts as `reset`.

use std::collections::VecDeque;

use crate::LoadSpec;

pub mod client;

pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// Our receive window per stream.
pub const STREAM_WINDOW: u32 = 1 << 24;
/// Our receive window for the connection.
pub const CONNECTION_WINDOW: u32 = 1 << 30;
/// The largest frame we accept (the protocol's default; we do not raise it).
pub const MAX_FRAME: usize = 16_384;
const DEFAULT_WINDOW: i64 = 65_535;
const MAX_STREAM_ID: u32 = (1 << 31) - 1;

const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const RST_STREAM: u8 = 0x3;
const SETTINGS: u8 = 0x4;
const PUSH_PROMISE: u8 = 0x5;
const PING: u8 = 0x6;
const GOAWAY: u8 = 0x7;
const WINDOW_UPDATE: u8 = 0x8;
const CONTINUATION: u8 = 0x9;

const END_STREAM: u8 = 0x1;
const ACK: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;

/// One request as frames, encoded once per run; the stream ids are patched per use.
///
/// Three encodings of one header block, as a browser's or h2load's encoder would send it: the
/// first request on a connection adds its literal fields to the server's HPACK dynamic table,
/// every later one refers to them by index (a byte each), so the server decodes what a real
/// client makes it decode; literals without indexing when its table is too small for them.
#[derive(Debug)]
pub struct H2Request {
    first: Encoded,
    indexed: Encoded,
    literal: Encoded,
    /// The dynamic-table bytes the first request's fields take (RFC 7541 §4.1).
    table_bytes: usize,
    pub body_len: i64,
}

#[derive(Debug)]
struct Encoded {
    bytes: Vec<u8>,
    /// Where each frame's 4-byte stream id starts.
    id_at: Vec<usize>,
}

/// How a literal field of the block is sent.
#[derive(Clone, Copy, PartialEq)]
enum Fields {
    /// Literal with incremental indexing: the server's table keeps it.
    Indexing,
    /// Indexed: a reference to what the first request added.
    Indexed,
    /// Literal without indexing.
    Literal,
}

/// A header block too large for one frame, or similar; the message names the fix.
#[derive(Debug)]
pub struct EncodeError(pub String);

impl H2Request {
    pub fn encode(spec: &LoadSpec) -> Result<Self, EncodeError> {
        let literal = Self::encode_as(spec, Fields::Literal)?;
        let first = Self::encode_as(spec, Fields::Indexing)?;
        let indexed = Self::encode_as(spec, Fields::Indexed)?;
        let table_bytes = Self::literal_fields(spec)
            .iter()
            .map(|(name, value)| name.len() + value.len() + 32)
            .sum();
        Ok(Self {
            first,
            indexed,
            literal,
            table_bytes,
            body_len: spec.body.len() as i64,
        })
    }

    /// The fields that are not in the static table whole: (name, value), in block order.
    fn literal_fields(spec: &LoadSpec) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut fields = Vec::new();
        if !matches!(spec.method.as_str(), "GET" | "POST") {
            fields.push((b":method".to_vec(), spec.method.as_bytes().to_vec()));
        }
        if spec.target.path != "/" {
            fields.push((b":path".to_vec(), spec.target.path.as_bytes().to_vec()));
        }
        let authority = spec
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("host"))
            .map_or(spec.target.host_header.as_str(), |(_, v)| v.as_str());
        fields.push((b":authority".to_vec(), authority.as_bytes().to_vec()));
        for (name, value) in &spec.headers {
            let lower = name.to_ascii_lowercase();
            if !not_sent_over_h2(&lower, value) {
                fields.push((lower.into_bytes(), value.as_bytes().to_vec()));
            }
        }
        if !spec.body.is_empty() || matches!(spec.method.as_str(), "POST" | "PUT" | "PATCH") {
            fields.push((
                b"content-length".to_vec(),
                spec.body.len().to_string().into_bytes(),
            ));
        }
        fields
    }

    fn encode_as(spec: &LoadSpec, how: Fields) -> Result<Encoded, EncodeError> {
        let fields = Self::literal_fields(spec);
        let mut block = Vec::with_capacity(128);
        match spec.method.as_str() {
            "GET" => block.push(0x82),
            "POST" => block.push(0x83),
            _ => {}
        }
        block.push(if spec.target.tls { 0x87 } else { 0x86 });
        if spec.target.path == "/" {
            block.push(0x84);
        }
        for (k, (name, value)) in fields.iter().enumerate() {
            match how {
                // The first request added the fields in order: the newest is index 62.
                Fields::Indexed => integer(&mut block, 0x80, 7, 62 + fields.len() - 1 - k),
                Fields::Indexing | Fields::Literal => {
                    let (first, prefix) = if how == Fields::Indexing {
                        (0x40, 6)
                    } else {
                        (0x00, 4)
                    };
                    match static_name_index(name) {
                        Some(i) => integer(&mut block, first, prefix, i),
                        None => {
                            integer(&mut block, first, prefix, 0);
                            string(&mut block, name);
                        }
                    }
                    string(&mut block, value);
                }
            }
        }
        Self::frames(spec, block)
    }

    fn frames(spec: &LoadSpec, block: Vec<u8>) -> Result<Encoded, EncodeError> {
        if block.len() > MAX_FRAME {
            return Err(EncodeError(format!(
                "the request headers take {} bytes, more than one HTTP/2 frame (16384): send fewer \
                 or shorter headers",
                block.len()
            )));
        }
        let mut bytes = Vec::with_capacity(block.len() + spec.body.len() + 32);
        let mut id_at = Vec::new();
        let flags = if spec.body.is_empty() {
            END_HEADERS | END_STREAM
        } else {
            END_HEADERS
        };
        id_at.push(frame_head(&mut bytes, block.len(), HEADERS, flags, 0));
        bytes.extend_from_slice(&block);
        let mut chunks = spec.body.chunks(MAX_FRAME).peekable();
        while let Some(chunk) = chunks.next() {
            let flags = if chunks.peek().is_none() {
                END_STREAM
            } else {
                0
            };
            id_at.push(frame_head(&mut bytes, chunk.len(), DATA, flags, 0));
            bytes.extend_from_slice(chunk);
        }
        Ok(Encoded { bytes, id_at })
    }

    /// The encoding for a connection's next request, given the server's table size and
    /// whether an earlier request on it filled the table.
    fn encoding(&self, peer_table_size: usize, primed: bool) -> &Encoded {
        // 4,096 is the table's size until an encoder signals another (RFC 7541 §4.2); we
        // never do, so a larger setting does not make room.
        if self.table_bytes > peer_table_size.min(4096) {
            &self.literal
        } else if primed {
            &self.indexed
        } else {
            &self.first
        }
    }
}

/// A header (`name` lowercased) a client does not send over HTTP/2: connection-specific ones are
/// not allowed (RFC 9113 §8.2.2; `te` only as `trailers`), Host is `:authority`, and the length is
/// ours to write.
pub(crate) fn not_sent_over_h2(name: &str, value: &str) -> bool {
    matches!(
        name,
        "host"
            | "connection"
            | "keep-alive"
            | "proxy-connection"
            | "transfer-encoding"
            | "upgrade"
            | "content-length"
    ) || (name == "te" && !value.eq_ignore_ascii_case("trailers"))
}

/// The static-table index of a header name (RFC 7541 Appendix A), for the names we send.
fn static_name_index(name: &[u8]) -> Option<usize> {
    Some(match name {
        b":authority" => 1,
        b":method" => 2,
        b":path" => 4,
        b"accept" => 19,
        b"accept-encoding" => 16,
        b"authorization" => 23,
        b"content-length" => 28,
        b"content-type" => 31,
        b"cookie" => 32,
        b"user-agent" => 58,
        _ => return None,
    })
}

/// Writes a frame header; returns where its stream id starts.
fn frame_head(out: &mut Vec<u8>, len: usize, kind: u8, flags: u8, stream: u32) -> usize {
    out.extend_from_slice(&(len as u32).to_be_bytes()[1..]);
    out.push(kind);
    out.push(flags);
    let at = out.len();
    out.extend_from_slice(&stream.to_be_bytes());
    at
}

/// HPACK integer with an `n`-bit prefix whose high bits are `first`.
fn integer(out: &mut Vec<u8>, first: u8, n: u8, mut value: usize) {
    let max = (1usize << n) - 1;
    if value < max {
        out.push(first | value as u8);
        return;
    }
    out.push(first | max as u8);
    value -= max;
    while value >= 128 {
        out.push((value % 128 + 128) as u8);
        value /= 128;
    }
    out.push(value as u8);
}

/// A string literal, not Huffman-coded.
fn string(out: &mut Vec<u8>, s: &[u8]) {
    integer(out, 0, 7, s.len());
    out.extend_from_slice(s);
}

/// Literal header field without indexing, name from the static table.
fn literal_indexed_name(out: &mut Vec<u8>, index: usize, value: &[u8]) {
    integer(out, 0x00, 4, index);
    string(out, value);
}

/// A stream in flight, in the order sent (parallel to the connection's `in_flight`).
#[derive(Debug, Clone, Copy)]
pub struct Stream {
    pub id: u32,
    pub status: u16,
    /// DATA bytes received since our last WINDOW_UPDATE for this stream.
    unacked: u32,
}

/// What a frame meant for the worker.
#[derive(Debug, PartialEq, Eq)]
pub enum Event {
    None,
    /// The stream at this position in send order has its whole answer.
    Complete {
        pos: usize,
        status: u16,
    },
    /// The server reset the stream at this position.
    Reset {
        pos: usize,
    },
    /// Streams above `last_id` were not processed.
    GoAway {
        last_id: u32,
    },
    /// The connection cannot go on.
    Error(&'static str),
}

/// One connection's HTTP/2 state.
pub struct H2Conn {
    /// Bytes to write: the preface, requests and control frames (SETTINGS ACK, PING ACK,
    /// WINDOW_UPDATE), appended in order; cleared when written.
    pub out: Vec<u8>,
    pub streams: VecDeque<Stream>,
    next_id: u32,
    /// The server's HPACK table size for what we send (its SETTINGS_HEADER_TABLE_SIZE).
    peer_table_size: usize,
    /// The first request on this connection went out with its fields added to that table.
    table_primed: bool,
    /// Built on the first Huffman-coded `:status` (statuses outside the static table, rare).
    huffman: Option<Box<fluke_hpack::huffman::HuffmanDecoder>>,
    /// A header block split over CONTINUATION frames: (stream, END_STREAM, bytes so far).
    pending_block: Option<(u32, bool)>,
    block: Vec<u8>,
    peer_max_streams: usize,
    /// The server's initial stream window: a body larger than it never fits.
    peer_window: i64,
    send_window: i64,
    recv_unacked: u32,
    /// GOAWAY received or stream ids used up: no new streams; replaced once the open ones end.
    pub draining: bool,
    /// No stream opens before the server's first SETTINGS: its stream limit is known by then
    /// (one round trip per new connection, as a browser pays).
    settings_seen: bool,
}

impl H2Conn {
    pub fn new() -> Self {
        Self {
            out: Vec::with_capacity(4096),
            streams: VecDeque::new(),
            next_id: 1,
            peer_table_size: 4096,
            table_primed: false,
            huffman: None,
            pending_block: None,
            block: Vec::new(),
            peer_max_streams: usize::MAX,
            peer_window: DEFAULT_WINDOW,
            send_window: DEFAULT_WINDOW,
            recv_unacked: 0,
            draining: false,
            settings_seen: false,
        }
    }

    /// A new connection: fresh state and the client preface with our SETTINGS and window.
    pub fn start(&mut self) {
        *self = Self {
            out: std::mem::take(&mut self.out),
            streams: std::mem::take(&mut self.streams),
            block: std::mem::take(&mut self.block),
            ..Self::new()
        };
        self.out.clear();
        self.streams.clear();
        self.block.clear();
        self.out.extend_from_slice(PREFACE);
        frame_head(&mut self.out, 18, SETTINGS, 0, 0);
        self.out.extend_from_slice(&[0, 1, 0, 0, 0, 0]); // HEADER_TABLE_SIZE 0: no dynamic table
        self.out.extend_from_slice(&[0, 2, 0, 0, 0, 0]); // ENABLE_PUSH 0
        self.out.extend_from_slice(&[0, 4]); // INITIAL_WINDOW_SIZE
        self.out.extend_from_slice(&STREAM_WINDOW.to_be_bytes());
        self.window_update(0, CONNECTION_WINDOW - DEFAULT_WINDOW as u32);
    }

    /// How many of `wanted` new streams may open now.
    #[inline]
    pub fn can_open(&self, wanted: usize, body_len: i64) -> usize {
        if self.draining || !self.settings_seen {
            return 0;
        }
        let mut k = wanted.min(self.peer_max_streams.saturating_sub(self.streams.len()));
        let ids_left = ((MAX_STREAM_ID - self.next_id.min(MAX_STREAM_ID)) / 2 + 1) as usize;
        k = k.min(ids_left);
        if body_len > 0 {
            if body_len > self.peer_window {
                return 0;
            }
            k = k.min((self.send_window.max(0) / body_len) as usize);
        }
        k
    }

    /// Appends `k` requests with fresh stream ids.
    #[inline]
    pub fn push_requests(&mut self, k: usize, req: &H2Request) {
        for _ in 0..k {
            let id = self.next_id;
            let base = self.out.len();
            let e = req.encoding(self.peer_table_size, self.table_primed);
            // Only what was added may be referred to: literals sent while the server's table
            // was too small prime nothing.
            self.table_primed |= std::ptr::eq(e, &req.first);
            self.out.extend_from_slice(&e.bytes);
            for &at in &e.id_at {
                self.out[base + at..base + at + 4].copy_from_slice(&id.to_be_bytes());
            }
            self.streams.push_back(Stream {
                id,
                status: 0,
                unacked: 0,
            });
            self.send_window -= req.body_len;
            if id >= MAX_STREAM_ID - 1 {
                self.draining = true;
                self.next_id = MAX_STREAM_ID;
            } else {
                self.next_id += 2;
            }
        }
    }

    fn window_update(&mut self, stream: u32, increment: u32) {
        frame_head(&mut self.out, 4, WINDOW_UPDATE, 0, stream);
        self.out.extend_from_slice(&increment.to_be_bytes());
    }

    fn position(&self, id: u32) -> Option<usize> {
        // Answers come mostly in order: the oldest streams are looked at first.
        self.streams.iter().position(|s| s.id == id)
    }

    /// The length of the next whole frame at the start of `data`, if it is all there.
    #[inline]
    pub fn frame_len(data: &[u8]) -> Result<Option<usize>, &'static str> {
        if data.len() < 9 {
            return Ok(None);
        }
        let len = u32::from_be_bytes([0, data[0], data[1], data[2]]) as usize;
        if len > MAX_FRAME {
            return Err("a frame larger than the 16384 bytes we allow");
        }
        Ok((data.len() >= 9 + len).then_some(9 + len))
    }

    /// Handles one whole frame (header included).
    pub fn on_frame(&mut self, frame: &[u8]) -> Event {
        let kind = frame[3];
        let flags = frame[4];
        let sid = u32::from_be_bytes([frame[5], frame[6], frame[7], frame[8]]) & MAX_STREAM_ID;
        let payload = &frame[9..];
        if self.pending_block.is_some() && kind != CONTINUATION {
            return Event::Error("a frame inside a header block (CONTINUATION expected)");
        }
        match kind {
            DATA => {
                if unpadded_len(flags, payload).is_none() {
                    return Event::Error("bad DATA padding");
                }
                let n = payload.len() as u32;
                self.recv_unacked += n;
                if self.recv_unacked >= CONNECTION_WINDOW / 2 {
                    let inc = std::mem::take(&mut self.recv_unacked);
                    self.window_update(0, inc);
                }
                let Some(pos) = self.position(sid) else {
                    return Event::None;
                };
                let s = &mut self.streams[pos];
                s.unacked += n;
                let status = s.status;
                if flags & END_STREAM != 0 {
                    return Event::Complete { pos, status };
                }
                if s.unacked >= STREAM_WINDOW / 2 {
                    let inc = std::mem::take(&mut s.unacked);
                    self.window_update(sid, inc);
                }
                Event::None
            }
            HEADERS => {
                let Some(block) = header_fragment(flags, payload) else {
                    return Event::Error("bad HEADERS padding or priority");
                };
                let end_stream = flags & END_STREAM != 0;
                if flags & END_HEADERS == 0 {
                    self.block.clear();
                    self.block.extend_from_slice(block);
                    self.pending_block = Some((sid, end_stream));
                    return Event::None;
                }
                let status = match self.decode(block) {
                    Ok(s) => s,
                    Err(e) => return Event::Error(e),
                };
                self.headers_done(sid, status, end_stream)
            }
            CONTINUATION => {
                let Some((pending, end_stream)) = self.pending_block else {
                    return Event::Error("CONTINUATION without a header block");
                };
                if pending != sid {
                    return Event::Error("CONTINUATION on another stream");
                }
                self.block.extend_from_slice(payload);
                if self.block.len() > 256 * 1024 {
                    return Event::Error("a header block over 256 KiB");
                }
                if flags & END_HEADERS == 0 {
                    return Event::None;
                }
                self.pending_block = None;
                let block = std::mem::take(&mut self.block);
                let status = self.decode(&block);
                self.block = block;
                match status {
                    Ok(s) => self.headers_done(sid, s, end_stream),
                    Err(e) => Event::Error(e),
                }
            }
            RST_STREAM => match self.position(sid) {
                Some(pos) => Event::Reset { pos },
                None => Event::None,
            },
            SETTINGS => {
                if flags & ACK != 0 {
                    return Event::None;
                }
                if !payload.len().is_multiple_of(6) {
                    return Event::Error("a SETTINGS frame of bad length");
                }
                for s in payload.chunks_exact(6) {
                    let id = u16::from_be_bytes([s[0], s[1]]);
                    let v = u32::from_be_bytes([s[2], s[3], s[4], s[5]]);
                    match id {
                        0x1 => self.peer_table_size = v as usize,
                        0x3 => self.peer_max_streams = v as usize,
                        0x4 => self.peer_window = i64::from(v),
                        _ => {}
                    }
                }
                frame_head(&mut self.out, 0, SETTINGS, ACK, 0);
                self.settings_seen = true;
                Event::None
            }
            PING => {
                if flags & ACK == 0 && payload.len() == 8 {
                    frame_head(&mut self.out, 8, PING, ACK, 0);
                    self.out.extend_from_slice(payload);
                }
                Event::None
            }
            GOAWAY => {
                if payload.len() < 8 {
                    return Event::Error("a GOAWAY frame of bad length");
                }
                self.draining = true;
                let last_id = u32::from_be_bytes([payload[0], payload[1], payload[2], payload[3]])
                    & MAX_STREAM_ID;
                Event::GoAway { last_id }
            }
            WINDOW_UPDATE => {
                if sid == 0 && payload.len() == 4 {
                    let inc = u32::from_be_bytes([payload[0], payload[1], payload[2], payload[3]])
                        & MAX_STREAM_ID;
                    self.send_window += i64::from(inc);
                }
                Event::None
            }
            PUSH_PROMISE => Event::Error("a PUSH_PROMISE though push is disabled"),
            _ => Event::None, // PRIORITY and unknown frame types are ignored
        }
    }

    fn headers_done(&mut self, sid: u32, status: u16, end_stream: bool) -> Event {
        let Some(pos) = self.position(sid) else {
            return Event::None;
        };
        let s = &mut self.streams[pos];
        // 1xx are interim answers; a block without :status is trailers.
        if status >= 200 {
            s.status = status;
        }
        if end_stream {
            Event::Complete {
                pos,
                status: s.status,
            }
        } else {
            Event::None
        }
    }

    /// The `:status` of a whole header block, 0 when it has none (trailers).
    fn decode(&mut self, block: &[u8]) -> Result<u16, &'static str> {
        block_status(block, &mut self.huffman)
    }
}

/// Static-table indexes (RFC 7541 Appendix A) of `:status` with a value: 200, 204, 206, 304,
/// 400, 404, 500; index 8 doubles as the name `:status` for a literal value.
const STATUS_INDEXES: [(usize, u16); 7] = [
    (8, 200),
    (9, 204),
    (10, 206),
    (11, 304),
    (12, 400),
    (13, 404),
    (14, 500),
];
const STATIC_TABLE_LEN: usize = 61;

/// Scans an HPACK header block for `:status` without a dynamic table (we advertise a table
/// size of 0, so a server adds nothing it may refer to later: an index past the static table is
/// a protocol error). Other fields are skipped by their length, never Huffman-decoded.
fn block_status(
    block: &[u8],
    huffman: &mut Option<Box<fluke_hpack::huffman::HuffmanDecoder>>,
) -> Result<u16, &'static str> {
    let mut status = 0u16;
    let mut i = 0;
    while i < block.len() {
        let first = block[i];
        if first & 0x80 != 0 {
            // Indexed field.
            let (index, n) = hpack_integer(&block[i..], 7)?;
            i += n;
            match index {
                0 => return Err("an HPACK index of 0"),
                1..=STATIC_TABLE_LEN => {
                    if let Some(&(_, code)) = STATUS_INDEXES.iter().find(|(x, _)| *x == index) {
                        status = code;
                    }
                }
                _ => return Err("an HPACK dynamic-table index though the table size is 0"),
            }
        } else if first & 0xe0 == 0x20 {
            // Dynamic table size update: nothing to keep with no table.
            let (_, n) = hpack_integer(&block[i..], 5)?;
            i += n;
        } else {
            // A literal: with incremental indexing (01), without (0000) or never indexed (0001).
            let prefix = if first & 0x40 != 0 { 6 } else { 4 };
            let (name_index, n) = hpack_integer(&block[i..], prefix)?;
            i += n;
            let is_status = match name_index {
                0 => {
                    let (name, huffman_coded, n) = hpack_string(&block[i..])?;
                    i += n;
                    string_is(name, huffman_coded, b":status", huffman)?
                }
                1..=STATIC_TABLE_LEN => (8..=14).contains(&name_index),
                _ => return Err("an HPACK dynamic-table name though the table size is 0"),
            };
            let (value, huffman_coded, n) = hpack_string(&block[i..])?;
            i += n;
            if is_status {
                status = if huffman_coded {
                    let d = huffman.get_or_insert_with(|| {
                        Box::new(fluke_hpack::huffman::HuffmanDecoder::new())
                    });
                    parse_status(&d.decode(value).map_err(|_| "a bad Huffman-coded :status")?)
                } else {
                    parse_status(value)
                };
            }
        }
    }
    Ok(status)
}

fn string_is(
    s: &[u8],
    huffman_coded: bool,
    want: &[u8],
    huffman: &mut Option<Box<fluke_hpack::huffman::HuffmanDecoder>>,
) -> Result<bool, &'static str> {
    if !huffman_coded {
        return Ok(s == want);
    }
    // A coded string is at least 5 bits per octet: anything longer than that cannot match.
    if s.len() > want.len() {
        return Ok(false);
    }
    let d = huffman.get_or_insert_with(|| Box::new(fluke_hpack::huffman::HuffmanDecoder::new()));
    Ok(d.decode(s).map_err(|_| "a bad Huffman-coded header name")? == want)
}

/// An HPACK integer with an `n`-bit prefix (RFC 7541 §5.1): its value and its length in bytes.
fn hpack_integer(b: &[u8], n: u8) -> Result<(usize, usize), &'static str> {
    const TRUNCATED: &str = "a truncated HPACK integer";
    let max = (1usize << n) - 1;
    let mut value = usize::from(*b.first().ok_or(TRUNCATED)?) & max;
    if value < max {
        return Ok((value, 1));
    }
    let mut shift = 0u32;
    for (k, &byte) in b.iter().enumerate().skip(1) {
        if shift > 28 {
            return Err("an HPACK integer over 2^32");
        }
        value += usize::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Ok((value, k + 1));
        }
    }
    Err(TRUNCATED)
}

/// An HPACK string (RFC 7541 §5.2): its bytes as sent, whether they are Huffman-coded, and the
/// length of the whole representation.
fn hpack_string(b: &[u8]) -> Result<(&[u8], bool, usize), &'static str> {
    let huffman_coded = b.first().ok_or("a truncated HPACK string")? & 0x80 != 0;
    let (len, n) = hpack_integer(b, 7)?;
    let end = n
        .checked_add(len)
        .filter(|&e| e <= b.len())
        .ok_or("a truncated HPACK string")?;
    Ok((&b[n..end], huffman_coded, end))
}

fn parse_status(v: &[u8]) -> u16 {
    if v.len() == 3 && v.iter().all(u8::is_ascii_digit) {
        v.iter().fold(0u16, |a, d| a * 10 + u16::from(d - b'0'))
    } else {
        0
    }
}

fn unpadded_len(flags: u8, payload: &[u8]) -> Option<usize> {
    if flags & PADDED == 0 {
        return Some(payload.len());
    }
    let pad = *payload.first()? as usize;
    payload.len().checked_sub(1 + pad)
}

fn header_fragment(flags: u8, payload: &[u8]) -> Option<&[u8]> {
    let mut p = payload;
    let mut pad = 0;
    if flags & PADDED != 0 {
        pad = *p.first()? as usize;
        p = &p[1..];
    }
    if flags & PRIORITY != 0 {
        p = p.get(5..)?;
    }
    p.get(..p.len().checked_sub(pad)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HttpVersion, Target};

    fn spec(url: &str) -> LoadSpec {
        let mut s = LoadSpec::get(Target::parse(url).unwrap());
        s.http_version = HttpVersion::Http2;
        s
    }

    #[test]
    fn the_status_is_read_from_a_block_without_a_dynamic_table() {
        let mut h = None;
        // Indexed :status 200; a table size update first; a Huffman-coded content-type skipped.
        assert_eq!(block_status(&[0x88], &mut h), Ok(200));
        assert_eq!(block_status(&[0x20, 0x8d], &mut h), Ok(404));
        assert_eq!(
            block_status(&[0x5f, 0x83, 0xaa, 0xbb, 0xcc, 0x88], &mut h),
            Ok(200)
        );
        // A literal value under the name :status, plain and Huffman-coded ("503").
        assert_eq!(
            block_status(&[0x08, 0x03, b'5', b'0', b'3'], &mut h),
            Ok(503)
        );
        assert!(h.is_none(), "no Huffman table for plain strings");
        assert_eq!(
            block_status(&[0x08, 0x83, 0x6c, 0x0c, 0xff], &mut h),
            Ok(503)
        );
        // A literal name spelled out, never indexed.
        let mut named = vec![0x10, 7];
        named.extend_from_slice(b":status");
        named.extend_from_slice(&[3, b'2', b'0', b'1']);
        assert_eq!(block_status(&named, &mut h), Ok(201));
        // Trailers carry no status.
        assert_eq!(block_status(&[0x40, 1, b'x', 1, b'y'], &mut h), Ok(0));
        // A dynamic index, a truncated string, a truncated integer: errors, not panics.
        assert!(block_status(&[0xbe], &mut h).is_err());
        assert!(block_status(&[0x08, 0x05, b'2'], &mut h).is_err());
        assert!(block_status(&[0xff], &mut h).is_err());
        assert!(block_status(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], &mut h).is_err());
        // RFC 7541 C.1.2: 1337 with a 5-bit prefix.
        assert_eq!(hpack_integer(&[0x1f, 0x9a, 0x0a], 5), Ok((1337, 3)));
    }

    #[test]
    fn a_get_is_one_headers_frame_that_decodes_back() {
        let mut s = spec("http://127.0.0.1:8080/api?x=1");
        s.headers.push(("Connection".into(), "close".into()));
        s.headers.push(("X-Test".into(), "yes".into()));
        let r = H2Request::encode(&s).unwrap();
        let want = [
            (":method", "GET"),
            (":scheme", "http"),
            (":path", "/api?x=1"),
            (":authority", "127.0.0.1:8080"),
            ("x-test", "yes"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .to_vec();
        // One decoder for the connection, as a server has: the first request fills its table,
        // the later ones are indexes into it; both read back the same headers.
        let mut d = fluke_hpack::Decoder::new();
        for (k, e) in [&r.first, &r.indexed, &r.indexed].into_iter().enumerate() {
            assert_eq!(e.id_at, vec![5]);
            assert_eq!(e.bytes[3], HEADERS);
            assert_eq!(e.bytes[4], END_HEADERS | END_STREAM);
            let headers = d.decode(&e.bytes[9..]).unwrap();
            let text: Vec<(String, String)> = headers
                .into_iter()
                .map(|(n, v)| (String::from_utf8(n).unwrap(), String::from_utf8(v).unwrap()))
                .collect();
            assert_eq!(text, want, "request {k}");
        }
        assert_eq!(r.indexed.bytes.len(), 9 + 5, "five one-byte fields");
        // Literals without indexing read back alone, with a fresh decoder.
        let headers = fluke_hpack::Decoder::new()
            .decode(&r.literal.bytes[9..])
            .unwrap();
        assert_eq!(headers.len(), 5);
        // A server with no room in its table gets literals on every request.
        assert!(std::ptr::eq(r.encoding(0, false), &r.literal));
        assert!(std::ptr::eq(r.encoding(4096, false), &r.first));
        assert!(std::ptr::eq(r.encoding(4096, true), &r.indexed));
        let mut c = H2Conn::new();
        c.settings_seen = true;
        c.push_requests(2, &r);
        assert_eq!(c.out.len(), r.first.bytes.len() + r.indexed.bytes.len());
        // Literals while the server's table has no room, then the table grows: the fields are
        // added before anything refers to them.
        let mut c = H2Conn::new();
        c.settings_seen = true;
        c.peer_table_size = 0;
        c.push_requests(1, &r);
        c.peer_table_size = 4096;
        c.push_requests(2, &r);
        let sizes = r.literal.bytes.len() + r.first.bytes.len() + r.indexed.bytes.len();
        assert_eq!(c.out.len(), sizes);
    }

    #[test]
    fn a_post_body_is_split_into_data_frames_and_ids_are_patched() {
        let mut s = spec("https://h/echo");
        s.method = "POST".into();
        s.body = vec![7; MAX_FRAME + 10];
        let r = H2Request::encode(&s).unwrap();
        assert_eq!(r.first.id_at.len(), 3);
        let mut c = H2Conn::new();
        c.settings_seen = true;
        c.send_window = 1 << 20;
        c.peer_window = 1 << 20;
        assert_eq!(c.can_open(5, r.body_len), 5);
        c.push_requests(2, &r);
        let second = &c.out[r.first.bytes.len()..];
        assert_eq!(&second[5..9], &3u32.to_be_bytes());
        let last = r.indexed.id_at[2];
        assert_eq!(&second[last..last + 4], &3u32.to_be_bytes());
        assert_eq!(second[last - 2], DATA);
        assert_eq!(second[last - 1], END_STREAM);
        c.send_window = r.body_len; // room for one more
        assert_eq!(c.can_open(5, r.body_len), 1);
    }

    fn frame(kind: u8, flags: u8, sid: u32, payload: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        frame_head(&mut v, payload.len(), kind, flags, sid);
        v.extend_from_slice(payload);
        v
    }

    #[test]
    fn responses_complete_on_end_stream_and_settings_are_acked() {
        let r = H2Request::encode(&spec("http://h/")).unwrap();
        let mut c = H2Conn::new();
        c.start();
        assert_eq!(
            c.can_open(2, 0),
            0,
            "no stream before the server's SETTINGS"
        );
        c.push_requests(2, &r);
        let out_before = c.out.len();
        assert_eq!(
            c.on_frame(&frame(SETTINGS, 0, 0, &[0, 3, 0, 0, 0, 1])),
            Event::None
        );
        assert_eq!(c.out.len(), out_before + 9, "SETTINGS ACK queued");
        assert_eq!(
            c.can_open(4, 0),
            0,
            "the server allows one stream, two are open"
        );
        // :status 200 is static entry 8; answer stream 3 first, then 1, split by CONTINUATION.
        assert_eq!(
            c.on_frame(&frame(HEADERS, END_HEADERS, 3, &[0x88])),
            Event::None
        );
        assert_eq!(
            c.on_frame(&frame(DATA, END_STREAM, 3, b"hi")),
            Event::Complete {
                pos: 1,
                status: 200
            }
        );
        assert_eq!(c.on_frame(&frame(HEADERS, END_STREAM, 1, &[])), Event::None);
        assert!(matches!(
            c.on_frame(&frame(DATA, 0, 1, b"x")),
            Event::Error(_)
        ));
        let mut c = H2Conn::new();
        c.start();
        c.push_requests(1, &r);
        assert_eq!(c.on_frame(&frame(HEADERS, END_STREAM, 1, &[])), Event::None);
        assert_eq!(
            c.on_frame(&frame(CONTINUATION, END_HEADERS, 1, &[0x8d])),
            Event::Complete {
                pos: 0,
                status: 404
            }
        );
        assert_eq!(
            c.on_frame(&frame(RST_STREAM, 0, 1, &[0, 0, 0, 8])),
            Event::Reset { pos: 0 }
        );
        assert_eq!(
            c.on_frame(&frame(GOAWAY, 0, 0, &[0, 0, 0, 1, 0, 0, 0, 0])),
            Event::GoAway { last_id: 1 }
        );
        assert_eq!(c.can_open(1, 0), 0);
    }

    #[test]
    fn oversized_frames_are_refused() {
        let mut head = Vec::new();
        frame_head(&mut head, MAX_FRAME + 1, DATA, 0, 1);
        assert!(H2Conn::frame_len(&head).is_err());
        let mut short = Vec::new();
        frame_head(&mut short, 3, DATA, 0, 1);
        assert_eq!(H2Conn::frame_len(&short).unwrap(), None);
        short.extend_from_slice(b"abc");
        assert_eq!(H2Conn::frame_len(&short).unwrap(), Some(12));
    }
}
