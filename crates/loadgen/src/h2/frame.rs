//! HTTP/2 frames (RFC 9113 §4, §6): the constants, the frame-header writer and the few readers
//! both of restbench's HTTP/2 clients share, the load engine's `H2Conn` and the
//! verifier's blocking h2c exchange in the harness.

/// The client connection preface (RFC 9113 §3.4).
pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// Our receive window per stream.
pub const STREAM_WINDOW: u32 = 1 << 24;
/// Our receive window for the connection.
pub const CONNECTION_WINDOW: u32 = 1 << 30;
/// The largest frame we accept (the protocol's default; we do not raise it).
pub const MAX_FRAME: usize = 16_384;
/// The flow-control window of every stream and connection until SETTINGS or WINDOW_UPDATE
/// change it (RFC 9113 §6.9.2).
pub const DEFAULT_WINDOW: i64 = 65_535;
/// Stream ids, window increments and GOAWAY's last id are 31 bits; the top bit is reserved.
pub const MAX_STREAM_ID: u32 = (1 << 31) - 1;
/// The bytes of a frame header: length (3), type, flags, stream id (4).
pub const HEAD_LEN: usize = 9;

/// Frame types.
pub const DATA: u8 = 0x0;
pub const HEADERS: u8 = 0x1;
pub const RST_STREAM: u8 = 0x3;
pub const SETTINGS: u8 = 0x4;
pub const PUSH_PROMISE: u8 = 0x5;
pub const PING: u8 = 0x6;
pub const GOAWAY: u8 = 0x7;
pub const WINDOW_UPDATE: u8 = 0x8;
pub const CONTINUATION: u8 = 0x9;

/// Frame flags.
pub const END_STREAM: u8 = 0x1;
pub const ACK: u8 = 0x1;
pub const END_HEADERS: u8 = 0x4;
pub const PADDED: u8 = 0x8;
pub const PRIORITY: u8 = 0x20;

/// SETTINGS identifiers (RFC 9113 §6.5.2).
pub const SETTINGS_HEADER_TABLE_SIZE: u16 = 0x1;
pub const SETTINGS_ENABLE_PUSH: u16 = 0x2;
pub const SETTINGS_MAX_CONCURRENT_STREAMS: u16 = 0x3;
pub const SETTINGS_INITIAL_WINDOW_SIZE: u16 = 0x4;
pub const SETTINGS_MAX_FRAME_SIZE: u16 = 0x5;

/// Writes a frame header; returns where its stream id starts.
pub fn write_head(out: &mut Vec<u8>, len: usize, kind: u8, flags: u8, stream: u32) -> usize {
    out.extend_from_slice(&(len as u32).to_be_bytes()[1..]);
    out.push(kind);
    out.push(flags);
    let at = out.len();
    out.extend_from_slice(&stream.to_be_bytes());
    at
}

/// The payload length a frame header announces (`head` holds at least its first 3 bytes).
#[inline]
pub fn payload_len(head: &[u8]) -> usize {
    u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize
}

/// A 31-bit field (stream id, window increment, last stream id) from the first 4 bytes of
/// `b`, the reserved bit cleared.
#[inline]
pub fn u31(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]]) & MAX_STREAM_ID
}

/// The data length of a DATA payload without its padding; `None` when the padding does not fit.
pub fn unpadded_len(flags: u8, payload: &[u8]) -> Option<usize> {
    if flags & PADDED == 0 {
        return Some(payload.len());
    }
    let pad = *payload.first()? as usize;
    payload.len().checked_sub(1 + pad)
}

/// The header-block fragment of a HEADERS payload, without padding and priority; `None` when
/// they do not fit.
pub fn header_fragment(flags: u8, payload: &[u8]) -> Option<&[u8]> {
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
