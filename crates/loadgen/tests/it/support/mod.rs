//! A scriptable HTTP/1.1 test server on 127.0.0.1:0: a thread per connection, and a handler that
//! decides, request by request, what the server does (answer, wait, stay silent, close, send junk);
//! `hostile` runs the hostile-server tables of `hostile_h1` and `hostile_h2`.

pub mod certs;
pub mod hostile;

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use restbench_loadgen::{LoadSpec, Progress};
use restbench_model::LoadResult;

/// What the server does with one request.
pub enum Action {
    /// Write these bytes (a whole response) and keep the connection.
    Send(Vec<u8>),
    /// Wait, then write.
    DelayThenSend(Duration, Vec<u8>),
    /// Write these bytes, then close.
    SendAndClose(Vec<u8>),
    /// Read on but never answer.
    Silence,
    /// Hold this request until `n` are waiting on the connection, then answer them all,
    /// waiting `last_delay` before the last answer of each batch.
    Batch { n: usize, last_delay: Duration },
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub head: String,
    pub body: Vec<u8>,
}

pub type Handler = dyn Fn(u64, &Seen) -> Action + Send + Sync;

pub struct TestServer {
    pub addr: SocketAddr,
    pub connections: Arc<AtomicU64>,
    pub requests: Arc<AtomicU64>,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
    streams: Arc<Mutex<Vec<TcpStream>>>,
    acceptor: Option<thread::JoinHandle<()>>,
}

/// Runs `spec` to its end; its totals must add up (sent = answered + unanswered + in flight).
pub fn run(spec: &LoadSpec) -> LoadResult {
    let stop = AtomicBool::new(false);
    let outcome =
        restbench_loadgen::run(spec, &stop, Arc::new(Progress::default())).expect("load run");
    let result = outcome.to_result(spec);
    assert!(
        result.totals_add_up(),
        "sent {} != answered {} + unanswered {} + in flight {}",
        result.sent,
        result.requests,
        result.errors.unanswered(),
        result.in_flight
    );
    result
}

pub fn ok(body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

pub fn status(code: u16) -> Vec<u8> {
    format!("HTTP/1.1 {code} X\r\nContent-Length: 2\r\n\r\nno").into_bytes()
}

impl TestServer {
    pub fn start(handler: impl Fn(u64, &Seen) -> Action + Send + Sync + 'static) -> Self {
        Self::start_with(None, handler)
    }

    /// [`start`](Self::start), closing connections idle for `idle_close`.
    pub fn start_with(
        idle_close: Option<Duration>,
        handler: impl Fn(u64, &Seen) -> Action + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let handler: Arc<Handler> = Arc::new(handler);
        let connections = Arc::new(AtomicU64::new(0));
        let requests = Arc::new(AtomicU64::new(0));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let streams = Arc::new(Mutex::new(Vec::new()));
        let acceptor = {
            let (connections, requests, seen, stop, streams) = (
                connections.clone(),
                requests.clone(),
                seen.clone(),
                stop.clone(),
                streams.clone(),
            );
            thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            stream.set_nonblocking(false).unwrap();
                            stream.set_nodelay(true).unwrap();
                            connections.fetch_add(1, Ordering::SeqCst);
                            streams.lock().unwrap().push(stream.try_clone().unwrap());
                            let (handler, requests, seen, stop) = (
                                handler.clone(),
                                requests.clone(),
                                seen.clone(),
                                stop.clone(),
                            );
                            thread::spawn(move || {
                                serve(stream, handler, requests, seen, stop, idle_close)
                            });
                        }
                        Err(_) => thread::sleep(Duration::from_millis(1)),
                    }
                }
                drop(listener);
            })
        };
        Self {
            addr,
            connections,
            requests,
            seen,
            stop,
            streams,
            acceptor: Some(acceptor),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> u64 {
        self.connections.load(Ordering::SeqCst)
    }

    /// Whether the head of every request seen so far passes `check`.
    pub fn every_head(&self, check: impl Fn(&str) -> bool) -> bool {
        self.seen.lock().unwrap().iter().all(|s| check(&s.head))
    }

    /// Stops accepting and cuts every open connection, as a crashed server would.
    pub fn kill(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(a) = self.acceptor.take() {
            a.join().unwrap();
        }
        for s in self.streams.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.kill();
    }
}

fn serve(
    mut stream: TcpStream,
    handler: Arc<Handler>,
    requests: Arc<AtomicU64>,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
    idle_close: Option<Duration>,
) {
    stream
        .set_read_timeout(Some(idle_close.unwrap_or(Duration::from_millis(100))))
        .unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16384];
    let mut batch: Vec<(Vec<u8>, Duration)> = Vec::new();
    loop {
        // Parse every complete request in the buffer.
        while let Some(head_end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
            let len = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap())
                })
                .unwrap_or(0);
            if buf.len() < head_end + 4 + len {
                break;
            }
            let body = buf[head_end + 4..head_end + 4 + len].to_vec();
            buf.drain(..head_end + 4 + len);
            let n = requests.fetch_add(1, Ordering::SeqCst);
            let req = Seen { head, body };
            let action = handler(n, &req);
            seen.lock().unwrap().push(req);
            let result = match action {
                Action::Send(b) => stream.write_all(&b),
                Action::DelayThenSend(d, b) => {
                    thread::sleep(d);
                    stream.write_all(&b)
                }
                Action::SendAndClose(b) => {
                    let _ = stream.write_all(&b);
                    let _ = stream.shutdown(Shutdown::Both);
                    return;
                }
                Action::Silence => Ok(()),
                Action::Batch { n, last_delay } => {
                    batch.push((ok("batched"), last_delay));
                    if batch.len() == n {
                        let (last, delay) = batch.pop().unwrap();
                        let mut all = Vec::new();
                        for (b, _) in batch.drain(..) {
                            all.extend_from_slice(&b);
                        }
                        let _ = stream.write_all(&all);
                        thread::sleep(delay);
                        stream.write_all(&last)
                    } else {
                        Ok(())
                    }
                }
            };
            if result.is_err() {
                return;
            }
        }
        match stream.read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                if idle_close.is_some() && buf.is_empty() {
                    let _ = stream.shutdown(Shutdown::Both);
                    return;
                }
                if stop.load(Ordering::SeqCst) {
                    return;
                }
            }
            Err(_) => return,
        }
    }
}
