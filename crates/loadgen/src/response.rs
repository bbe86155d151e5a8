//! A minimal, incremental HTTP/1.x response parser.
//!
//! It finds the end of each response and its status without copying or allocating: the head is
//! scanned once when it is complete, bodies are skipped by length (Content-Length, chunked, or
//! until the connection closes).

use crate::http1_limits::{MAX_CHUNK_LINE, MAX_HEAD};

/// What the parser made of the bytes it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// This many bytes were consumed; the response is not complete. Zero means "need more bytes".
    Partial(usize),
    /// A response ended after `consumed` bytes.
    Complete {
        consumed: usize,
        status: u16,
        close: bool,
    },
}

/// A malformed response; the connection cannot be trusted any more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseError(pub &'static str);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Head,
    Body(u64),
    ChunkSize,
    ChunkData(u64),
    ChunkEnd,
    Trailer,
    UntilClose,
}

/// Parses the responses of one connection, in order.
#[derive(Debug)]
pub struct ResponseParser {
    state: State,
    status: u16,
    close: bool,
    no_body: bool,
}

impl ResponseParser {
    /// `no_body`: the requests are HEAD, so responses carry no body whatever their headers say.
    pub fn new(no_body: bool) -> Self {
        Self {
            state: State::Head,
            status: 0,
            close: false,
            no_body,
        }
    }

    /// The connection ended: a response delimited by the close is complete now.
    pub fn finish_at_eof(&mut self) -> Option<u16> {
        if self.state == State::UntilClose {
            self.state = State::Head;
            Some(self.status)
        } else {
            None
        }
    }

    /// Consumes bytes of `data` (which starts where the previous call stopped consuming).
    pub fn advance(&mut self, data: &[u8]) -> Result<Step, ParseError> {
        let mut at = 0;
        loop {
            let rest = &data[at..];
            match self.state {
                State::Head => {
                    let Some((framing, len)) = parse_head(rest)? else {
                        if rest.len() > MAX_HEAD {
                            return Err(ParseError("response head larger than 64 KiB"));
                        }
                        return Ok(Step::Partial(at));
                    };
                    at += len;
                    if (100..200).contains(&framing.status) && framing.status != 101 {
                        continue; // interim response; the real one follows
                    }
                    self.status = framing.status;
                    self.close = framing.close;
                    let bodyless = self.no_body || framing.status == 204 || framing.status == 304;
                    self.state = if bodyless {
                        return Ok(self.complete(at));
                    } else if framing.chunked {
                        State::ChunkSize
                    } else if let Some(len) = framing.content_length {
                        if len == 0 {
                            return Ok(self.complete(at));
                        }
                        State::Body(len)
                    } else {
                        self.close = true;
                        State::UntilClose
                    };
                }
                State::Body(remaining) | State::ChunkData(remaining) => {
                    let take = remaining.min(rest.len() as u64);
                    at += take as usize;
                    let left = remaining - take;
                    if left > 0 {
                        self.state = match self.state {
                            State::Body(_) => State::Body(left),
                            _ => State::ChunkData(left),
                        };
                        return Ok(Step::Partial(at));
                    }
                    if let State::Body(_) = self.state {
                        return Ok(self.complete(at));
                    }
                    self.state = State::ChunkEnd;
                }
                State::ChunkSize => {
                    let Some(eol) = find_crlf(rest) else {
                        if rest.len() > MAX_CHUNK_LINE {
                            return Err(ParseError("chunk size line too long"));
                        }
                        return Ok(Step::Partial(at));
                    };
                    let line = &rest[..eol];
                    let digits = match memchr::memchr(b';', line) {
                        Some(i) => &line[..i],
                        None => line,
                    };
                    let size = parse_hex(trim(digits)).ok_or(ParseError("invalid chunk size"))?;
                    at += eol + 2;
                    self.state = if size == 0 {
                        State::Trailer
                    } else {
                        State::ChunkData(size)
                    };
                }
                State::ChunkEnd => {
                    if rest.len() < 2 {
                        return Ok(Step::Partial(at));
                    }
                    if &rest[..2] != b"\r\n" {
                        return Err(ParseError("chunk data not followed by CRLF"));
                    }
                    at += 2;
                    self.state = State::ChunkSize;
                }
                State::Trailer => {
                    let Some(eol) = find_crlf(rest) else {
                        if rest.len() > MAX_HEAD {
                            return Err(ParseError("trailer too long"));
                        }
                        return Ok(Step::Partial(at));
                    };
                    at += eol + 2;
                    if eol == 0 {
                        return Ok(self.complete(at));
                    }
                }
                State::UntilClose => return Ok(Step::Partial(data.len())),
            }
        }
    }

