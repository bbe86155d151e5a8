//! HTTP/2 (h2c with prior knowledge, h2 over TLS by ALPN, h2c over a Unix socket) against a
//! server built in the test with the `h2` crate on a tokio runtime of its own. Behaviour only.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::support::certs::TestPki;
use crate::support::run;
use bytes::Bytes;
use restbench_loadgen::{HttpVersion, LoadSpec, StopAt, Target};
use restbench_testkit::turn;
use tokio::io::{AsyncRead, AsyncWrite};

#[derive(Default)]
struct Behaviour {
    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS.
    max_streams: Option<u32>,
    /// Graceful GOAWAY after this many requests on a connection.
    goaway_after: Option<u64>,
    /// Reset every n-th request (RST_STREAM INTERNAL_ERROR) instead of answering.
    reset_every: Option<u64>,
    delay: Option<Duration>,
    /// Echo request bodies, checking each equals this.
    expect_body: Option<Vec<u8>>,
}

#[derive(Default)]
struct Counters {
    requests: AtomicU64,
    /// The most streams open at once on one connection.
    max_concurrent: AtomicU64,
    bad_bodies: AtomicU64,
    connections: AtomicU64,
    /// Each request's method, path and X-Counter header, as the server decoded them.
    seen: std::sync::Mutex<Vec<String>>,
}

struct Server {
    port: u16,
    counters: Arc<Counters>,
    _unix: Option<crate::support::certs::TempFile>,
}

async fn serve_conn<T: AsyncRead + AsyncWrite + Unpin>(io: T, b: Arc<Behaviour>, c: Arc<Counters>) {
    c.connections.fetch_add(1, Ordering::Relaxed);
    let mut builder = h2::server::Builder::new();
    if let Some(m) = b.max_streams {
        builder.max_concurrent_streams(m);
    }
    let Ok(mut conn) = builder.handshake::<_, Bytes>(io).await else {
        return;
    };
    let open = Arc::new(AtomicU64::new(0));
    let mut served = 0u64;
    while let Some(next) = conn.accept().await {
        let Ok((req, mut respond)) = next else { break };
        served += 1;
        if b.goaway_after == Some(served) {
            conn.graceful_shutdown();
        }
        let n = c.requests.fetch_add(1, Ordering::Relaxed) + 1;
        if let Ok(mut seen) = c.seen.lock()
            && seen.len() < 64
        {
            let counter = req
                .headers()
                .get("x-counter")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("-");
            seen.push(format!("{} {} {counter}", req.method(), req.uri().path()));
        }
        let (b, c, open) = (b.clone(), c.clone(), open.clone());
        tokio::spawn(async move {
            let now = open.fetch_add(1, Ordering::SeqCst) + 1;
            c.max_concurrent.fetch_max(now, Ordering::SeqCst);
            let mut body = req.into_body();
            let mut data = Vec::new();
            while let Some(chunk) = body.data().await {
                let Ok(chunk) = chunk else { return };
                let _ = body.flow_control().release_capacity(chunk.len());
                data.extend_from_slice(&chunk);
            }
            if let Some(d) = b.delay {
                tokio::time::sleep(d).await;
            }
            open.fetch_sub(1, Ordering::SeqCst);
            if b.reset_every.is_some_and(|k| n.is_multiple_of(k)) {
                respond.send_reset(h2::Reason::INTERNAL_ERROR);
                return;
            }
            let answer = match &b.expect_body {
                Some(want) => {
                    if &data != want {
                        c.bad_bodies.fetch_add(1, Ordering::Relaxed);
                    }
                    Bytes::from(data)
                }
                None => Bytes::from_static(b"ok"),
            };
            let resp = http::Response::builder()
                .status(200)
                .header("content-type", "text/plain")
                .body(())
                .unwrap();
            if let Ok(mut send) = respond.send_response(resp, false) {
                let _ = send.send_data(answer, true);
            }
        });
    }
}

enum Listen {
    Tcp,
    Tls(Arc<rustls::ServerConfig>),
    Unix,
}

fn server(b: Behaviour, listen: Listen) -> Server {
    let counters = Arc::new(Counters::default());
    let b = Arc::new(b);
    let (tx, rx) = std::sync::mpsc::channel();
    let unix_path = std::env::temp_dir().join(format!(
        "restbench-h2c-{}-{}.sock",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let is_unix = matches!(listen, Listen::Unix);
    let (c2, path2) = (counters.clone(), unix_path.clone());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            match listen {
                Listen::Unix => {
                    let l = tokio::net::UnixListener::bind(&path2).unwrap();
                    tx.send(0).unwrap();
                    while let Ok((s, _)) = l.accept().await {
                        tokio::spawn(serve_conn(s, b.clone(), c2.clone()));
                    }
                }
                Listen::Tcp | Listen::Tls(_) => {
                    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                    tx.send(l.local_addr().unwrap().port()).unwrap();
                    let tls = match &listen {
                        Listen::Tls(cfg) => Some(tokio_rustls::TlsAcceptor::from(cfg.clone())),
                        _ => None,
                    };
                    while let Ok((s, _)) = l.accept().await {
                        let (b, c) = (b.clone(), c2.clone());
                        match &tls {
                            None => {
                                tokio::spawn(serve_conn(s, b, c));
                            }
                            Some(acceptor) => {
                                let acceptor = acceptor.clone();
                                tokio::spawn(async move {
                                    if let Ok(s) = acceptor.accept(s).await {
                                        serve_conn(s, b, c).await;
                                    }
                                });
                            }
                        }
                    }
                }
            }
        });
    });
    let port = rx.recv().unwrap();
    Server {
        port,
        counters,
        _unix: is_unix.then(|| crate::support::certs::TempFile(unix_path)),
    }
}

