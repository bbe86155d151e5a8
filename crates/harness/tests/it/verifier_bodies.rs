//! The verifier's checks of HttpArena's body workloads (`static`, `json-gzip`, `upload`,
//! `download`) against a server started inside the test: correct, then with one fault at a
//! time, each failing with its reason.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use restbench_model::{Finding, StaticFile, download_bytes};
use restbench_testkit::{TinyServer, turn};
use restbench_verify as verify;
use restbench_verify::requests::Workload;

use crate::support::failed_checks;

/// How the test server deviates from the contract.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Flaw {
    None,
    /// One byte of data.json flipped on the way out.
    StaticWrongChecksum,
    /// A 304 that carries the file after its head.
    NotModifiedWithBody,
    /// The validator sent back is not honoured: the file again, never 304.
    NoNotModified,
    /// Files outside the tree served when the path climbs out.
    ServesOutsideTree,
    /// todo's document gzipped whatever Accept-Encoding says.
    GzipUnasked,
    /// Compressed without `Vary: Accept-Encoding`.
    NoVary,
    /// The CRC-32 of all but the last byte.
    UploadWrongChecksum,
    /// The length taken from Content-Length, not from the bytes read.
    UploadLengthFromHeader,
    /// Byte 1000 of every download wrong.
    DownloadWrongByte,
}

const ETAG: &str = "\"tree-v1\"";
const LAST_MODIFIED: &str = "Thu, 01 Jan 2026 00:00:00 GMT";

fn start(flaw: Flaw) -> TinyServer {
    TinyServer::serving(move |stream| handle(stream, flaw))
}

struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One request, its body read by Content-Length or by chunks.
fn read_request(s: &mut TcpStream) -> Option<Request> {
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = s.read(&mut chunk).ok().filter(|&n| n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split_whitespace();
    let (method, path) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut rest = buf[head_end + 4..].to_vec();
    let mut req = Request {
        method,
        path,
        headers,
        body: Vec::new(),
    };
    let mut more = |rest: &mut Vec<u8>, s: &mut TcpStream| -> Option<()> {
        let n = s.read(&mut chunk).ok().filter(|&n| n > 0)?;
        rest.extend_from_slice(&chunk[..n]);
        Some(())
    };
    if req
        .header("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        loop {
            while !rest.windows(2).any(|w| w == b"\r\n") {
                more(&mut rest, s)?;
            }
            let line_end = rest.windows(2).position(|w| w == b"\r\n")?;
            let size =
                usize::from_str_radix(std::str::from_utf8(&rest[..line_end]).ok()?, 16).ok()?;
            while rest.len() < line_end + 2 + size + 2 {
                more(&mut rest, s)?;
            }
            req.body
                .extend_from_slice(&rest[line_end + 2..line_end + 2 + size]);
            rest.drain(..line_end + 2 + size + 2);
            if size == 0 {
                break;
            }
        }
    } else {
        let len: usize = req
            .header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        while rest.len() < len {
            more(&mut rest, s)?;
        }
        rest.truncate(len);
        req.body = rest;
    }
    Some(req)
}

