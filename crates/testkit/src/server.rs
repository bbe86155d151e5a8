//! A tiny HTTP/1.1 server for tests: bound to a free port, a thread per connection, either
//! answering every request with the same bytes (and keeping what it saw) or handing each
//! connection to the test's own code, to break the protocol on purpose.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// How many requests a server keeps (it counts them all); enough for any assertion, bounded for
/// runs that send millions.
const KEPT_REQUESTS: usize = 64;

/// A request as the server read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The request line and the headers, without the blank line.
    pub head: String,
    pub body: Vec<u8>,
}

impl Request {
    /// `GET /hello HTTP/1.1`.
    pub fn line(&self) -> &str {
        self.head.lines().next().unwrap_or("")
    }
}

/// A running server; dropping it stops it accepting (open connections end with their client).
pub struct TinyServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    seen: Arc<Seen>,
    acceptor: Option<thread::JoinHandle<()>>,
}

/// What the connections of one server share.
#[derive(Default)]
struct Seen {
    connections: AtomicU64,
    answered: AtomicU64,
    requests: Mutex<Vec<Request>>,
}

impl TinyServer {
    /// Answers every request on 127.0.0.1 with `answer` (a whole response), keeping the
    /// connection open; pipelined requests are answered in order.
    pub fn answering(answer: &'static [u8]) -> Self {
        Self::answering_on("127.0.0.1:0", answer)
    }

    /// [`answering`](Self::answering), bound to `addr` (a namespace's address, say).
    pub fn answering_on(addr: impl ToSocketAddrs, answer: &'static [u8]) -> Self {
        Self::start(addr, move |stream, seen| answer_each(stream, answer, seen))
    }

    /// Hands each accepted connection to `serve`, on a thread of its own.
    pub fn serving(serve: impl Fn(TcpStream) + Send + Sync + 'static) -> Self {
        Self::start("127.0.0.1:0", move |stream, _| serve(stream))
    }

    fn start(
        addr: impl ToSocketAddrs,
        serve: impl Fn(TcpStream, &Seen) + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind(addr).expect("a free port to bind");
        let addr = listener
            .local_addr()
            .expect("a bound listener has an address");
        // Polled, so that a drop stops it without connecting to it (from another namespace,
        // that connection could go anywhere).
        listener
            .set_nonblocking(true)
            .expect("a listener can be made non-blocking");
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Seen::default());
        let (flag, shared, serve) = (stop.clone(), seen.clone(), Arc::new(serve));
        let acceptor = thread::spawn(move || {
            while !flag.load(Ordering::SeqCst) {
                let Ok((stream, _)) = listener.accept() else {
                    thread::sleep(Duration::from_millis(2));
                    continue;
                };
                shared.connections.fetch_add(1, Ordering::SeqCst);
                let _ = stream.set_nonblocking(false);
                // A backstop: no connection of a test outlives it for long.
                let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
                let _ = stream.set_write_timeout(Some(Duration::from_secs(60)));
                let (serve, shared) = (serve.clone(), shared.clone());
                thread::spawn(move || serve(stream, &shared));
            }
        });
        Self {
            addr,
            stop,
            seen,
            acceptor: Some(acceptor),
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://ADDR{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> u64 {
        self.seen.connections.load(Ordering::SeqCst)
    }

    /// Requests answered so far (by an [`answering`](Self::answering) server).
    pub fn answered(&self) -> u64 {
        self.seen.answered.load(Ordering::SeqCst)
    }

    /// The first requests it read (at most 64), in the order they arrived.
    pub fn requests(&self) -> Vec<Request> {
        self.seen
            .requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

impl Drop for TinyServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

/// Reads requests (a head, then Content-Length bytes of body) and writes `answer` for each.
fn answer_each(mut stream: TcpStream, answer: &[u8], seen: &Seen) {
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        while let Some(request) = take_request(&mut buf) {
            {
                let mut kept = seen.requests.lock().unwrap_or_else(|p| p.into_inner());
                if kept.len() < KEPT_REQUESTS {
                    kept.push(request);
                }
            }
            if stream.write_all(answer).is_err() {
                return;
            }
            seen.answered.fetch_add(1, Ordering::SeqCst);
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// The first whole request in `buf`, removed from it; `None` until one has arrived.
fn take_request(buf: &mut Vec<u8>) -> Option<Request> {
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let length = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    if buf.len() < end + 4 + length {
        return None;
    }
    let body = buf[end + 4..end + 4 + length].to_vec();
    buf.drain(..end + 4 + length);
    Some(Request { head, body })
}

/// A port on 127.0.0.1 that nothing listens on (it was free a moment ago).
pub fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port to bind")
        .port()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipelined_requests_with_bodies_are_split_where_they_end() {
        let mut buf =
            b"POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET /b HTTP/1.1\r\n\r\nGET".to_vec();
        let first = take_request(&mut buf).unwrap();
        assert_eq!(
            (first.line(), first.body.as_slice()),
            ("POST /a HTTP/1.1", &b"abc"[..])
        );
        assert_eq!(take_request(&mut buf).unwrap().line(), "GET /b HTTP/1.1");
        assert_eq!(take_request(&mut buf), None);
        assert_eq!(buf, b"GET");
    }
}
