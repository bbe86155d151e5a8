//! TLS (certificates made in the test with rcgen, a rustls server thread) and Unix domain sockets,
//! HTTP/1.1. Behaviour only, never speed.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::support::certs::TestPki;
use crate::support::run;
use restbench_loadgen::{LoadSpec, Progress, StopAt, Target, TlsSettings};
use restbench_testkit::procs::within_10s;
use restbench_testkit::turn;
use rustls::{HandshakeKind, ServerConfig, ServerConnection, StreamOwned};

const OK: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

/// Answers every request head on `stream` with [`OK`] until the peer closes; returns the count.
fn answer_all(stream: &mut (impl Read + Write)) -> u64 {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let mut answered = 0;
    loop {
        while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            buf.drain(..end + 4);
            if stream.write_all(OK).is_err() {
                return answered;
            }
            answered += 1;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return answered,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

struct TlsServer {
    addr: SocketAddr,
    requests: Arc<AtomicU64>,
    handshakes: Arc<AtomicU64>,
    resumed: Arc<AtomicU64>,
}

fn tls_server(config: Arc<ServerConfig>) -> TlsServer {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let requests = Arc::new(AtomicU64::new(0));
    let handshakes = Arc::new(AtomicU64::new(0));
    let resumed = Arc::new(AtomicU64::new(0));
    let (r, h, res) = (requests.clone(), handshakes.clone(), resumed.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let config = config.clone();
            let (r, h, res) = (r.clone(), h.clone(), res.clone());
            std::thread::spawn(move || {
                let conn = ServerConnection::new(config).unwrap();
                let mut tls = StreamOwned::new(conn, stream);
                while tls.conn.is_handshaking() {
                    if tls.conn.complete_io(&mut tls.sock).is_err() {
                        return;
                    }
                }
                h.fetch_add(1, Ordering::Relaxed);
                if tls.conn.handshake_kind() == Some(HandshakeKind::Resumed) {
                    res.fetch_add(1, Ordering::Relaxed);
                }
                r.fetch_add(answer_all(&mut tls), Ordering::Relaxed);
            });
        }
    });
    TlsServer {
        addr,
        requests,
        handshakes,
        resumed,
    }
}

fn spec(url: &str) -> LoadSpec {
    let mut s = LoadSpec::get(Target::parse(url).unwrap());
    // Generous: what is tested is the exchange, and a busy machine can make a debug-build TLS
    // server slow to answer.
    s.timeout = Duration::from_secs(15);
    s.connections = 2;
    s.threads = 1;
    s
}

#[test]
fn insecure_accepts_a_self_signed_certificate_and_times_handshakes_apart() {
    let _turn = turn::take(module_path!());
    let pki = TestPki::new();
    let server = tls_server(pki.server_config(&[b"http/1.1"]));
    let mut s = spec(&format!("https://127.0.0.1:{}/x", server.addr.port()));
    s.tls.insecure = true;
    s.stop = StopAt::Requests(200);
    let r = run(&s);
    assert_eq!((r.requests, r.errors.total()), (200, 0), "{:?}", r.errors);
    // The server adds a connection's answers once the client has closed it.
    within_10s(|| server.requests.load(Ordering::Relaxed) == 200);
    assert_eq!(server.requests.load(Ordering::Relaxed), 200);
    let h = r.tls_handshake_us.expect("handshake summary over TLS");
    assert!(h.max > 0 && h.p50 > 0, "{h:?}");
    assert!(r.tls_error.is_none());
}

#[test]
fn an_unknown_issuer_is_a_tls_error_with_a_one_line_reason() {
    let _turn = turn::take(module_path!());
    let pki = TestPki::new();
    let server = tls_server(pki.server_config(&[b"http/1.1"]));
    let mut s = spec(&format!("https://127.0.0.1:{}/", server.addr.port()));
    s.stop = StopAt::Duration(Duration::from_millis(500));
    let r = run(&s);
    assert_eq!(r.requests, 0);
    assert!(r.errors.tls > 0, "{:?}", r.errors);
    assert_eq!(
        r.errors.connect, 0,
        "a TLS failure is not a connect failure"
    );
    let reason = r.tls_error.expect("a reason");
    assert!(reason.contains("unknown issuer"), "{reason}");
    assert!(!reason.contains('\n'));
    assert!(server.requests.load(Ordering::Relaxed) == 0);
}

#[test]
fn a_self_signed_ca_true_certificate_is_refused_in_words_with_the_fix() {
    let _turn = turn::take(module_path!());
    let pki = TestPki::self_signed_ca();
    let server = tls_server(pki.server_config(&[b"http/1.1"]));
    let ca = pki.ca_file();
    let mut s = spec(&format!("https://127.0.0.1:{}/", server.addr.port()));
    s.tls.ca_file = Some(ca.0.clone());
    s.stop = StopAt::Duration(Duration::from_millis(300));
    let r = run(&s);
    assert_eq!(r.requests, 0);
    assert!(r.errors.tls > 0, "{:?}", r.errors);
    assert_eq!(
        r.tls_error.as_deref(),
        Some(
            "certificate: the server's certificate is a CA certificate (CA:TRUE), which TLS \
             refuses as a server certificate; make one with CA:FALSE, or use --insecure to skip \
             the check"
        )
    );
}

