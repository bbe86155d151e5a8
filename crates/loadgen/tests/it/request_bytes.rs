//! What `restbench load` puts on the wire, byte for byte, checked against the RFCs' grammar: a
//! raw `TcpListener` records everything each connection sends and answers with the least a
//! client needs, then every captured request is parsed by a small checker of RFC 9112 §3 (the
//! request line, header fields, `Host` once, CRLF line ends, the empty line, a body of exactly
//! `Content-Length` bytes) and the h2c connection start by RFC 9113 §3.4 and §6.5. A generator
//! that claims a shape must send exactly that shape.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::support::run;
use restbench_loadgen::{HttpVersion, LoadSpec, PathMix, StopAt, Target};
use restbench_testkit::turn;

/// One request as the checker parsed it from the captured bytes.
#[derive(Debug, Clone)]
struct Request {
    method: String,
    target: String,
    version: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

/// RFC 9110 §5.6.2: `tchar`, the characters of a token.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn token(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(|&b| is_tchar(b))
}

/// RFC 9110 §5.5: a field value is visible characters, spaces and tabs (and obs-text), with no
/// leading or trailing whitespace once OWS is taken off.
fn field_value(s: &[u8]) -> bool {
    s.iter()
        .all(|&b| b == b' ' || b == b'\t' || (0x21..=0x7e).contains(&b) || b >= 0x80)
}

fn text(s: &[u8]) -> String {
    String::from_utf8_lossy(s).into_owned()
}

/// The head's lines: every line must end in CRLF (no bare CR or LF inside one).
fn crlf_lines(head: &[u8]) -> Result<Vec<&[u8]>, String> {
    let mut lines = Vec::new();
    let mut rest = head;
    while !rest.is_empty() {
        let lf = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| format!("a line without an end: {:?}", text(rest)))?;
        if lf == 0 || rest[lf - 1] != b'\r' {
            return Err(format!("a bare LF: {:?}", text(&rest[..=lf])));
        }
        let line = &rest[..lf - 1];
        if line.contains(&b'\r') {
            return Err(format!("a bare CR: {:?}", text(line)));
        }
        lines.push(line);
        rest = &rest[lf + 1..];
    }
    Ok(lines)
}

/// RFC 9112 §3: `method SP request-target SP HTTP-version CRLF`.
fn request_line(line: &[u8]) -> Result<(String, String, String), String> {
    let parts: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
    let [method, target, version] = parts[..] else {
        return Err(format!(
            "not three parts split by single spaces: {:?}",
            text(line)
        ));
    };
    if !token(method) {
        return Err(format!("the method is not a token: {:?}", text(method)));
    }
    // origin-form (RFC 9112 §3.2.1): an absolute path and an optional query, visible ASCII.
    if target.first() != Some(&b'/') || !target.iter().all(|b| (0x21..=0x7e).contains(b)) {
        return Err(format!("not an origin-form target: {:?}", text(target)));
    }
    let digit = |b: u8| b.is_ascii_digit();
    let ok_version = version.len() == 8
        && version.starts_with(b"HTTP/")
        && digit(version[5])
        && version[6] == b'.'
        && digit(version[7]);
    if !ok_version {
        return Err(format!("not an HTTP-version: {:?}", text(version)));
    }
    Ok((text(method), text(target), text(version)))
}

/// RFC 9112 §5: `field-name ":" OWS field-value OWS`, no space before the colon.
fn field_line(line: &[u8]) -> Result<(String, String), String> {
    let colon = line
        .iter()
        .position(|&b| b == b':')
        .ok_or_else(|| format!("a field line without a colon: {:?}", text(line)))?;
    let name = &line[..colon];
    if !token(name) {
        return Err(format!("the field name is not a token: {:?}", text(name)));
    }
    let ows = |b: &u8| *b == b' ' || *b == b'\t';
    let value = &line[colon + 1..];
    let start = value.iter().position(|b| !ows(b)).unwrap_or(value.len());
    let end = value.iter().rposition(|b| !ows(b)).map_or(start, |e| e + 1);
    let value = &value[start..end];
    if !field_value(value) {
        return Err(format!(
            "a field value with control bytes: {:?}",
            text(value)
        ));
    }
    Ok((text(name), text(value)))
}

