//! The HPACK request encoder (RFC 7541): a load run's request as HTTP/2 frames, encoded once.
//!
//! `H2Request` keeps three encodings of one header block, as a browser's or h2load's encoder
//! would send it: with incremental indexing for a connection's first request, indexed (a byte
//! per field) for every later one, and literals without indexing when the server's table has no
//! room. Strings are never Huffman-coded. The literal writers are public for the verifier's h2c
//! client, which sends one request per connection as literals without indexing.

use super::frame::{DATA, END_HEADERS, END_STREAM, HEADERS, MAX_FRAME, write_head};
use crate::LoadSpec;

/// One request as frames, encoded once per run; the stream ids are patched per use.
///
/// Three encodings of one header block, as a browser's or h2load's encoder would send it: the
/// first request on a connection adds its literal fields to the server's HPACK dynamic table,
/// every later one refers to them by index (a byte each), so the server decodes what a real
/// client makes it decode; literals without indexing when its table is too small for them.
#[derive(Debug)]
pub(crate) struct H2Request {
    pub(super) first: Encoded,
    pub(super) indexed: Encoded,
    pub(super) literal: Encoded,
    /// The dynamic-table bytes the first request's fields take (RFC 7541 §4.1).
    table_bytes: usize,
    pub body_len: i64,
}

#[derive(Debug)]
pub(super) struct Encoded {
    pub(super) bytes: Vec<u8>,
    /// Where each frame's 4-byte stream id starts.
    pub(super) id_at: Vec<usize>,
}

/// The HPACK dynamic table's size until the server's SETTINGS says otherwise, and the most we use
/// of a larger one: an encoder must signal a larger size before using it (RFC 7541 §4.2), and we
/// never do.
pub(super) const DEFAULT_HEADER_TABLE_SIZE: usize = 4096;
/// What a dynamic-table entry costs beyond its name and value (RFC 7541 §4.1).
const HPACK_ENTRY_OVERHEAD: usize = 32;
/// The first dynamic-table index: the static table has 61 entries (RFC 7541 Appendix A).
const FIRST_DYNAMIC_INDEX: usize = 62;

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
pub(crate) struct EncodeError(pub String);

impl H2Request {
    pub(crate) fn encode(spec: &LoadSpec) -> Result<Self, EncodeError> {
        let literal = Self::encode_as(spec, Fields::Literal)?;
        let first = Self::encode_as(spec, Fields::Indexing)?;
        let indexed = Self::encode_as(spec, Fields::Indexed)?;
        let table_bytes = Self::literal_fields(spec)
            .iter()
            .map(|(name, value)| name.len() + value.len() + HPACK_ENTRY_OVERHEAD)
            .sum();
        Ok(Self {
            first,
            indexed,
            literal,
            table_bytes,
            body_len: spec.body.len() as i64,
        })
    }

    /// A request sent once (a script's): literals without indexing in every encoding, so that no
    /// later request refers to a table entry another request's fields made.
    pub(crate) fn encode_literal(spec: &LoadSpec) -> Result<Self, EncodeError> {
        Ok(Self {
            first: Self::encode_as(spec, Fields::Literal)?,
            indexed: Self::encode_as(spec, Fields::Literal)?,
            literal: Self::encode_as(spec, Fields::Literal)?,
            table_bytes: 0,
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
                // The first request added the fields in order: the newest is the first dynamic
                // index.
                Fields::Indexed => integer(
                    &mut block,
                    0x80,
                    7,
                    FIRST_DYNAMIC_INDEX + fields.len() - 1 - k,
                ),
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
        id_at.push(write_head(&mut bytes, block.len(), HEADERS, flags, 0));
        bytes.extend_from_slice(&block);
        let mut chunks = spec.body.chunks(MAX_FRAME).peekable();
        while let Some(chunk) = chunks.next() {
            let flags = if chunks.peek().is_none() {
                END_STREAM
            } else {
                0
            };
            id_at.push(write_head(&mut bytes, chunk.len(), DATA, flags, 0));
            bytes.extend_from_slice(chunk);
        }
        Ok(Encoded { bytes, id_at })
    }

    /// The most bytes one stream of this request takes in the write queue (its largest encoding).
    pub fn max_len(&self) -> usize {
        [&self.first, &self.indexed, &self.literal]
            .iter()
            .map(|e| e.bytes.len())
            .max()
            .unwrap_or(0)
    }

    /// The encoding for a connection's next request, given the server's table size and
    /// whether an earlier request on it filled the table.
    pub(super) fn encoding(&self, peer_table_size: usize, primed: bool) -> &Encoded {
        // A larger setting than the default does not make room: we never signal it.
        if self.table_bytes > peer_table_size.min(DEFAULT_HEADER_TABLE_SIZE) {
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
pub fn not_sent_over_h2(name: &str, value: &str) -> bool {
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

/// A literal header field without indexing, its name from the static table (`index`, RFC 7541
/// Appendix A).
pub fn literal_with_static_name(out: &mut Vec<u8>, index: usize, value: &[u8]) {
    integer(out, 0x00, 4, index);
    string(out, value);
}

/// A literal header field without indexing, its name spelled out.
pub fn literal_with_new_name(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.push(0x00);
    string(out, name);
    string(out, value);
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::{HttpVersion, Target};

    pub(in crate::h2) fn spec(url: &str) -> LoadSpec {
        let mut s = LoadSpec::get(Target::parse(url).unwrap());
        s.http_version = HttpVersion::Http2;
        s
    }

    /// The request of [`a_get_is_one_headers_frame_that_decodes_back`]: a path, a header HTTP/2
    /// does not send, one it sends.
    pub(in crate::h2) fn get_with_headers() -> H2Request {
        let mut s = spec("http://127.0.0.1:8080/api?x=1");
        s.headers.push(("Connection".into(), "close".into()));
        s.headers.push(("X-Test".into(), "yes".into()));
        H2Request::encode(&s).unwrap()
    }

    #[test]
    fn a_get_is_one_headers_frame_that_decodes_back() {
        let r = get_with_headers();
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
    }
}
