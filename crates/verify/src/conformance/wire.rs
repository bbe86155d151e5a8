//! The raw socket under every case: a fresh connection with `TCP_NODELAY` and bounded waits, the
//! bytes written exactly as given, and answers read from a buffer that keeps what follows them
//! (a pipelined second answer, or the body bytes a `HEAD` must not have).

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// How long a case waits for an answer, or for the server to close, before calling it a hang.
pub const WAIT: Duration = Duration::from_secs(2);
/// The most bytes of answer a case keeps: the contract's answers are a few KiB.
const MAX_ANSWER: usize = 1 << 20;

/// One answer, as read off the wire.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// `HTTP/1.1`, `HTTP/1.0` or whatever the status line said.
    pub version: String,
    pub status: u16,
    /// Names lowercased, in order.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// True when a `Connection` header lists `token`.
    pub fn connection_has(&self, token: &str) -> bool {
        self.headers.iter().any(|(n, v)| {
            n == "connection" && v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token))
        })
    }

    /// `200, 13 bytes`: what a `seen` line says of an answer.
    pub fn brief(&self) -> String {
        format!("{}, {} bytes", self.status, self.body.len())
    }
}

/// Why no answer came.
#[derive(Debug, Clone, PartialEq)]
pub enum WireError {
    Connect(String),
    /// Nothing (or not enough) within the wait: a hang.
    Timeout {
        had: usize,
    },
    /// The server closed before a whole answer.
    Closed {
        had: usize,
    },
    Malformed(String),
    Io(String),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Connect(e) => write!(f, "cannot connect: {e}"),
            Self::Timeout { had: 0 } => write!(f, "no answer within {} s", WAIT.as_secs()),
            Self::Timeout { had } => write!(
                f,
                "an incomplete answer ({had} bytes) within {} s",
                WAIT.as_secs()
            ),
            Self::Closed { had: 0 } => f.write_str("closed without an answer"),
            Self::Closed { had } => write!(f, "closed after {had} bytes of an answer"),
            Self::Malformed(e) => write!(f, "not an HTTP answer: {e}"),
            Self::Io(e) => write!(f, "{e}"),
        }
    }
}

impl WireError {}

/// What the server did after an answer, within a bound.
#[derive(Debug, Clone, PartialEq)]
pub enum After {
    Closed,
    Open,
    /// Bytes came that no request asked for.
    Extra(usize),
}

/// A connection of one case.
pub struct Wire {
    stream: TcpStream,
    /// Read and not yet taken by an answer.
    buf: Vec<u8>,
    eof: bool,
}

impl Wire {
    pub fn connect(addr: SocketAddr) -> Result<Self, WireError> {
        let stream = TcpStream::connect_timeout(&addr, WAIT)
            .map_err(|e| WireError::Connect(e.to_string()))?;
        let _ = stream.set_nodelay(true);
        let _ = stream.set_write_timeout(Some(WAIT));
        Ok(Self {
            stream,
            buf: Vec::new(),
            eof: false,
        })
    }

    pub fn send(&mut self, bytes: &[u8]) -> Result<(), WireError> {
        self.stream
            .write_all(bytes)
            .map_err(|e| WireError::Io(format!("write: {e}")))
    }

    /// `bytes` in pieces of `piece` bytes with `pause` between them.
    pub fn send_in_pieces(
        &mut self,
        bytes: &[u8],
        piece: usize,
        pause: Duration,
    ) -> Result<(), WireError> {
        for (i, chunk) in bytes.chunks(piece.max(1)).enumerate() {
            if i > 0 && !pause.is_zero() {
                std::thread::sleep(pause);
            }
            self.send(chunk)?;
        }
        Ok(())
    }

    /// Reads until one answer is whole (`head_only` for an answer to `HEAD`: no body). Interim
    /// 1xx answers are skipped.
    pub fn answer(&mut self, head_only: bool) -> Result<Answer, WireError> {
        let deadline = Instant::now() + WAIT;
        loop {
            match parse(&self.buf, head_only, self.eof)? {
                Some((answer, used)) if (100..200).contains(&answer.status) => {
                    self.buf.drain(..used);
                }
                Some((answer, used)) => {
                    self.buf.drain(..used);
                    return Ok(answer);
                }
                None if self.eof => {
                    return Err(WireError::Closed {
                        had: self.buf.len(),
                    });
                }
                None => self.fill(deadline)?,
            }
        }
    }

    /// An interim `100 Continue`, a final answer, or neither within `wait`.
    pub fn interim_or_final(&mut self, wait: Duration) -> Result<Option<Answer>, WireError> {
        let deadline = Instant::now() + wait;
        loop {
            if let Some((answer, used)) = parse(&self.buf, false, self.eof)? {
                self.buf.drain(..used);
                return Ok(Some(answer));
            }
            if self.eof {
                return Err(WireError::Closed {
                    had: self.buf.len(),
                });
            }
            match self.fill(deadline) {
                Ok(()) => {}
                Err(WireError::Timeout { .. }) => return Ok(None),
                Err(e) => return Err(e),
            }
        }
    }

    /// Waits up to `wait` for the server to close; bytes that come first are extra.
    pub fn after(&mut self, wait: Duration) -> After {
        let deadline = Instant::now() + wait;
        while self.buf.is_empty() && !self.eof {
            if self.fill(deadline).is_err() {
                break;
            }
        }
        if !self.buf.is_empty() {
            After::Extra(self.buf.len())
        } else if self.eof {
            After::Closed
        } else {
            After::Open
        }
    }