#[test]
fn cacert_trusts_the_test_ca_and_a_wrong_name_is_a_mismatch() {
    let _turn = turn::take(module_path!());
    let pki = TestPki::new();
    let server = tls_server(pki.server_config(&[b"http/1.1"]));
    let ca = pki.ca_file();
    let mut s = spec(&format!("https://localhost:{}/", server.addr.port()));
    s.tls = TlsSettings {
        insecure: false,
        ca_file: Some(ca.0.clone()),
    };
    s.stop = StopAt::Requests(50);
    let r = run(&s);
    assert_eq!((r.requests, r.errors.total()), (50, 0), "{:?}", r.tls_error);

    // A certificate for another name, from the same trusted CA.
    let other = TestPki::with_names(&["other.test"]);
    let server = tls_server(other.server_config(&[b"http/1.1"]));
    let ca = other.ca_file();
    let mut s = spec(&format!("https://127.0.0.1:{}/", server.addr.port()));
    s.tls.ca_file = Some(ca.0.clone());
    s.stop = StopAt::Duration(Duration::from_millis(300));
    let r = run(&s);
    assert!(r.errors.tls > 0);
    let reason = r.tls_error.unwrap();
    assert!(reason.contains("name mismatch"), "{reason}");
}

#[test]
fn no_keepalive_pays_a_handshake_per_request_and_resumes_sessions() {
    let _turn = turn::take(module_path!());
    let pki = TestPki::new();
    let server = tls_server(pki.server_config(&[b"http/1.1"]));
    let mut s = spec(&format!("https://127.0.0.1:{}/", server.addr.port()));
    s.tls.insecure = true;
    s.keepalive = false;
    s.stop = StopAt::Requests(30);
    let r = run(&s);
    assert_eq!((r.requests, r.errors.total()), (30, 0), "{:?}", r.errors);
    std::thread::sleep(Duration::from_millis(100));
    // The engine's first reachability check is a plain connection: it makes no handshake.
    assert!(server.handshakes.load(Ordering::Relaxed) >= 30);
    assert!(
        server.resumed.load(Ordering::Relaxed) > 0,
        "reconnects resume the session"
    );
    assert!(r.connections_opened >= 30);
}

#[test]
fn a_plain_http_server_behind_https_is_a_protocol_tls_error() {
    let _turn = turn::take(module_path!());
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            // As a plain HTTP server does with a ClientHello: 400 and close.
            std::thread::spawn(move || {
                let mut buf = [0u8; 1024];
                if stream.read(&mut buf).is_ok_and(|n| n > 0) {
                    let _ =
                        stream.write_all(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
                }
            });
        }
    });
    let mut s = spec(&format!("https://127.0.0.1:{}/", addr.port()));
    s.tls.insecure = true;
    s.stop = StopAt::Duration(Duration::from_millis(300));
    let r = run(&s);
    assert!(r.errors.tls > 0, "{:?}", r.errors);
    assert!(r.tls_error.unwrap().starts_with("protocol"));
}

struct UnixServer {
    path: PathBuf,
    requests: Arc<AtomicU64>,
}

impl Drop for UnixServer {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn unix_server(name: &str) -> UnixServer {
    let path = std::env::temp_dir().join(format!("restbench-{name}-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path).unwrap();
    let requests = Arc::new(AtomicU64::new(0));
    let r = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let r = r.clone();
            std::thread::spawn(move || r.fetch_add(answer_all(&mut stream), Ordering::Relaxed));
        }
    });
    UnixServer { path, requests }
}

#[test]
fn http11_over_a_unix_socket_sends_exactly_n() {
    let _turn = turn::take(module_path!());
    let server = unix_server("h1");
    let mut s = spec("http://localhost/over-unix");
    s.unix_socket = Some(server.path.clone());
    s.connections = 4;
    s.threads = 2;
    s.pipeline = 2;
    s.stop = StopAt::Requests(1_001);
    let r = run(&s);
    assert_eq!((r.requests, r.errors.total()), (1_001, 0), "{:?}", r.errors);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(server.requests.load(Ordering::Relaxed), 1_001);
    assert!(r.settings.unix_socket.is_some());
}

#[test]
fn a_missing_unix_socket_is_unreachable_before_any_load() {
    let _turn = turn::take(module_path!());
    let mut s = spec("http://localhost/");
    s.unix_socket = Some("/nonexistent/restbench.sock".into());
    let stop = AtomicBool::new(false);
    let e = restbench_loadgen::run(&s, &stop, Arc::new(Progress::default())).unwrap_err();
    assert!(e.to_string().contains("unix:/nonexistent"), "{e}");
}
