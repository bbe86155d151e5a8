//! The byte streams a connection runs over: TCP, a Unix domain socket, or TLS over either.
//!
//! An enum rather than a trait object: the plain-TCP hot path is one `match` arm around the same
//! `read`/`write` system calls as before, with no allocation and no extra call per request. TLS
//! (see `tls.rs`) keeps its records in rustls's buffers and moves them with `read_tls`/`write_tls`.

use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::path::PathBuf;

use mio::event::Source;
use mio::net::{TcpStream, UnixStream};
use mio::{Interest, Registry, Token};

pub mod tls;

use tls::TlsStream;

/// Where the connections go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    Tcp(SocketAddr),
    /// A Unix domain socket; the URL still gives the `Host` header and the path.
    Unix(PathBuf),
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Tcp(a) => write!(f, "{a}"),
            Self::Unix(p) => write!(f, "unix:{}", p.display()),
        }
    }
}

/// A connected (or connecting) socket without TLS.
#[derive(Debug)]
pub enum Socket {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Socket {
    /// Starts a non-blocking connect.
    pub fn connect(endpoint: &Endpoint) -> io::Result<Self> {
        match endpoint {
            Endpoint::Tcp(addr) => TcpStream::connect(*addr).map(Self::Tcp),
            Endpoint::Unix(path) => UnixStream::connect(path).map(Self::Unix),
        }
    }

    /// A blocking connect with a timeout, to check that the server is there before any load;
    /// returned non-blocking, ready to be reused as the first connection.
    pub fn connect_blocking(endpoint: &Endpoint, timeout: std::time::Duration) -> io::Result<Self> {
        match endpoint {
            Endpoint::Tcp(addr) => {
                let s = std::net::TcpStream::connect_timeout(addr, timeout)?;
                s.set_nonblocking(true)?;
                Ok(Self::Tcp(TcpStream::from_std(s)))
            }
            Endpoint::Unix(path) => {
                // A Unix connect does not wait for the peer: it succeeds or fails at once.
                let s = std::os::unix::net::UnixStream::connect(path)?;
                s.set_nonblocking(true)?;
                Ok(Self::Unix(UnixStream::from_std(s)))
            }
        }
    }

    /// `Ok(true)` once a non-blocking connect has completed, `Ok(false)` while it is under way.
    pub fn finish_connect(&self) -> io::Result<bool> {
        let (err, peer) = match self {
            Self::Tcp(s) => (s.take_error(), s.peer_addr().map(|_| ())),
            Self::Unix(s) => (s.take_error(), s.peer_addr().map(|_| ())),
        };
        if let Some(e) = err? {
            return Err(e);
        }
        match peer {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotConnected => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Sends small writes at once (TCP only; a Unix socket has no Nagle).
    pub fn set_nodelay(&self) {
        if let Self::Tcp(s) = self {
            let _ = s.set_nodelay(true);
        }
    }
}

impl Read for Socket {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Self::Tcp(s) => s.read(buf),
            Self::Unix(s) => s.read(buf),
        }
    }
}

impl Write for Socket {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Self::Tcp(s) => s.write(buf),
            Self::Unix(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Source for Socket {
    fn register(&mut self, r: &Registry, t: Token, i: Interest) -> io::Result<()> {
        match self {
            Self::Tcp(s) => s.register(r, t, i),
            Self::Unix(s) => s.register(r, t, i),
        }
    }

    fn reregister(&mut self, r: &Registry, t: Token, i: Interest) -> io::Result<()> {
        match self {
            Self::Tcp(s) => s.reregister(r, t, i),
            Self::Unix(s) => s.reregister(r, t, i),
        }
    }

    fn deregister(&mut self, r: &Registry) -> io::Result<()> {
        match self {
            Self::Tcp(s) => s.deregister(r),
            Self::Unix(s) => s.deregister(r),
        }
    }
}

/// What a connection reads and writes through.
#[derive(Debug)]
pub enum Transport {
    Plain(Socket),
    Tls(Box<TlsStream>),
}

impl Transport {
    pub fn socket(&self) -> &Socket {
        match self {
            Self::Plain(s) => s,
            Self::Tls(t) => &t.sock,
        }
    }

    /// True when encrypted bytes wait for the socket to take them (TLS only).
    #[inline]
    pub fn wants_write(&self) -> bool {
        match self {
            Self::Plain(_) => false,
            Self::Tls(t) => t.conn.wants_write(),
        }
    }
}

impl Read for Transport {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Self::Plain(s) => s.read(buf),
            Self::Tls(t) => t.read(buf),
        }
    }
}

impl Write for Transport {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Self::Plain(s) => s.write(buf),
            Self::Tls(t) => t.write(buf),
        }
    }

    /// Pushes encrypted bytes rustls still holds; a full socket buffer is not an error (the
    /// writable edge finishes the job).
    #[inline]
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Plain(_) => Ok(()),
            Self::Tls(t) => t.flush(),
        }
    }
}

impl Source for Transport {
    fn register(&mut self, r: &Registry, t: Token, i: Interest) -> io::Result<()> {
        match self {
            Self::Plain(s) => s.register(r, t, i),
            Self::Tls(tls) => tls.sock.register(r, t, i),
        }
    }

    fn reregister(&mut self, r: &Registry, t: Token, i: Interest) -> io::Result<()> {
        match self {
            Self::Plain(s) => s.reregister(r, t, i),
            Self::Tls(tls) => tls.sock.reregister(r, t, i),
        }
    }

    fn deregister(&mut self, r: &Registry) -> io::Result<()> {
        match self {
            Self::Plain(s) => s.deregister(r),
            Self::Tls(tls) => tls.sock.deregister(r),
        }
    }
}