static NEXT: AtomicU64 = AtomicU64::new(0);

fn spec(url: &str) -> LoadSpec {
    let mut s = LoadSpec::get(Target::parse(url).unwrap());
    s.http_version = HttpVersion::Http2;
    // Generous: what is tested is the protocol, not the speed of a busy machine.
    s.timeout = Duration::from_secs(15);
    s.connections = 2;
    s.threads = 1;
    s
}

#[test]
fn h2c_sends_exactly_n_with_the_streams_asked_for_per_connection() {
    let _turn = turn::take(module_path!());
    let srv = server(
        Behaviour {
            delay: Some(Duration::from_millis(5)),
            ..Default::default()
        },
        Listen::Tcp,
    );
    let mut s = spec(&format!("http://127.0.0.1:{}/plaintext", srv.port));
    s.max_streams = 4;
    s.stop = StopAt::Requests(203);
    let r = run(&s);
    assert_eq!((r.requests, r.errors.total()), (203, 0), "{:?}", r.errors);
    assert_eq!(r.status_counts.get("200"), Some(&203));
    assert_eq!(srv.counters.requests.load(Ordering::Relaxed), 203);
    assert_eq!(
        srv.counters.max_concurrent.load(Ordering::SeqCst),
        4,
        "4 streams in flight per connection, never more"
    );
    assert_eq!(r.settings.http_version, "2");
    assert_eq!(r.settings.max_streams, Some(4));
}

#[test]
fn the_servers_stream_limit_is_honoured() {
    let _turn = turn::take(module_path!());
    let srv = server(
        Behaviour {
            max_streams: Some(2),
            delay: Some(Duration::from_millis(5)),
            ..Default::default()
        },
        Listen::Tcp,
    );
    let mut s = spec(&format!("http://127.0.0.1:{}/", srv.port));
    s.max_streams = 16;
    s.connections = 1;
    s.stop = StopAt::Requests(60);
    let r = run(&s);
    assert_eq!((r.requests, r.errors.total()), (60, 0), "{:?}", r.errors);
    assert!(srv.counters.max_concurrent.load(Ordering::SeqCst) <= 2);
}

#[test]
fn post_bodies_arrive_byte_for_byte_and_come_back() {
    let _turn = turn::take(module_path!());
    for len in [4096, 40_000] {
        let body: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
        let srv = server(
            Behaviour {
                expect_body: Some(body.clone()),
                ..Default::default()
            },
            Listen::Tcp,
        );
        let mut s = spec(&format!("http://127.0.0.1:{}/echo", srv.port));
        s.method = "POST".into();
        s.headers
            .push(("Content-Type".into(), "application/octet-stream".into()));
        s.body = body;
        s.max_streams = 8;
        s.stop = StopAt::Requests(100);
        let r = run(&s);
        assert_eq!(
            (r.requests, r.errors.total()),
            (100, 0),
            "{len}: {:?}",
            r.errors
        );
        assert_eq!(srv.counters.bad_bodies.load(Ordering::Relaxed), 0, "{len}");
        assert_eq!(srv.counters.requests.load(Ordering::Relaxed), 100);
        assert!(r.bytes >= 100 * len as u64, "echoed bodies are read");
    }
}

#[test]
fn goaway_mid_run_is_counted_and_the_count_stays_exact() {
    let _turn = turn::take(module_path!());
    let srv = server(
        Behaviour {
            goaway_after: Some(10),
            delay: Some(Duration::from_millis(1)),
            ..Default::default()
        },
        Listen::Tcp,
    );
    let mut s = spec(&format!("http://127.0.0.1:{}/", srv.port));
    s.max_streams = 4;
    s.stop = StopAt::Requests(100);
    let r = run(&s);
    assert_eq!((r.requests, r.errors.total()), (100, 0), "{:?}", r.errors);
    assert!(r.goaways > 0);
    assert!(
        r.connections_opened > 2,
        "connections are replaced after GOAWAY"
    );
    assert!(srv.counters.connections.load(Ordering::Relaxed) >= 5);
}