fn handle(mut s: TcpStream, flaw: Flaw) {
    let Some(req) = read_request(&mut s) else {
        return;
    };
    let path = req.path.clone();
    if let Some(name) = path.strip_prefix("/static/") {
        return serve_static(&mut s, &req, name, flaw);
    }
    if let Some(n) = path.strip_prefix("/download/") {
        return match n.parse::<usize>() {
            Ok(n) if n <= 10 * 1024 * 1024 => {
                let mut bytes = download_bytes(n);
                if flaw == Flaw::DownloadWrongByte && n > 1000 {
                    bytes[1000] ^= 0xff;
                }
                respond(
                    &mut s,
                    200,
                    &[("Content-Type", "application/octet-stream")],
                    &bytes,
                )
            }
            _ => respond(&mut s, 404, &[("Content-Type", "text/plain")], b"no"),
        };
    }
    match (req.method.as_str(), path.as_str()) {
        ("POST", "/upload") => {
            let read = match flaw {
                Flaw::UploadWrongChecksum => &req.body[..req.body.len().saturating_sub(1)],
                _ => &req.body[..],
            };
            let len = match flaw {
                Flaw::UploadLengthFromHeader => req
                    .header("content-length")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0),
                _ => req.body.len(),
            };
            let answer = format!("{len} {:08x}", crc32fast::hash(read));
            respond(
                &mut s,
                200,
                &[("Content-Type", "text/plain")],
                answer.as_bytes(),
            )
        }
        ("GET", "/rest/todo") => todo(&mut s, &req, flaw),
        _ => respond(&mut s, 404, &[("Content-Type", "text/plain")], b"not found"),
    }
}

fn serve_static(s: &mut TcpStream, req: &Request, name: &str, flaw: Flaw) {
    let Some(file) = StaticFile::named(name) else {
        if flaw == Flaw::ServesOutsideTree && name.contains("..") {
            return respond(
                s,
                200,
                &[("Content-Type", "text/plain")],
                b"id = \"secret\"",
            );
        }
        return respond(s, 404, &[("Content-Type", "text/plain")], b"no such file");
    };
    let mut body = file.contents();
    if flaw == Flaw::StaticWrongChecksum && file.name == "data.json" {
        body[4096] ^= 1;
    }
    let matches = req.header("if-none-match") == Some(ETAG)
        || req.header("if-modified-since") == Some(LAST_MODIFIED);
    let validators = [
        ("Content-Type", file.content_types[0]),
        ("ETag", ETAG),
        ("Last-Modified", LAST_MODIFIED),
    ];
    if matches && flaw != Flaw::NoNotModified {
        let head = format!(
            "HTTP/1.1 304 Not Modified\r\nETag: {ETAG}\r\nLast-Modified: {LAST_MODIFIED}\r\nDate: Sun, 29 Nov 2026 19:01:24 GMT\r\nConnection: close\r\n\r\n"
        );
        let _ = s.write_all(head.as_bytes());
        if flaw == Flaw::NotModifiedWithBody {
            let _ = s.write_all(&body);
        }
        return;
    }
    respond(s, 200, &validators, &body)
}

fn todo(s: &mut TcpStream, req: &Request, flaw: Flaw) {
    let items: Vec<_> = restbench_verify::payloads::TODO_TITLES
        .iter()
        .map(|t| serde_json::json!({"title": t, "createdAt": "2026-11-29T19:01:24.123Z"}))
        .collect();
    let json = serde_json::to_vec(&items).unwrap();
    let asks = req
        .header("accept-encoding")
        .is_some_and(|a| a.split(',').any(|e| e.trim() == "gzip"));
    if asks || flaw == Flaw::GzipUnasked {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&json).unwrap();
        let body = gz.finish().unwrap();
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("Content-Encoding", "gzip"),
        ];
        if flaw != Flaw::NoVary {
            headers.push(("Vary", "Accept-Encoding"));
        }
        return respond(s, 200, &headers, &body);
    }
    respond(
        s,
        200,
        &[
            ("Content-Type", "application/json"),
            ("Vary", "Accept-Encoding"),
        ],
        &json,
    )
}

fn respond(s: &mut TcpStream, status: u16, headers: &[(&str, &str)], body: &[u8]) {
    let mut head = format!("HTTP/1.1 {status} X\r\n");
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nDate: Sun, 29 Nov 2026 19:01:24 GMT\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(body);
}

fn check(flaw: Flaw, w: Workload) -> Vec<Finding> {
    let server = start(flaw);
    verify::workload(server.addr(), w, None)
}