    /// One read into the buffer, within `deadline`.
    fn fill(&mut self, deadline: Instant) -> Result<(), WireError> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(WireError::Timeout {
                had: self.buf.len(),
            });
        }
        let _ = self.stream.set_read_timeout(Some(left));
        let mut chunk = [0u8; 16 * 1024];
        match self.stream.read(&mut chunk) {
            Ok(0) => {
                self.eof = true;
                Ok(())
            }
            Ok(n) if self.buf.len() + n > MAX_ANSWER => {
                Err(WireError::Malformed(format!("over {MAX_ANSWER} bytes")))
            }
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(())
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Err(WireError::Timeout {
                    had: self.buf.len(),
                })
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => Ok(()),
            // A reset counts as the server closing: what came before it is what was seen.
            Err(e) if e.kind() == ErrorKind::ConnectionReset => {
                self.eof = true;
                Ok(())
            }
            Err(e) => Err(WireError::Io(format!("read: {e}"))),
        }
    }
}

/// One answer from the front of `buf` and the bytes it took, or `None` while it is incomplete.
/// `eof`: the server closed, so an answer framed by the close is complete.
pub fn parse(buf: &[u8], head_only: bool, eof: bool) -> Result<Option<(Answer, usize)>, WireError> {
    let Some(head_end) = find(buf, b"\r\n\r\n") else {
        if buf.len() > 64 * 1024 {
            return Err(WireError::Malformed("a head over 64 KiB".into()));
        }
        return Ok(None);
    };
    let head = std::str::from_utf8(&buf[..head_end])
        .map_err(|_| WireError::Malformed("a head that is not text".into()))?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or("").to_string();
    let status = parts
        .next()
        .and_then(|s| s.parse::<u16>().ok())
        .filter(|_| version.starts_with("HTTP/"))
        .ok_or_else(|| WireError::Malformed(format!("status line {status_line:?}")))?;
    let mut headers = Vec::new();
    for line in lines {
        let (n, v) = line
            .split_once(':')
            .ok_or_else(|| WireError::Malformed(format!("header line {line:?}")))?;
        headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    let mut answer = Answer {
        version,
        status,
        headers,
        body: Vec::new(),
    };
    let start = head_end + 4;
    let bodyless = head_only || (100..200).contains(&status) || status == 204 || status == 304;
    if bodyless {
        return Ok(Some((answer, start)));
    }
    let chunked = answer
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        return Ok(dechunk(&buf[start..])?.map(|(body, used)| {
            answer.body = body;
            (answer, start + used)
        }));
    }
    if let Some(len) = answer.header("content-length") {
        let len: usize = len
            .parse()
            .map_err(|_| WireError::Malformed(format!("content-length {len:?}")))?;
        if buf.len() < start + len {
            return Ok(None);
        }
        answer.body = buf[start..start + len].to_vec();
        return Ok(Some((answer, start + len)));
    }
    if !eof {
        return Ok(None);
    }
    answer.body = buf[start..].to_vec();
    Ok(Some((answer, buf.len())))
}

/// A chunked body and the bytes it took (trailers skipped), or `None` while incomplete.
fn dechunk(buf: &[u8]) -> Result<Option<(Vec<u8>, usize)>, WireError> {
    let mut body = Vec::new();
    let mut at = 0;
    loop {
        let Some(line_end) = find(&buf[at..], b"\r\n") else {
            return Ok(None);
        };
        let line = std::str::from_utf8(&buf[at..at + line_end]).unwrap_or("");
        let size_text = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| WireError::Malformed(format!("chunk size {line:?}")))?;
        at += line_end + 2;
        if size == 0 {
            // Trailers, then an empty line.
            loop {
                let Some(end) = find(&buf[at..], b"\r\n") else {
                    return Ok(None);
                };
                at += end + 2;
                if end == 0 {
                    return Ok(Some((body, at)));
                }
            }
        }
        if buf.len() < at + size + 2 {
            return Ok(None);
        }
        body.extend_from_slice(&buf[at..at + size]);
        at += size + 2;
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_framed_by_length_chunks_or_the_close() {
        let two = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiHTTP/1.1 404 X\r\ncontent-length: 0\r\n\r\n";
        let (a, used) = parse(two, false, false).unwrap().unwrap();
        assert_eq!((a.status, a.body.as_slice()), (200, &b"hi"[..]));
        let (b, _) = parse(&two[used..], false, false).unwrap().unwrap();
        assert_eq!(b.status, 404);
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n1;x\r\nc\r\n0\r\n\r\n";
        let (c, used) = parse(chunked, false, false).unwrap().unwrap();
        assert_eq!((c.body.as_slice(), used), (&b"abc"[..], chunked.len()));
        assert_eq!(
            parse(&chunked[..chunked.len() - 2], false, false).unwrap(),
            None
        );
        let close = b"HTTP/1.0 200 OK\r\n\r\nbody";
        assert_eq!(parse(close, false, false).unwrap(), None);
        assert_eq!(parse(close, false, true).unwrap().unwrap().0.body, b"body");
        let head = b"HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n";
        assert_eq!(parse(head, true, false).unwrap().unwrap().1, head.len());
        assert!(parse(b"garbage\r\n\r\n", false, false).is_err());
    }
}
