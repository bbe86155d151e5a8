//! A minimal single-threaded epoll HTTP/1.1 server for load-generator benchmarks (`bench/`).
//!
//! It answers every request with a pre-encoded `Hello, World!`, pipelining included, so that the
//! generator, not the server, is what a benchmark measures. Not a subject: no routing, no limits.
//!
//! usage: hello_server [PORT]   (prints the port it bound, then serves until killed)

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::SocketAddr;

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};

const LISTENER: Token = Token(usize::MAX);
const RESPONSE: &[u8] = b"HTTP/1.1 200 OK\r\nServer: hello\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!";

struct Conn {
    stream: TcpStream,
    pending: Vec<u8>,
}

fn main() -> io::Result<()> {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let mut listener = TcpListener::bind(addr)?;
    println!("{}", listener.local_addr()?.port());
    io::stdout().flush()?;
    let mut poll = Poll::new()?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)?;
    let mut events = Events::with_capacity(1024);
    let mut conns: HashMap<usize, Conn> = HashMap::new();
    let mut next = 0usize;
    let mut buf = vec![0u8; 64 * 1024];
    let mut out = Vec::with_capacity(64 * 1024);
    loop {
        poll.poll(&mut events, None)?;
        for ev in &events {
            if ev.token() == LISTENER {
                while let Ok((mut stream, _)) = listener.accept() {
                    stream.set_nodelay(true)?;
                    next += 1;
                    poll.registry()
                        .register(&mut stream, Token(next), Interest::READABLE)?;
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
            let mut closed = false;
            loop {
                match conn.stream.read(&mut buf) {
                    Ok(0) => {
                        closed = true;
                        break;
                    }
                    Ok(n) => {
                        conn.pending.extend_from_slice(&buf[..n]);
                        let mut answered = 0;
                        while let Some(end) = find_head_end(&conn.pending[answered..]) {
                            answered += end;
                            out.extend_from_slice(RESPONSE);
                        }
                        conn.pending.drain(..answered);
                        if !out.is_empty() {
                            if conn.stream.write_all(&out).is_err() {
                                closed = true;
                            }
                            out.clear();
                        }
                        if closed || n < buf.len() {
                            break;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(_) => {
                        closed = true;
                        break;
                    }
                }
            }
            if closed {
                conns.remove(&id);
            }
        }
    }
}

/// Bytes up to and including the blank line that ends a request head (bodies are not expected).
fn find_head_end(data: &[u8]) -> Option<usize> {
    data.windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4)
}
