//! Hostile HTTP/2 servers against the engine (issue 26): floods of frames that each make us owe
//! an answer while the server reads nothing, a header block that never ends, and GOAWAY on every
//! connection before any stream. One row per case with its verdict; every server is made here,
//! writing raw frames as fast as the socket takes them.

use std::io::{Read, Write};
use std::net::TcpStream;

use restbench_loadgen::h2::CONTROL_QUEUE_BYTES;
use restbench_loadgen::{HttpVersion, LoadSpec};
use restbench_testkit::turn;

use crate::support::hostile::{Case, Verdict, check_all, short_load};

/// A write queue's bound for a one-stream GET: the control room and the request, generously.
const QUEUE_BOUND: usize = CONTROL_QUEUE_BYTES + 4096;

const CASES: &[Case] = &[
    Case {
        name: "SETTINGS flood, never reads: a protocol error, the queue bounded",
        server: settings_flood,
        spec: one_second,
        expect: Verdict {
            class: "protocol",
            max_connections: None,
            max_write_queue: Some(QUEUE_BOUND),
        },
    },
    Case {
        name: "PING flood, never reads: a protocol error, the queue bounded",
        server: ping_flood,
        spec: one_second,
        expect: Verdict {
            class: "protocol",
            max_connections: None,
            max_write_queue: Some(QUEUE_BOUND),
        },
    },
    Case {
        name: "empty CONTINUATION frames for ever: -d and --timeout hold",
        server: continuation_flood,
        spec: two_seconds_timeout_one,
        expect: Verdict {
            class: "timeout",
            max_connections: None,
            max_write_queue: Some(QUEUE_BOUND),
        },
    },
    Case {
        name: "GOAWAY with last id 0 on every connection: counted, and backed off",
        server: goaway_at_once,
        spec: two_connections,
        // Backed off from 10 ms doubling, each of two connections reconnects about 8 times in
        // 2 s; without a backoff it is hundreds.
        expect: Verdict {
            class: "connect",
            max_connections: Some(60),
            max_write_queue: None,
        },
    },
];

#[test]
fn hostile_h2_servers() {
    let _turn = turn::take(module_path!());
    check_all(CASES);
}

fn h2(mut s: LoadSpec) -> LoadSpec {
    s.http_version = HttpVersion::Http2;
    s
}

fn one_second(url: &str) -> LoadSpec {
    h2(short_load(url, 1, 1, 10_000))
}

fn two_seconds_timeout_one(url: &str) -> LoadSpec {
    h2(short_load(url, 1, 2, 1_000))
}

fn two_connections(url: &str) -> LoadSpec {
    h2(short_load(url, 2, 2, 1_000))
}

// The servers. Each returns when the client goes away (a write fails).

fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let mut v = (payload.len() as u32).to_be_bytes()[1..].to_vec();
    v.extend_from_slice(&[kind, flags]);
    v.extend_from_slice(&stream.to_be_bytes());
    v.extend_from_slice(payload);
    v
}

const SETTINGS: u8 = 4;
const HEADERS: u8 = 1;
const PING: u8 = 6;
const GOAWAY: u8 = 7;
const CONTINUATION: u8 = 9;

/// Writes `prefix`, then `unit` again and again (in batches) until the client goes away.
fn flood(mut s: TcpStream, prefix: &[u8], unit: &[u8]) {
    let batch = unit.repeat(4096);
    if s.write_all(prefix).is_ok() {
        while s.write_all(&batch).is_ok() {}
    }
}

fn settings_flood(s: TcpStream) {
    flood(s, &[], &frame(SETTINGS, 0, 0, &[]));
}

fn ping_flood(s: TcpStream) {
    flood(
        s,
        &frame(SETTINGS, 0, 0, &[]),
        &frame(PING, 0, 0, b"12345678"),
    );
}

/// A HEADERS frame without END_HEADERS for stream 1, then empty CONTINUATION frames; what the
/// client writes is read (and dropped), so only the reading side is flooded.
fn continuation_flood(s: TcpStream) {
    if let Ok(mut reader) = s.try_clone() {
        std::thread::spawn(move || {
            let mut buf = [0u8; 16 * 1024];
            while matches!(reader.read(&mut buf), Ok(n) if n > 0) {}
        });
    }
    let mut prefix = frame(SETTINGS, 0, 0, &[]);
    prefix.extend(frame(HEADERS, 0, 1, &[0x88]));
    flood(s, &prefix, &frame(CONTINUATION, 0, 1, &[]));
}

fn goaway_at_once(mut s: TcpStream) {
    let mut bytes = frame(SETTINGS, 0, 0, &[]);
    bytes.extend(frame(GOAWAY, 0, 0, &[0; 8]));
    let _ = s.write_all(&bytes);
}
