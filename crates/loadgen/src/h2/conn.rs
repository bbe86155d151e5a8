//! One connection's HTTP/2 state inside the mio worker: streams in flight, flow control, and
//! what each frame from the server means for the worker ([`Event`]).

use std::collections::VecDeque;

use super::encode::{DEFAULT_HEADER_TABLE_SIZE, H2Request};
use super::frame::{
    ACK, CONNECTION_WINDOW, CONTINUATION, DATA, DEFAULT_WINDOW, END_HEADERS, END_STREAM, GOAWAY,
    HEAD_LEN, HEADERS, MAX_FRAME, MAX_STREAM_ID, PING, PREFACE, PUSH_PROMISE, RST_STREAM, SETTINGS,
    SETTINGS_HEADER_TABLE_SIZE, SETTINGS_INITIAL_WINDOW_SIZE, SETTINGS_MAX_CONCURRENT_STREAMS,
    STREAM_WINDOW, WINDOW_UPDATE, header_fragment, payload_len, u31, unpadded_len, write_head,
};
use super::status::{Huffman, block_status};

/// Room in a connection's write queue for control frames (SETTINGS and PING acknowledgements,
/// WINDOW_UPDATE) beyond its requests: about 3,800 PING ACKs. A server that makes us owe more
/// than this while it does not read what we write is flooding us (RFC 9113 §10.5): the
/// connection ends as a protocol error instead of the queue growing without bound.
pub const CONTROL_QUEUE_BYTES: usize = 64 * 1024;

/// Room in the write queue beyond the preface for our opening frames (SETTINGS with three
/// settings, 27 bytes, and the connection's WINDOW_UPDATE, 13), rounded up.
const OPENING_FRAMES_BYTES: usize = 64;
/// The longest header block (HEADERS and its CONTINUATIONs) we collect before scanning it: far
/// above any real response head, and a bound on what a server can make us buffer.
const MAX_HEADER_BLOCK: usize = 256 * 1024;

/// Why a control frame could not be queued: the write queue is full.
const FLOOD: &str = "the server sent more frames needing an answer than it read (a flood)";

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
    /// The server made us owe more control frames than the write queue holds while not reading
    /// them (RFC 9113 §10.5): the connection cannot go on, and the server is to blame.
    Flood(&'static str),
}

/// One connection's HTTP/2 state.
pub struct H2Conn {
    /// Bytes to write: the preface, requests and control frames (SETTINGS ACK, PING ACK,
    /// WINDOW_UPDATE), appended in order; what was written is cut from the front, so its length
    /// is what is still owed, never more than `out_limit`.
    pub out: Vec<u8>,
    /// The write queue's bound: the requests that may be in flight plus
    /// [`CONTROL_QUEUE_BYTES`]; a control frame beyond it is a [`Event::Flood`].
    out_limit: usize,
    pub streams: VecDeque<Stream>,
    next_id: u32,
    /// The server's HPACK table size for what we send (its SETTINGS_HEADER_TABLE_SIZE).
    peer_table_size: usize,
    /// The first request on this connection went out with its fields added to that table.
    table_primed: bool,
    /// Built on the first Huffman-coded `:status` (statuses outside the static table, rare).
    huffman: Huffman,
    /// A header block split over CONTINUATION frames: (stream, END_STREAM); its bytes so far
    /// are in `block`.
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
    /// `requests_room`: the bytes the requests in flight on one connection may take in the
    /// write queue (streams × the largest encoding).
    pub fn new(requests_room: usize) -> Self {
        Self {
            out: Vec::with_capacity(4096),
            out_limit: PREFACE.len() + OPENING_FRAMES_BYTES + requests_room + CONTROL_QUEUE_BYTES,
            streams: VecDeque::new(),
            next_id: 1,
            peer_table_size: DEFAULT_HEADER_TABLE_SIZE,
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
        let limit = self.out_limit;
        *self = Self {
            out: std::mem::take(&mut self.out),
            streams: std::mem::take(&mut self.streams),
            block: std::mem::take(&mut self.block),
            ..Self::new(0)
        };
        self.out_limit = limit;
        self.out.clear();
        self.streams.clear();
        self.block.clear();
        self.out.extend_from_slice(PREFACE);
        write_head(&mut self.out, 18, SETTINGS, 0, 0);
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
        write_head(&mut self.out, 4, WINDOW_UPDATE, 0, stream);
        self.out.extend_from_slice(&increment.to_be_bytes());
    }

    /// Whether a control frame of `len` bytes still fits in the write queue.
    #[inline]
    fn has_room(&self, len: usize) -> bool {
        self.out.len() + len <= self.out_limit
    }

    fn position(&self, id: u32) -> Option<usize> {
        // Answers come mostly in order: the oldest streams are looked at first.
        self.streams.iter().position(|s| s.id == id)
    }

    /// The length of the next whole frame at the start of `data`, if it is all there.
    #[inline]
    pub fn frame_len(data: &[u8]) -> Result<Option<usize>, &'static str> {
        if data.len() < HEAD_LEN {
            return Ok(None);
        }
        let len = payload_len(data);
        if len > MAX_FRAME {
            return Err("a frame larger than the 16384 bytes we allow");
        }
        Ok((data.len() >= HEAD_LEN + len).then_some(HEAD_LEN + len))
    }