    fn complete(&mut self, consumed: usize) -> Step {
        self.state = State::Head;
        Step::Complete {
            consumed,
            status: self.status,
            close: self.close,
        }
    }
}

struct Framing {
    status: u16,
    content_length: Option<u64>,
    chunked: bool,
    close: bool,
}

const LOW_BITS: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Bit 7 is set in each byte of `word` that equals `byte`, exactly so for the lowest such byte
/// (a borrow can only flag bytes above a true match), so `trailing_zeros() / 8` finds the first.
#[inline(always)]
fn byte_mask(word: u64, byte: u8) -> u64 {
    let x = word ^ (LOW_BITS * u64::from(byte));
    x.wrapping_sub(LOW_BITS) & !x & HIGH_BITS
}

/// The first byte of `hay` for which `mask` flags a match, eight bytes at a time.
///
/// Lines of a response head are 10 to 40 bytes: too short for memchr's vector code to pay for
/// its dispatch and set-up (and `memmem::find` built a new searcher on every call, a third of
/// the generator's user-space instructions in a callgrind profile).
#[inline(always)]
fn find_by(hay: &[u8], mask: impl Fn(u64) -> u64) -> Option<usize> {
    let mut i = 0;
    while let Some(word) = hay[i..].first_chunk::<8>() {
        let m = mask(u64::from_le_bytes(*word));
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    let mut tail = [0u8; 8];
    let left = hay.len() - i;
    tail[..left].copy_from_slice(&hay[i..]);
    // The zero padding never matches: every byte searched for is non-zero.
    let m = mask(u64::from_le_bytes(tail));
    (m != 0).then(|| i + (m.trailing_zeros() / 8) as usize)
}

/// The first CRLF of `data`: an LF, checked for the CR before it (a bare LF is part of a line).
#[inline]
fn find_crlf(data: &[u8]) -> Option<usize> {
    let mut from = 0;
    loop {
        let nl = from + find_by(&data[from..], |w| byte_mask(w, b'\n'))?;
        if nl > 0 && data[nl - 1] == b'\r' {
            return Some(nl - 1);
        }
        from = nl + 1;
    }
}

/// Reads a response head from the start of `data` in one pass, line by line: the status line
/// and the three headers that decide framing. `None` while the blank line that ends the head has
/// not arrived; then the framing and the head's length, blank line included.
///
/// A head that is still incomplete is scanned again when more bytes come (heads nearly always
/// arrive whole); a malformed line is reported as soon as it is seen.
fn parse_head(data: &[u8]) -> Result<Option<(Framing, usize)>, ParseError> {
    let Some(line_end) = find_crlf(data) else {
        return Ok(None);
    };
    let status_line = &data[..line_end];
    if status_line.len() < 12 || &status_line[..7] != b"HTTP/1." || status_line[8] != b' ' {
        return Err(ParseError(
            "response does not start with an HTTP/1.x status line",
        ));
    }
    let http10 = match status_line[7] {
        b'0' => true,
        b'1' => false,
        _ => return Err(ParseError("unknown HTTP/1 minor version")),
    };
    let code = &status_line[9..12];
    if !code.iter().all(u8::is_ascii_digit) || !matches!(data[12], b' ' | b'\r') {
        return Err(ParseError("invalid status code"));
    }
    let mut framing = Framing {
        status: code.iter().fold(0u16, |n, d| n * 10 + u16::from(d - b'0')),
        content_length: None,
        chunked: false,
        close: http10,
    };
    let mut at = line_end + 2;
    loop {
        let Some(first) = data.get(at..at + 2) else {
            return Ok(None);
        };
        if first == b"\r\n" {
            break;
        }
        let Some((colon, eol)) = header_line(&data[at..])? else {
            return Ok(None);
        };
        header(
            &data[at..at + colon],
            &data[at + colon + 1..at + eol],
            http10,
            &mut framing,
        )?;
        at += eol + 2;
    }
    if framing.chunked {
        framing.content_length = None;
    }
    Ok(Some((framing, at + 2)))
}

/// Splits the header line at the start of `data`: its colon and its CRLF, found in one pass
/// (the name is searched for its colon, blanks or a line end; then the value for its CRLF).
/// `None` while the line is incomplete.
#[inline]
fn header_line(data: &[u8]) -> Result<Option<(usize, usize)>, ParseError> {
    let mut from = 0;
    let colon = loop {
        let Some(i) = find_by(&data[from..], |w| {
            byte_mask(w, b':') | byte_mask(w, b' ') | byte_mask(w, b'\t') | byte_mask(w, b'\n')
        }) else {
            return Ok(None);
        };
        let i = from + i;
        match data[i] {
            b':' => break i,
            b'\n' if i > 0 && data[i - 1] == b'\r' => {
                return Err(ParseError("header line without a colon"));
            }
            b'\n' => from = i + 1, // a bare LF is part of the name
            _ => return Err(ParseError("invalid header name")),
        }
    };
    if colon == 0 {
        return Err(ParseError("invalid header name"));
    }
    Ok(find_crlf(&data[colon + 1..]).map(|eol| (colon, colon + 1 + eol)))
}

/// One header: only `Content-Length`, `Transfer-Encoding` and `Connection` matter, and only
/// names of their lengths are compared.
#[inline]
fn header(
    name: &[u8],
    value: &[u8],
    http10: bool,
    framing: &mut Framing,
) -> Result<(), ParseError> {
    match name.len() {
        14 if name.eq_ignore_ascii_case(b"content-length") => {
            let len = parse_decimal(trim(value)).ok_or(ParseError("invalid Content-Length"))?;
            if framing.content_length.is_some_and(|l| l != len) {
                return Err(ParseError("conflicting Content-Length headers"));
            }
            framing.content_length = Some(len);
        }
        17 if name.eq_ignore_ascii_case(b"transfer-encoding") => {
            let value = trim(value);
            framing.chunked =
                value.len() >= 7 && value[value.len() - 7..].eq_ignore_ascii_case(b"chunked");
            if !framing.chunked {
                framing.close = true; // an unknown coding ends with the connection
            }
        }
        10 if name.eq_ignore_ascii_case(b"connection") => {
            for token in trim(value).split(|b| *b == b',') {
                let token = trim(token);
                if token.eq_ignore_ascii_case(b"close") {
                    framing.close = true;
                } else if token.eq_ignore_ascii_case(b"keep-alive") && http10 {
                    framing.close = false;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = s {
        s = rest;
    }
    s
}

/// The most digits a Content-Length may have: 18 decimal digits always fit a `u64`, so the
/// fold below cannot overflow (and no body is anywhere near 10^18 bytes).
const MAX_DECIMAL_DIGITS: usize = 18;
/// The most digits a chunk size may have: 15 hex digits always fit a `u64` (60 bits).
const MAX_HEX_DIGITS: usize = 15;

fn parse_decimal(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > MAX_DECIMAL_DIGITS || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0')))
}

fn parse_hex(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > MAX_HEX_DIGITS {
        return None;
    }
    s.iter().try_fold(0u64, |n, d| {
        Some(n * 16 + u64::from((*d as char).to_digit(16)?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `wire` in pieces of `step` bytes, keeping unconsumed bytes as a connection buffer
    /// would, and returns the completed statuses.
    fn feed(wire: &[u8], step: usize) -> Result<Vec<u16>, ParseError> {
        let mut parser = ResponseParser::new(false);
        let mut buf = Vec::new();
        let mut done = Vec::new();
        for piece in wire.chunks(step) {
            buf.extend_from_slice(piece);
            let mut start = 0;
            while start < buf.len() {
                match parser.advance(&buf[start..])? {
                    Step::Partial(0) => break,
                    Step::Partial(n) => start += n,
                    Step::Complete {
                        consumed, status, ..
                    } => {
                        start += consumed;
                        done.push(status);
                    }
                }
            }
            buf.drain(..start);
        }
        if let Some(status) = parser.finish_at_eof() {
            done.push(status);
        }
        Ok(done)
    }

    const PIPELINED: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 404 Not Found\r\ncontent-length:0\r\n\r\nHTTP/1.1 500 X\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: y\r\n\r\n";

    #[test]
    fn parses_pipelined_responses_at_any_split() {
        for step in 1..PIPELINED.len() {
            assert_eq!(
                feed(PIPELINED, step).unwrap(),
                vec![200, 404, 500],
                "step {step}"
            );
        }
    }

    #[test]
    fn body_until_close_completes_at_eof() {
        assert_eq!(
            feed(b"HTTP/1.0 200 OK\r\n\r\nsome body", 4).unwrap(),
            vec![200]
        );
    }

    #[test]
    fn skips_interim_responses_and_bodyless_statuses() {
        let wire = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx";
        assert_eq!(feed(wire, 3).unwrap(), vec![204, 200]);
    }

    #[test]
    fn reports_connection_close() {
        let mut p = ResponseParser::new(false);
        let step = p
            .advance(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
            .unwrap();
        assert!(matches!(step, Step::Complete { close: true, .. }));
        let step = p
            .advance(b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n")
            .unwrap();
        assert!(matches!(step, Step::Complete { close: false, .. }));
    }

    #[test]
    fn rejects_malformed_responses() {
        for bad in [
            &b"HTTX/1.1 200 OK\r\n\r\n"[..],
            b"HTTP/1.1 2x0 OK\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
        ] {
            assert!(
                feed(bad, 1000).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn rejects_endless_heads() {
        let mut p = ResponseParser::new(false);
        let junk = vec![b'a'; MAX_HEAD + 10];
        assert!(p.advance(&junk).is_err());
    }

    #[test]
    fn only_crlf_ends_lines_and_heads() {
        // A bare LF is part of a line; LF LF is not the end of a head.
        let mut p = ResponseParser::new(false);
        assert_eq!(
            p.advance(b"HTTP/1.1 200 OK\n\nContent-Length: 0").unwrap(),
            Step::Partial(0)
        );
        let wire =
            b"HTTP/1.1 200 OK\r\nX-A: a\nb\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 201 OK\r\n\r\n";
        assert_eq!(feed(wire, 5).unwrap(), vec![200, 201]);
    }

    #[test]
    fn header_names_are_matched_whole_and_without_case() {
        let wire = b"HTTP/1.1 200 OK\r\nContent-Lengthx: 9\r\nX-Content-Length: 9\r\ncOnTeNt-LeNgTh: 1\r\n\r\nx";
        assert_eq!(feed(wire, 7).unwrap(), vec![200]);
        let mut p = ResponseParser::new(false);
        assert!(
            p.advance(b"HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n")
                .is_err()
        );
        let mut p = ResponseParser::new(false);
        assert!(p.advance(b"HTTP/1.1 200 OK\r\n: 1\r\n\r\n").is_err());
    }

    #[test]
    fn word_search_finds_the_first_match_at_every_position_and_length() {
        for len in 0..40 {
            for at in 0..len {
                let mut hay = vec![b'a'; len];
                hay[at] = b'\n';
                if at + 3 < len {
                    hay[at + 3] = b'\n';
                }
                assert_eq!(
                    find_by(&hay, |w| byte_mask(w, b'\n')),
                    Some(at),
                    "{len} {at}"
                );
            }
            let hay = vec![0x8a_u8; len]; // high bytes near the needle must not match
            assert_eq!(find_by(&hay, |w| byte_mask(w, b'\n')), None, "{len}");
        }
    }

    #[test]
    fn head_requests_have_no_body() {
        let mut p = ResponseParser::new(true);
        let step = p
            .advance(b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n")
            .unwrap();
        assert!(matches!(
            step,
            Step::Complete {
                consumed: 39,
                status: 200,
                ..
            }
        ));
    }
}
