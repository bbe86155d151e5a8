//! A minimal single-threaded epoll HTTP/1.1 server that answers every request with a
//! pre-encoded `Hello, World!`, pipelining included.
//!
//! It does so little per request that a load against it measures the generator: restbench uses
//! it to calibrate the generator's ceiling before a run, and `bench/` to compare with wrk. Not a
//! subject: no routing, no limits, no bodies.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};

const LISTENER: Token = Token(usize::MAX);
/// How often the stop flag is looked at while no request comes.
const STOP_CHECK_INTERVAL: Duration = Duration::from_millis(50);
/// Readiness events taken per poll; more wait for the next one.
const EVENTS_PER_POLL: usize = 1024;
/// The read buffer, and the write buffer's first size: room for hundreds of pipelined requests
/// and their answers in one system call each.
const IO_BUFFER: usize = 64 * 1024;
const RESPONSE: &[u8] = b"HTTP/1.1 200 OK\r\nServer: hello\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!";

struct Conn {
    stream: TcpStream,
    pending: Vec<u8>,
}

/// A bound server, not yet serving.
pub struct TrivialServer {
    listener: TcpListener,
    poll: Poll,
}

impl TrivialServer {
    /// Binds `addr` (port 0 for any free port).
    pub fn bind(addr: SocketAddr) -> io::Result<Self> {
        let mut listener = TcpListener::bind(addr)?;
        let poll = Poll::new()?;
        poll.registry()
            .register(&mut listener, LISTENER, Interest::READABLE)?;
        Ok(Self { listener, poll })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves on the calling thread until `stop` is set (checked every 50 ms).
    pub fn serve(mut self, stop: &AtomicBool) -> io::Result<()> {
        let mut events = Events::with_capacity(EVENTS_PER_POLL);
        let mut conns: HashMap<usize, Conn> = HashMap::new();
        let mut next = 0usize;
        let mut buf = vec![0u8; IO_BUFFER];
        let mut out = Vec::with_capacity(IO_BUFFER);
        while !stop.load(Ordering::Relaxed) {
            match self.poll.poll(&mut events, Some(STOP_CHECK_INTERVAL)) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => other?,
            }
            for ev in &events {
                if ev.token() == LISTENER {
                    while let Ok((mut stream, _)) = self.listener.accept() {
                        stream.set_nodelay(true)?;
                        next += 1;
                        self.poll.registry().register(
                            &mut stream,
                            Token(next),
                            Interest::READABLE,
                        )?;
                        conns.insert(
                            next,
                            Conn {
                                stream,
                                pending: Vec::new(),
                            },
                        );
                    }
                    continue;
                }
                let id = ev.token().0;
                let Some(conn) = conns.get_mut(&id) else {
                    continue;
                };
                if serve_readable(conn, &mut buf, &mut out) {
                    conns.remove(&id);
                }
            }
        }
        Ok(())
    }
}

/// Reads what is there and answers every complete request head; true when the peer is gone.
fn serve_readable(conn: &mut Conn, buf: &mut [u8], out: &mut Vec<u8>) -> bool {
    loop {
        match conn.stream.read(buf) {
            Ok(0) => return true,
            Ok(n) => {
                conn.pending.extend_from_slice(&buf[..n]);
                let mut answered = 0;
                while let Some(end) = find_head_end(&conn.pending[answered..]) {
                    answered += end;
                    out.extend_from_slice(RESPONSE);
                }
                conn.pending.drain(..answered);
                if !out.is_empty() {
                    let failed = conn.stream.write_all(out).is_err();
                    out.clear();
                    if failed {
                        return true;
                    }
                }
                if n < buf.len() {
                    return false;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return false,
            Err(_) => return true,
        }
    }
}

/// Bytes up to and including the blank line that ends a request head (bodies are not expected).
fn find_head_end(data: &[u8]) -> Option<usize> {
    data.windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4)
}