    /// Handles one whole frame (header included).
    pub fn on_frame(&mut self, frame: &[u8]) -> Event {
        let kind = frame[3];
        let flags = frame[4];
        let sid = u31(&frame[5..HEAD_LEN]);
        let payload = &frame[HEAD_LEN..];
        if self.pending_block.is_some() && kind != CONTINUATION {
            return Event::Error("a frame inside a header block (CONTINUATION expected)");
        }
        match kind {
            DATA => self.on_data(sid, flags, payload),
            HEADERS => self.on_headers(sid, flags, payload),
            CONTINUATION => self.on_continuation(sid, flags, payload),
            RST_STREAM => match self.position(sid) {
                Some(pos) => Event::Reset { pos },
                None => Event::None,
            },
            SETTINGS => self.on_settings(flags, payload),
            PING => {
                if flags & ACK == 0 && payload.len() == 8 {
                    if !self.has_room(HEAD_LEN + 8) {
                        return Event::Flood(FLOOD);
                    }
                    write_head(&mut self.out, 8, PING, ACK, 0);
                    self.out.extend_from_slice(payload);
                }
                Event::None
            }
            GOAWAY => {
                if payload.len() < 8 {
                    return Event::Error("a GOAWAY frame of bad length");
                }
                self.draining = true;
                Event::GoAway {
                    last_id: u31(payload),
                }
            }
            WINDOW_UPDATE => {
                if sid == 0 && payload.len() == 4 {
                    self.send_window += i64::from(u31(payload));
                }
                Event::None
            }
            PUSH_PROMISE => Event::Error("a PUSH_PROMISE though push is disabled"),
            _ => Event::None, // PRIORITY and unknown frame types are ignored
        }
    }