/// The first whole request in `buf` and how many bytes it took, `Ok(None)` when more bytes are
/// needed, or what breaks the grammar.
fn parse_request(buf: &[u8]) -> Result<Option<(Request, usize)>, String> {
    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
        // Not whole yet; but a line already ended wrongly is wrong however much follows.
        if let Some(last) = buf.iter().rposition(|&b| b == b'\n') {
            crlf_lines(&buf[..=last])?;
        }
        return Ok(None);
    };
    let head = &buf[..end + 2];
    let lines = crlf_lines(head)?;
    let (method, target, version) = request_line(lines[0])?;
    let headers = lines[1..]
        .iter()
        .map(|l| field_line(l))
        .collect::<Result<Vec<_>, _>>()?;
    let mut r = Request {
        method,
        target,
        version,
        headers,
        body: Vec::new(),
    };
    if r.header("host").len() != 1 {
        return Err(format!("Host must appear exactly once: {:?}", r.headers));
    }
    if !r.header("transfer-encoding").is_empty() {
        return Err("the generator never sends Transfer-Encoding".into());
    }
    let length = match r.header("content-length")[..] {
        [] => 0,
        [v] if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
            v.parse::<usize>().map_err(|e| e.to_string())?
        }
        ref v => return Err(format!("a bad Content-Length: {v:?}")),
    };
    let body_start = end + 4;
    if buf.len() < body_start + length {
        return Ok(None);
    }
    r.body = buf[body_start..body_start + length].to_vec();
    Ok(Some((r, body_start + length)))
}

/// What one connection sent: the requests parsed from it, the bytes left over when it closed,
/// and the first grammar error, if any.
#[derive(Debug, Default, Clone)]
struct Capture {
    raw: Vec<u8>,
    requests: Vec<Request>,
    leftover: Vec<u8>,
    error: Option<String>,
}

/// A minimal valid answer; HTTP/1.0 and `Connection: close` requests are answered, then closed.
fn answer(r: &Request) -> (Vec<u8>, bool) {
    let close = r.version == "HTTP/1.0"
        || r.header("connection")
            .iter()
            .any(|v| v.eq_ignore_ascii_case("close"));
    let version = if r.version == "HTTP/1.0" {
        "HTTP/1.0"
    } else {
        "HTTP/1.1"
    };
    let bytes = format!(
        "{version} 200 OK\r\nContent-Length: 2\r\n{}\r\nok",
        if close { "Connection: close\r\n" } else { "" }
    );
    (bytes.into_bytes(), close)
}

fn http1_connection(mut stream: TcpStream) -> Capture {
    let mut c = Capture::default();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    'read: loop {
        let n = match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        c.raw.extend_from_slice(&chunk[..n]);
        buf.extend_from_slice(&chunk[..n]);
        loop {
            match parse_request(&buf) {
                Ok(None) => break,
                Ok(Some((r, used))) => {
                    buf.drain(..used);
                    let (bytes, close) = answer(&r);
                    c.requests.push(r);
                    if stream.write_all(&bytes).is_err() || close {
                        break 'read;
                    }
                }
                Err(e) => {
                    c.error = Some(e);
                    break 'read;
                }
            }
        }
    }
    c.leftover = buf;
    c
}

