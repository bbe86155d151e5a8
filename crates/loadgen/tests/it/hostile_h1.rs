//! Hostile HTTP/1.1 servers against the engine (issue 26): answers whose head or trailers never
//! end, written as fast as the socket takes them. The per-request timeout must end each such
//! answer and the run must end at `-d`, however readable the socket stays. One row per case.

use std::io::{Read, Write};
use std::net::TcpStream;

use restbench_loadgen::LoadSpec;
use restbench_testkit::turn;

use crate::support::hostile::{Case, Verdict, check_all, short_load};

const TIMEOUT: Verdict = Verdict {
    class: "timeout",
    max_connections: None,
    max_write_queue: None,
};

const CASES: &[Case] = &[
    Case {
        name: "endless trailers after the last chunk",
        server: endless_trailers,
        spec: two_seconds_timeout_one,
        expect: TIMEOUT,
    },
    Case {
        name: "endless 100 Continue answers",
        server: endless_continue,
        spec: two_seconds_timeout_one,
        expect: TIMEOUT,
    },
    Case {
        name: "endless 103 Early Hints with a header each",
        server: endless_early_hints,
        spec: two_seconds_timeout_one,
        expect: TIMEOUT,
    },
];

#[test]
fn hostile_h1_servers() {
    let _turn = turn::take(module_path!());
    check_all(CASES);
}

fn two_seconds_timeout_one(url: &str) -> LoadSpec {
    short_load(url, 1, 2, 1_000)
}

/// Reads the request head, writes `head`, then `unit` again and again (in batches) until the
/// client goes away.
fn after_request(mut s: TcpStream, head: &[u8], unit: &[u8]) {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    let batch = unit.repeat(4096);
    if s.write_all(head).is_ok() {
        while s.write_all(&batch).is_ok() {}
    }
}

fn endless_trailers(s: TcpStream) {
    after_request(
        s,
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n",
        b"X-Trailer: yyyyyyyyyyyyyyyy\r\n",
    );
}

fn endless_continue(s: TcpStream) {
    after_request(s, b"", b"HTTP/1.1 100 Continue\r\n\r\n");
}

fn endless_early_hints(s: TcpStream) {
    after_request(
        s,
        b"",
        b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n",
    );
}