/// The failed checks of `w` against a server with `flaw`: at least one, each `check: message`.
fn failures(flaw: Flaw, w: Workload) -> Vec<String> {
    let failed = failed_checks(&check(flaw, w));
    assert!(!failed.is_empty(), "{flaw:?} on {w} passed");
    failed
}

#[test]
fn a_correct_server_passes_static_json_gzip_upload_and_download() {
    let _turn = turn::take(module_path!());
    for w in [
        Workload::Static,
        Workload::JsonGzip,
        Workload::Upload,
        Workload::Download,
    ] {
        let f = check(Flaw::None, w);
        assert!(verify::passed(&f), "{w}: {:?}", failed_checks(&f));
    }
}

#[test]
fn a_static_file_with_a_wrong_byte_fails_its_checksum() {
    let _turn = turn::take(module_path!());
    let failed = failures(Flaw::StaticWrongChecksum, Workload::Static);
    assert!(
        failed
            .iter()
            .any(|m| m.starts_with("checksum: GET /static/data.json")
                && m.contains("first difference at byte 4096")),
        "{failed:?}"
    );
    assert_eq!(failed.len(), 1, "only data.json is wrong: {failed:?}");
}

#[test]
fn a_304_with_a_body_fails() {
    let _turn = turn::take(module_path!());
    let failed = failures(Flaw::NotModifiedWithBody, Workload::Static);
    assert!(
        failed
            .iter()
            .any(|m| m.starts_with("not-modified:") && m.contains("304 with 1024 bytes of body")),
        "{failed:?}"
    );
}

#[test]
fn a_validator_that_never_gets_304_fails() {
    let _turn = turn::take(module_path!());
    let failed = failures(Flaw::NoNotModified, Workload::Static);
    assert!(
        failed
            .iter()
            .any(|m| m.starts_with("not-modified:") && m.contains("→ 200 (expected 304")),
        "{failed:?}"
    );
}

#[test]
fn a_file_outside_the_tree_fails() {
    let _turn = turn::take(module_path!());
    let failed = failures(Flaw::ServesOutsideTree, Workload::Static);
    assert!(
        failed
            .iter()
            .any(|m| m.starts_with("outside: GET /static/../subject.toml → 200")),
        "{failed:?}"
    );
}

#[test]
fn gzip_sent_unasked_fails() {
    let _turn = turn::take(module_path!());
    let failed = failures(Flaw::GzipUnasked, Workload::JsonGzip);
    assert!(
        failed.iter().any(|m| m.starts_with("encoding:")
            && m.contains("without Accept-Encoding: Content-Encoding gzip")
            && m.contains("compressed unasked")),
        "{failed:?}"
    );
}

#[test]
fn compression_without_vary_fails() {
    let _turn = turn::take(module_path!());
    let failed = failures(Flaw::NoVary, Workload::JsonGzip);
    assert!(failed.iter().all(|m| m.starts_with("vary:")), "{failed:?}");
}

#[test]
fn an_upload_with_a_wrong_checksum_fails() {
    let _turn = turn::take(module_path!());
    let failed = failures(Flaw::UploadWrongChecksum, Workload::Upload);
    assert!(
        failed
            .iter()
            .any(|m| m.starts_with("checksum: POST /upload of the load's 100 KB body")),
        "{failed:?}"
    );
}

#[test]
fn an_upload_answered_from_content_length_fails_when_chunked() {
    let _turn = turn::take(module_path!());
    let failed = failures(Flaw::UploadLengthFromHeader, Workload::Upload);
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(
        failed[0].starts_with("checksum: POST /upload of a chunked 12 KB body"),
        "{failed:?}"
    );
}

#[test]
fn a_download_with_a_wrong_byte_fails() {
    let _turn = turn::take(module_path!());
    let failed = failures(Flaw::DownloadWrongByte, Workload::Download);
    assert!(
        failed
            .iter()
            .any(|m| m.starts_with("checksum: GET /download/102400")
                && m.contains("first wrong byte at 1000")),
        "{failed:?}"
    );
}