/// A raw server recording every connection; `serve` handles one connection to its end.
struct RawServer {
    addr: SocketAddr,
    captures: Arc<Mutex<Vec<Capture>>>,
    accepted: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl RawServer {
    fn start(serve: fn(TcpStream) -> Capture) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let captures = Arc::new(Mutex::new(Vec::new()));
        let accepted = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (caps, acc, halt) = (captures.clone(), accepted.clone(), stop.clone());
        thread::spawn(move || {
            while !halt.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        acc.fetch_add(1, Ordering::SeqCst);
                        stream.set_nonblocking(false).unwrap();
                        stream
                            .set_read_timeout(Some(Duration::from_secs(10)))
                            .unwrap();
                        let caps = caps.clone();
                        thread::spawn(move || {
                            let c = serve(stream);
                            caps.lock().unwrap().push(c);
                        });
                    }
                    Err(_) => thread::sleep(Duration::from_millis(2)),
                }
            }
        });
        Self {
            addr,
            captures,
            accepted,
            stop,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Every connection's capture, once the `opened` connections the generator counted have been
    /// accepted and closed.
    fn captures(&self, opened: u64) -> Vec<Capture> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let done = self.captures.lock().unwrap().len();
            let accepted = self.accepted.load(Ordering::SeqCst);
            let all = accepted as u64 >= opened && done >= accepted;
            if all || Instant::now() > deadline {
                return self.captures.lock().unwrap().clone();
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn spec(url: &str, requests: u64) -> LoadSpec {
    let mut s = LoadSpec::get(Target::parse(url).unwrap());
    s.connections = 2;
    s.threads = 1;
    s.stop = StopAt::Requests(requests);
    s.timeout = Duration::from_secs(5);
    s
}

/// Runs `s` against a raw HTTP/1 server and returns every request, each checked by the grammar;
/// no connection may leave bytes that are not a whole request.
fn captured(s: &LoadSpec, server: &RawServer) -> (Vec<Capture>, Vec<Request>) {
    let r = run(s);
    assert_eq!(r.errors.total(), 0, "{:?}", r.errors);
    let captures = server.captures(r.connections_opened);
    for c in &captures {
        assert_eq!(c.error, None, "grammar broken in {:?}", text(&c.raw));
        assert!(
            c.leftover.is_empty(),
            "bytes that are no whole request: {:?}",
            text(&c.leftover)
        );
    }
    let requests: Vec<Request> = captures.iter().flat_map(|c| c.requests.clone()).collect();
    assert_eq!(
        requests.len() as u64,
        r.requests,
        "every answer had a request"
    );
    (captures, requests)
}

fn host_of(server: &RawServer) -> String {
    server.addr.to_string()
}

#[test]
fn keepalive_requests_follow_the_grammar_and_share_connections() {
    let _turn = turn::take(module_path!());
    let server = RawServer::start(http1_connection);
    let s = spec(&server.url("/plaintext?x=1"), 40);
    let (captures, requests) = captured(&s, &server);
    assert_eq!(captures.len(), 2, "one connection each, kept alive");
    for r in &requests {
        assert_eq!(
            (r.method.as_str(), r.target.as_str(), r.version.as_str()),
            ("GET", "/plaintext?x=1", "HTTP/1.1")
        );
        assert_eq!(r.header("host"), [host_of(&server).as_str()]);
        assert!(r.header("connection").is_empty(), "{:?}", r.headers);
        assert!(r.header("content-length").is_empty() && r.body.is_empty());
    }
}

/// The requests each connection carried, leaving out one opened too late to carry any.
fn carried(captures: &[Capture]) -> Vec<usize> {
    captures
        .iter()
        .map(|c| c.requests.len())
        .filter(|&n| n > 0)
        .collect()
}

#[test]
fn requests_per_connection_closes_each_connection_after_its_answers() {
    let _turn = turn::take(module_path!());
    let server = RawServer::start(http1_connection);
    let mut s = spec(&server.url("/"), 100);
    s.requests_per_connection = Some(10);
    let r = run(&s);
    assert_eq!((r.requests, r.errors.total()), (100, 0), "{:?}", r.errors);
    // Every connection carries ten, but the last permits may be split between the two open
    // connections (ten connections, or eleven with two partly used).
    assert!(
        (10..=11).contains(&r.connections_opened),
        "{}",
        r.connections_opened
    );
    let captures = server.captures(r.connections_opened);
    let per = carried(&captures);
    assert_eq!(per.iter().sum::<usize>(), 100, "{per:?}");
    assert!(per.iter().all(|&n| n <= 10), "{per:?}");
    assert!(per.iter().filter(|&&n| n == 10).count() >= 9, "{per:?}");
    for c in &captures {
        // The client closes: it does not ask the server to.
        assert!(c.requests.iter().all(|q| q.header("connection").is_empty()));
    }
    // Connects are timed apart from the requests.
    let connects = r.settings.requests_per_connection.and(r.connect_us);
    assert!(connects.is_some(), "{r:?}");

    // A count that is no multiple: the last connections carry the rest; pipelining never
    // puts more than N on one connection.
    let server = RawServer::start(http1_connection);
    let mut s = spec(&server.url("/"), 105);
    s.requests_per_connection = Some(10);
    s.pipeline = 4;
    let r = run(&s);
    assert_eq!((r.requests, r.errors.total()), (105, 0), "{:?}", r.errors);
    let captures = server.captures(r.connections_opened);
    let per = carried(&captures);
    assert_eq!(per.iter().sum::<usize>(), 105, "{per:?}");
    assert!(per.iter().all(|&n| n <= 10), "{per:?}");
    assert!(captures.len() >= 11, "{per:?}");
}

#[test]
fn a_path_mix_sends_each_connection_down_the_order_from_its_own_offset() {
    let _turn = turn::take(module_path!());
    let server = RawServer::start(http1_connection);
    let mut s = spec(&server.url("/first"), 60);
    let paths: Vec<String> = ["/a", "/b", "/c"].map(String::from).to_vec();
    let order = vec![0u16, 0, 1, 2, 1, 0, 2, 2, 0, 1];
    s.path_mix = Some(Arc::new(PathMix {
        paths: paths.clone(),
        order: order.clone(),
    }));
    let (captures, requests) = captured(&s, &server);
    // The spec's own path is never sent: the mix replaces it.
    assert!(
        requests.iter().all(|r| r.target != "/first"),
        "{requests:?}"
    );
    for c in captures.iter().filter(|c| !c.requests.is_empty()) {
        let sent: Vec<&str> = c.requests.iter().map(|r| r.target.as_str()).collect();
        let start = order.iter().enumerate().map(|(i, _)| i).find(|&i| {
            sent.iter()
                .enumerate()
                .all(|(k, t)| *t == paths[usize::from(order[(i + k) % order.len()])])
        });
        assert!(
            start.is_some(),
            "a connection strayed from the order: {sent:?}"
        );
    }
    let count = |p: &str| requests.iter().filter(|r| r.target == p).count();
    // 60 requests walk the ten-draw order six times over: a 4:3:3 split.
    assert_eq!((count("/a"), count("/b"), count("/c")), (24, 18, 18));

    let mut bad = spec(&server.url("/"), 10);
    bad.path_mix = Some(Arc::new(PathMix {
        paths: vec!["/a".into()],
        order: vec![1],
    }));
    assert!(
        bad.validate()
            .unwrap_err()
            .to_string()
            .contains("does not have")
    );
    bad.path_mix = Some(Arc::new(PathMix {
        paths: vec!["/a b".into()],
        order: vec![0],
    }));
    assert!(bad.validate().unwrap_err().to_string().contains("no space"));
    bad.path_mix = Some(Arc::new(PathMix {
        paths: vec!["/a".into()],
        order: vec![0],
    }));
    bad.pipeline = 2;
    assert!(
        bad.validate()
            .unwrap_err()
            .to_string()
            .contains("one request in flight")
    );
}

#[test]
fn requests_per_connection_refuses_what_it_cannot_mean() {
    let mut s = spec("http://127.0.0.1:1/", 10);
    s.requests_per_connection = Some(0);
    assert!(s.validate().unwrap_err().to_string().contains("at least 1"));
    s.requests_per_connection = Some(10);
    s.keepalive = false;
    assert!(
        s.validate()
            .unwrap_err()
            .to_string()
            .contains("needs keep-alive HTTP/1.1")
    );
    s.keepalive = true;
    s.http_version = HttpVersion::Http2;
    assert!(s.validate().unwrap_err().to_string().contains("HTTP/1.1's"));
    s.http_version = HttpVersion::Http11;
    assert!(s.validate().is_ok());
}

#[test]
fn no_keepalive_sends_connection_close_and_opens_one_connection_per_request() {
    let _turn = turn::take(module_path!());
    let server = RawServer::start(http1_connection);
    let mut s = spec(&server.url("/"), 12);
    s.keepalive = false;
    let (captures, requests) = captured(&s, &server);
    assert_eq!(captures.len(), 12, "a connection per request");
    for c in &captures {
        assert_eq!(c.requests.len(), 1);
    }
    for r in &requests {
        assert_eq!(r.version, "HTTP/1.1");
        assert_eq!(r.header("connection"), ["close"]);
    }
}

#[test]
fn http10_sends_an_http10_request_line_and_no_keepalive() {
    let _turn = turn::take(module_path!());
    let server = RawServer::start(http1_connection);
    let mut s = spec(&server.url("/plaintext"), 10);
    s.http_version = HttpVersion::Http10;
    let (captures, requests) = captured(&s, &server);
    assert_eq!(
        captures.len(),
        10,
        "HTTP/1.0 without keep-alive: a connection each"
    );
    for r in &requests {
        assert_eq!(r.version, "HTTP/1.0");
        assert!(
            r.header("connection").is_empty(),
            "no Connection header: HTTP/1.0 closes by default ({:?})",
            r.headers
        );
    }
}

#[test]
fn pipelined_requests_are_back_to_back_and_each_whole() {
    let _turn = turn::take(module_path!());
    let server = RawServer::start(http1_connection);
    let mut s = spec(&server.url("/p"), 64);
    s.connections = 1;
    s.pipeline = 8;
    let (captures, requests) = captured(&s, &server);
    assert_eq!(captures.len(), 1);
    assert_eq!(requests.len(), 64);
    // The captured stream is exactly the requests, one after the other.
    let one = &captures[0].raw;
    let each = one.len() / 64;
    assert_eq!(one.len(), each * 64, "every request has the same bytes");
    assert!(one.chunks(each).all(|r| r == &one[..each]));
}

#[test]
fn a_post_body_is_exactly_content_length_bytes() {
    let _turn = turn::take(module_path!());
    let server = RawServer::start(http1_connection);
    let body = br#"{"name":"restbench","n":[1,2,3]}"#.to_vec();
    let mut s = spec(&server.url("/echo"), 20);
    s.method = "POST".into();
    s.headers = vec![
        ("Content-Type".into(), "application/json".into()),
        // A caller's own length is replaced by the real one, never sent twice.
        ("Content-Length".into(), "999".into()),
    ];
    s.body = body.clone();
    s.pipeline = 2;
    let (_, requests) = captured(&s, &server);
    for r in &requests {
        assert_eq!(r.method, "POST");
        assert_eq!(
            r.header("content-length"),
            [body.len().to_string().as_str()]
        );
        assert_eq!(r.header("content-type"), ["application/json"]);
        assert_eq!(r.body, body);
    }
    // An empty POST still says its length (RFC 9110 §8.6: a POST without a body sends 0).
    let server = RawServer::start(http1_connection);
    let mut s = spec(&server.url("/echo"), 4);
    s.method = "POST".into();
    let (_, requests) = captured(&s, &server);
    assert!(requests.iter().all(|r| r.header("content-length") == ["0"]));
}

#[test]
fn a_callers_headers_go_out_once_and_a_host_of_its_own_replaces_ours() {
    let _turn = turn::take(module_path!());
    let server = RawServer::start(http1_connection);
    let mut s = spec(&server.url("/"), 6);
    s.headers = vec![
        ("host".into(), "example.test".into()),
        ("X-Trace".into(), "a\tb, c=\"d\"".into()),
        ("Accept".into(), "*/*".into()),
    ];
    let (_, requests) = captured(&s, &server);
    for r in &requests {
        assert_eq!(r.header("host"), ["example.test"]);
        assert_eq!(r.header("x-trace"), ["a\tb, c=\"d\""]);
        assert_eq!(r.header("accept"), ["*/*"]);
    }
    // What the grammar forbids is refused before a byte is sent.
    for (name, value) in [
        ("X(a)", "b"),
        ("X-A", "b\x01"),
        ("Transfer-Encoding", "chunked"),
    ] {
        let mut s = spec(&server.url("/"), 1);
        s.headers = vec![(name.into(), value.into())];
        assert!(s.validate().is_err(), "{name}: {value:?}");
    }
}

#[test]
fn the_grammar_checker_refuses_what_the_rfc_refuses() {
    let _turn = turn::take(module_path!());
    let ok = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n";
    assert!(matches!(parse_request(ok), Ok(Some((_, n))) if n == ok.len()));
    for (bad, why) in [
        (&b"GET / HTTP/1.1\r\nHost: a\n\r\n"[..], "bare LF"),
        (b"GET  / HTTP/1.1\r\nHost: a\r\n\r\n", "two spaces"),
        (b"GET / HTTP/1.1\r\n\r\n", "no Host"),
        (b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "two Hosts"),
        (
            b"GET / HTTP/1.1\r\nHost : a\r\n\r\n",
            "space before the colon",
        ),
        (
            b"GET / HTTP/1.1\r\nHo st: a\r\n\r\n",
            "a name that is no token",
        ),
        (b"GET / HTTP/11\r\nHost: a\r\n\r\n", "a bad version"),
        (
            b"G(T / HTTP/1.1\r\nHost: a\r\n\r\n",
            "a method that is no token",
        ),
        (b"GET x HTTP/1.1\r\nHost: a\r\n\r\n", "not origin-form"),
        (b"GET / HTTP/1.1\r\nHost: a\x01\r\n\r\n", "a control byte"),
        (
            b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx",
            "two lengths",
        ),
    ] {
        assert!(parse_request(bad).is_err(), "{why} accepted");
    }
    let partial = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nab";
    assert!(matches!(parse_request(partial), Ok(None)));
}

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const SETTINGS: u8 = 0x4;
const HEADERS: u8 = 0x1;
const WINDOW_UPDATE: u8 = 0x8;
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const ACK: u8 = 0x1;

fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = payload.len() as u32;
    let mut f = len.to_be_bytes()[1..].to_vec();
    f.extend_from_slice(&[kind, flags]);
    f.extend_from_slice(&stream.to_be_bytes());
    f.extend_from_slice(payload);
    f
}

/// One HTTP/2 frame: type, flags, stream, payload.
type Frame = (u8, u8, u32, Vec<u8>);

/// RFC 9113 §4.1 frame headers over `bytes`: the whole frames and how many bytes they took.
fn frames(mut bytes: &[u8]) -> Result<(Vec<Frame>, usize), String> {
    let mut out = Vec::new();
    let mut used = 0;
    while bytes.len() >= 9 {
        let len = u32::from_be_bytes([0, bytes[0], bytes[1], bytes[2]]) as usize;
        if len > 16_384 {
            return Err(format!(
                "a frame of {len} bytes over the default SETTINGS_MAX_FRAME_SIZE"
            ));
        }
        if bytes.len() < 9 + len {
            break;
        }
        let stream = u32::from_be_bytes([bytes[5], bytes[6], bytes[7], bytes[8]]);
        if stream & 0x8000_0000 != 0 {
            return Err("the reserved bit of a stream id is set".into());
        }
        out.push((bytes[3], bytes[4], stream, bytes[9..9 + len].to_vec()));
        bytes = &bytes[9 + len..];
        used += 9 + len;
    }
    Ok((out, used))
}

/// RFC 9113 §6.5: a SETTINGS frame on stream 0, six bytes per setting, each value in range.
fn check_settings(flags: u8, stream: u32, payload: &[u8]) -> Result<(), String> {
    if stream != 0 {
        return Err("SETTINGS on a stream other than 0".into());
    }
    if flags & ACK != 0 {
        return if payload.is_empty() {
            Ok(())
        } else {
            Err("a SETTINGS ACK with a payload".into())
        };
    }
    if !payload.len().is_multiple_of(6) {
        return Err(format!("a SETTINGS payload of {} bytes", payload.len()));
    }
    for s in payload.chunks_exact(6) {
        let id = u16::from_be_bytes([s[0], s[1]]);
        let v = u32::from_be_bytes([s[2], s[3], s[4], s[5]]);
        let ok = match id {
            0x2 => v <= 1,                             // ENABLE_PUSH
            0x4 => v <= 0x7fff_ffff,                   // INITIAL_WINDOW_SIZE
            0x5 => (16_384..=16_777_215).contains(&v), // MAX_FRAME_SIZE
            0x1 | 0x3 | 0x6 => true,
            _ => false, // no unknown settings from our own client
        };
        if !ok {
            return Err(format!("setting {id:#x} = {v} out of range"));
        }
    }
    Ok(())
}

/// An h2c server as small as a client allows: checks the preface and the client's first frame,
/// sends an empty SETTINGS, acks the client's, answers each request stream with `:status 200`.
fn h2c_connection(mut stream: TcpStream) -> Capture {
    let mut c = Capture::default();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    let mut greeted = false;
    let mut first_frame = true;
    let mut last_stream = 0;
    if stream.write_all(&frame(SETTINGS, 0, 0, &[])).is_err() {
        return c;
    }
    loop {
        let n = match stream.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        c.raw.extend_from_slice(&chunk[..n]);
        buf.extend_from_slice(&chunk[..n]);
        if !greeted {
            if buf.len() < PREFACE.len() {
                continue;
            }
            if &buf[..PREFACE.len()] != PREFACE {
                c.error = Some(format!("not the preface: {:?}", text(&buf)));
                break;
            }
            buf.drain(..PREFACE.len());
            greeted = true;
        }
        let (parsed, used) = match frames(&buf) {
            Ok(f) => f,
            Err(e) => {
                c.error = Some(e);
                break;
            }
        };
        buf.drain(..used);
        let mut reply = Vec::new();
        for (kind, flags, sid, payload) in parsed {
            if first_frame && kind != SETTINGS {
                c.error = Some(format!("the first frame is of type {kind}, not SETTINGS"));
            }
            if first_frame && flags & ACK != 0 {
                c.error = Some("the first SETTINGS is an ACK".into());
            }
            first_frame = false;
            let checked = match kind {
                SETTINGS => {
                    if flags & ACK == 0 {
                        reply.extend(frame(SETTINGS, ACK, 0, &[]));
                    }
                    check_settings(flags, sid, &payload)
                }
                WINDOW_UPDATE if payload.len() != 4 => Err("a WINDOW_UPDATE not 4 bytes".into()),
                WINDOW_UPDATE if u32::from_be_bytes(payload[..4].try_into().unwrap()) == 0 => {
                    Err("a WINDOW_UPDATE of 0".into())
                }
                HEADERS if sid % 2 == 0 || sid <= last_stream => Err(format!(
                    "stream {sid} after {last_stream}: not odd and rising"
                )),
                HEADERS if flags & END_HEADERS == 0 || flags & END_STREAM == 0 => {
                    Err("a GET's HEADERS without END_HEADERS and END_STREAM".into())
                }
                HEADERS => {
                    last_stream = sid;
                    c.requests.push(Request {
                        method: "GET".into(),
                        target: String::new(),
                        version: "HTTP/2".into(),
                        headers: Vec::new(),
                        body: Vec::new(),
                    });
                    // HPACK static index 8: `:status: 200`.
                    reply.extend(frame(HEADERS, END_HEADERS | END_STREAM, sid, &[0x88]));
                    Ok(())
                }
                _ => Ok(()),
            };
            if let Err(e) = checked {
                c.error.get_or_insert(e);
            }
        }
        if c.error.is_some() || stream.write_all(&reply).is_err() {
            break;
        }
    }
    c.leftover = buf;
    c
}

#[test]
fn h2c_starts_with_the_preface_and_a_settings_frame_that_parses() {
    let _turn = turn::take(module_path!());
    let server = RawServer::start(h2c_connection);
    let mut s = spec(&server.url("/plaintext"), 30);
    s.http_version = HttpVersion::Http2;
    s.max_streams = 4;
    let r = run(&s);
    assert_eq!((r.requests, r.errors.total()), (30, 0), "{:?}", r.errors);
    let captures = server.captures(r.connections_opened);
    assert_eq!(captures.len(), 2, "{} opened", r.connections_opened);
    for c in &captures {
        assert_eq!(c.error, None, "{:?}", c.raw);
        assert!(c.raw.starts_with(PREFACE));
        // The client's SETTINGS right after the preface: 9-byte header, type 4, stream 0, a
        // length that is a multiple of 6 and covers the settings it carries.
        let f = &c.raw[PREFACE.len()..];
        let len = u32::from_be_bytes([0, f[0], f[1], f[2]]) as usize;
        assert_eq!((f[3], f[4], &f[5..9]), (SETTINGS, 0, &[0u8; 4][..]));
        assert_eq!(len % 6, 0);
        check_settings(f[4], 0, &f[9..9 + len]).unwrap();
        assert!(c.leftover.is_empty(), "a partial frame: {:?}", c.leftover);
    }
    let answered: usize = captures.iter().map(|c| c.requests.len()).sum();
    assert_eq!(answered, 30);
}