    /// An answer's body bytes: counted against both receive windows, topped up at half.
    #[inline]
    fn on_data(&mut self, sid: u32, flags: u8, payload: &[u8]) -> Event {
        if unpadded_len(flags, payload).is_none() {
            return Event::Error("bad DATA padding");
        }
        // Two WINDOW_UPDATEs at most; a server that reads nothing cannot make us queue more.
        if !self.has_room(2 * (HEAD_LEN + 4)) {
            return Event::Flood(FLOOD);
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

    /// A header block whole in one frame, or its first fragment when CONTINUATION follows.
    #[inline]
    fn on_headers(&mut self, sid: u32, flags: u8, payload: &[u8]) -> Event {
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
        match self.decode(block) {
            Ok(status) => self.headers_done(sid, status, end_stream),
            Err(e) => Event::Error(e),
        }
    }

    /// The next fragment of a header block; the block is scanned once it ends.
    fn on_continuation(&mut self, sid: u32, flags: u8, payload: &[u8]) -> Event {
        let Some((pending, end_stream)) = self.pending_block else {
            return Event::Error("CONTINUATION without a header block");
        };
        if pending != sid {
            return Event::Error("CONTINUATION on another stream");
        }
        self.block.extend_from_slice(payload);
        if self.block.len() > MAX_HEADER_BLOCK {
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

    /// The server's SETTINGS: its table size, stream limit and initial window; acked at once.
    fn on_settings(&mut self, flags: u8, payload: &[u8]) -> Event {
        if flags & ACK != 0 {
            return Event::None;
        }
        if !payload.len().is_multiple_of(6) {
            return Event::Error("a SETTINGS frame of bad length");
        }
        if !self.has_room(HEAD_LEN) {
            return Event::Flood(FLOOD);
        }
        for s in payload.chunks_exact(6) {
            let id = u16::from_be_bytes([s[0], s[1]]);
            let v = u32::from_be_bytes([s[2], s[3], s[4], s[5]]);
            match id {
                SETTINGS_HEADER_TABLE_SIZE => self.peer_table_size = v as usize,
                SETTINGS_MAX_CONCURRENT_STREAMS => self.peer_max_streams = v as usize,
                SETTINGS_INITIAL_WINDOW_SIZE => self.peer_window = i64::from(v),
                _ => {}
            }
        }
        write_head(&mut self.out, 0, SETTINGS, ACK, 0);
        self.settings_seen = true;
        Event::None
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

#[cfg(test)]
mod tests {
    use super::super::encode::tests::{get_with_headers, spec};
    use super::*;

    #[test]
    fn the_servers_table_is_primed_only_by_fields_it_could_add() {
        let r = get_with_headers();
        let mut c = H2Conn::new(1 << 20);
        c.settings_seen = true;
        c.push_requests(2, &r);
        assert_eq!(c.out.len(), r.first.bytes.len() + r.indexed.bytes.len());
        // Literals while the server's table has no room, then the table grows: the fields are
        // added before anything refers to them.
        let mut c = H2Conn::new(1 << 20);
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
        let mut c = H2Conn::new(1 << 20);
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
        write_head(&mut v, payload.len(), kind, flags, sid);
        v.extend_from_slice(payload);
        v
    }

    #[test]
    fn responses_complete_on_end_stream_and_settings_are_acked() {
        let r = H2Request::encode(&spec("http://h/")).unwrap();
        let mut c = H2Conn::new(1 << 20);
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
        let mut c = H2Conn::new(1 << 20);
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
    fn acknowledgements_a_server_does_not_read_are_bounded() {
        for (flood, each) in [
            (frame(PING, 0, 0, b"12345678"), HEAD_LEN + 8),
            (frame(SETTINGS, 0, 0, &[]), HEAD_LEN),
        ] {
            let mut c = H2Conn::new(0);
            c.start();
            let mut owed = 0;
            let ended = (0..100_000).find_map(|_| match c.on_frame(&flood) {
                Event::None => {
                    owed += each;
                    None
                }
                other => Some(other),
            });
            assert!(matches!(ended, Some(Event::Flood(_))), "{ended:?}");
            assert!(c.out.len() <= c.out_limit, "{} queued", c.out.len());
            assert!(owed >= CONTROL_QUEUE_BYTES - 2 * each, "{owed} acked first");
        }
        // Once written (the queue drained), acknowledgements are owed again.
        let mut c = H2Conn::new(0);
        c.start();
        c.out.clear();
        for _ in 0..10 * CONTROL_QUEUE_BYTES / (HEAD_LEN + 8) {
            assert_eq!(c.on_frame(&frame(PING, 0, 0, b"12345678")), Event::None);
            c.out.clear();
        }
    }

    #[test]
    fn oversized_frames_are_refused() {
        let mut head = Vec::new();
        write_head(&mut head, MAX_FRAME + 1, DATA, 0, 1);
        assert!(H2Conn::frame_len(&head).is_err());
        let mut short = Vec::new();
        write_head(&mut short, 3, DATA, 0, 1);
        assert_eq!(H2Conn::frame_len(&short).unwrap(), None);
        short.extend_from_slice(b"abc");
        assert_eq!(H2Conn::frame_len(&short).unwrap(), Some(12));
    }
}
