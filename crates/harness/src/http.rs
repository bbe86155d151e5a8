//! A small blocking HTTP/1.1 client for readiness and verification (never for load): it sends
//! exactly the bytes asked for, so the verifier can also send malformed and oversized requests.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

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

/// Sends raw bytes on a new connection and reads one response.
pub fn exchange(addr: SocketAddr, raw: &[u8], timeout: Duration) -> io::Result<Response> {
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    // A server may answer 413 and close before reading a large body: a failed write is fine as
    // long as an answer can be read.
    let write_result = stream.write_all(raw);
    match read_response(&mut stream, timeout) {
        Ok(r) => Ok(r),
        Err(e) => Err(named_timeout(write_result.err().unwrap_or(e), timeout)),
    }
}

/// A socket timeout reads as EAGAIN ("Resource temporarily unavailable"); say what it means.
fn named_timeout(e: io::Error, timeout: Duration) -> io::Error {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => io::Error::new(
            io::ErrorKind::TimedOut,
            format!("no complete answer within {:.1} s", timeout.as_secs_f64()),
        ),
        _ => e,
    }
}

/// `GET path` on a new connection.
pub fn get(addr: SocketAddr, path: &str, timeout: Duration) -> io::Result<Response> {
    exchange(addr, &request("GET", path, &[], b""), timeout)
}

fn read_response(stream: &mut TcpStream, timeout: Duration) -> io::Result<Response> {
    let deadline = Instant::now() + timeout;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16384];
    let bad = |m: &str| io::Error::new(io::ErrorKind::InvalidData, m.to_string());
    let fill = |stream: &mut TcpStream, buf: &mut Vec<u8>, chunk: &mut [u8]| -> io::Result<bool> {
        if Instant::now() > deadline {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "no complete answer in time",
            ));
        }
        let n = stream.read(chunk)?;
        buf.extend_from_slice(&chunk[..n]);
        Ok(n > 0)
    };
    loop {
        let head_end = loop {
            if let Some(i) = find(&buf, b"\r\n\r\n") {
                break i;
            }
            if buf.len() > 256 * 1024 {
                return Err(bad("response head too large"));
            }
            if !fill(stream, &mut buf, &mut chunk)? {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "connection closed before a response",
                ));
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap_or_default();
        let status: u16 = status_line
            .strip_prefix("HTTP/1.")
            .and_then(|s| s.get(2..5))
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad(&format!("not an HTTP/1.x status line: {status_line:?}")))?;
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| {
                l.split_once(':')
                    .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
            })
            .collect();
        buf.drain(..head_end + 4);
        if (100..200).contains(&status) {
            continue;
        }
        let header = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        let chunked = header("transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().ends_with("chunked"));
        let (body, framing) = if status == 204 || status == 304 {
            (Vec::new(), "content-length")
        } else if chunked {
            (
                read_chunked(stream, &mut buf, &mut chunk, &fill)?,
                "chunked",
            )
        } else if let Some(len) = header("content-length") {
            let len: usize = len.parse().map_err(|_| bad("invalid Content-Length"))?;
            while buf.len() < len {
                if !fill(stream, &mut buf, &mut chunk)? {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "body shorter than Content-Length",
                    ));
                }
            }
            buf.truncate(len);
            (std::mem::take(&mut buf), "content-length")
        } else {
            while fill(stream, &mut buf, &mut chunk)? {}
            (std::mem::take(&mut buf), "close")
        };
        return Ok(Response {
            status,
            headers,
            body,
            framing,
        });
    }
}

type Fill<'a> = dyn Fn(&mut TcpStream, &mut Vec<u8>, &mut [u8]) -> io::Result<bool> + 'a;

fn read_chunked(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    chunk: &mut [u8],
    fill: &Fill<'_>,
) -> io::Result<Vec<u8>> {
    let bad = |m: &str| io::Error::new(io::ErrorKind::InvalidData, m.to_string());
    let mut body = Vec::new();
    loop {
        let eol = loop {
            if let Some(i) = find(buf, b"\r\n") {
                break i;
            }
            if !fill(stream, buf, chunk)? {
                return Err(bad("connection closed inside a chunked body"));
            }
        };
        let line = String::from_utf8_lossy(&buf[..eol]).into_owned();
        let size = usize::from_str_radix(line.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| bad("invalid chunk size"))?;
        buf.drain(..eol + 2);
        if size == 0 {
            // Trailers until an empty line.
            loop {
                let eol = loop {
                    if let Some(i) = find(buf, b"\r\n") {
                        break i;
                    }
                    if !fill(stream, buf, chunk)? {
                        return Ok(body);
                    }
                };
                buf.drain(..eol + 2);
                if eol == 0 {
                    return Ok(body);
                }
            }
        }
        while buf.len() < size + 2 {
            if !fill(stream, buf, chunk)? {
                return Err(bad("connection closed inside a chunk"));
            }
        }
        body.extend_from_slice(&buf[..size]);
        buf.drain(..size + 2);
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