#[test]
fn rst_stream_is_counted_as_reset() {
    let _turn = turn::take(module_path!());
    let srv = server(
        Behaviour {
            reset_every: Some(5),
            ..Default::default()
        },
        Listen::Tcp,
    );
    let mut s = spec(&format!("http://127.0.0.1:{}/", srv.port));
    s.connections = 1;
    s.stop = StopAt::Requests(100);
    let r = run(&s);
    assert_eq!(r.errors.reset, 20, "{:?}", r.errors);
    assert_eq!(r.requests, 80);
    assert_eq!(r.sent, 100);
}

#[test]
fn h2_over_tls_is_chosen_by_alpn() {
    let _turn = turn::take(module_path!());
    let pki = TestPki::new();
    let srv = server(
        Behaviour::default(),
        Listen::Tls(pki.server_config(&[b"h2", b"http/1.1"])),
    );
    let mut s = spec(&format!("https://127.0.0.1:{}/", srv.port));
    s.tls.insecure = true;
    s.max_streams = 8;
    s.stop = StopAt::Requests(120);
    let r = run(&s);
    assert_eq!(
        (r.requests, r.errors.total()),
        (120, 0),
        "{:?}",
        r.tls_error
    );
    assert!(r.tls_handshake_us.is_some());
    assert_eq!(srv.counters.requests.load(Ordering::Relaxed), 120);
}

#[test]
fn a_tls_server_without_h2_is_a_tls_protocol_error() {
    let _turn = turn::take(module_path!());
    let pki = TestPki::new();
    let srv = server(
        Behaviour::default(),
        Listen::Tls(pki.server_config(&[b"http/1.1"])),
    );
    let mut s = spec(&format!("https://127.0.0.1:{}/", srv.port));
    s.tls.insecure = true;
    s.stop = StopAt::Duration(Duration::from_millis(300));
    let r = run(&s);
    assert_eq!(r.requests, 0);
    assert!(r.errors.tls > 0);
    assert!(r.tls_error.unwrap().contains("ALPN"));
}

#[test]
fn h2c_over_a_unix_socket() {
    let _turn = turn::take(module_path!());
    let srv = server(Behaviour::default(), Listen::Unix);
    let path = srv._unix.as_ref().unwrap().0.clone();
    let mut s = spec("http://localhost/over-unix");
    s.unix_socket = Some(path);
    s.max_streams = 4;
    s.stop = StopAt::Requests(150);
    let r = run(&s);
    assert_eq!((r.requests, r.errors.total()), (150, 0), "{:?}", r.errors);
    assert_eq!(srv.counters.requests.load(Ordering::Relaxed), 150);
}

#[test]
fn no_keepalive_opens_a_connection_per_request() {
    let _turn = turn::take(module_path!());
    let srv = server(Behaviour::default(), Listen::Tcp);
    let mut s = spec(&format!("http://127.0.0.1:{}/", srv.port));
    s.keepalive = false;
    s.stop = StopAt::Requests(20);
    let r = run(&s);
    assert_eq!((r.requests, r.errors.total()), (20, 0), "{:?}", r.errors);
    assert!(r.connections_opened >= 20);
}

#[test]
fn a_rate_is_kept_over_h2c() {
    let _turn = turn::take(module_path!());
    let srv = server(Behaviour::default(), Listen::Tcp);
    let mut s = spec(&format!("http://127.0.0.1:{}/", srv.port));
    s.rate = Some(200.0);
    s.max_streams = 2;
    s.stop = StopAt::Duration(Duration::from_millis(500));
    let r = run(&s);
    assert_eq!(r.errors.total(), 0, "{:?}", r.errors);
    assert!((60..=140).contains(&r.requests), "{}", r.requests);
    assert!(r.uncorrected_latency_us.is_some());
}

#[test]
fn a_wrk_script_sends_its_requests_over_h2c_as_over_http1() {
    let _turn = turn::take(module_path!());
    let srv = server(Behaviour::default(), Listen::Tcp);
    let mut s = spec(&format!("http://127.0.0.1:{}/", srv.port));
    s.connections = 1;
    s.max_streams = 2;
    s.stop = StopAt::Requests(6);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/scripts/wrk-counter.lua");
    let script = restbench_loadgen::script::Script::load(&path, &[], &mut s).unwrap();
    assert!(script.per_request());
    let r = run(&s);
    assert_eq!((r.requests, r.errors.total()), (6, 0), "{:?}", r.errors);
    let mut seen = srv.counters.seen.lock().unwrap().clone();
    // Two streams at once may reach the server's handler in either order.
    seen.sort_by_key(|l| l.split(' ').nth(2).and_then(|n| n.parse::<u32>().ok()));
    let want: Vec<String> = (0..6).map(|i| format!("GET /{i} {i}")).collect();
    assert_eq!(
        seen, want,
        "each request's own path and header, decoded by the h2 crate"
    );
}
