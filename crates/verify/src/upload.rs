//! `upload`: POST /upload answers the body's length and CRC-32 as `{len} {crc:08x}`, computed from
//! the bytes it read: random bodies (no answer can be known before reading them), an empty one,
//! one sent chunked (no `Content-Length` to copy), and the load's own 100 KB.

use restbench_model::{BODY_BYTES, Finding, Workload, pseudo_random_bytes};

use super::answer::{TIMEOUT, envelope, snippet};
use super::transport;
use crate::http::{self, Endpoint};
use crate::requests;

/// Bytes per chunk of the chunked upload.
const CHUNK: usize = 4096;

pub fn check(to: Endpoint) -> Vec<Finding> {
    let mut f = Vec::new();
    let fresh = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(7, |d| d.as_nanos() as u64);
    let bodies = [
        ("the load's 100 KB body", requests::body(Workload::Upload)),
        (
            "a fresh random 100 KB body",
            pseudo_random_bytes(fresh, BODY_BYTES),
        ),
        ("a 17-byte body", b"Hello, restbench!".to_vec()),
        ("an empty body", Vec::new()),
    ];
    for (what, body) in &bodies {
        let r = transport::send(
            to,
            "POST",
            "/upload",
            &[("Content-Type", "application/octet-stream")],
            body,
            TIMEOUT,
        );
        if !judge(what, r, body, &mut f) {
            return f;
        }
    }
    // Chunked framing is HTTP/1.1's; over h2c every body is framed by DATA frames already.
    if to.protocol == restbench_model::Protocol::H1 {
        let body = pseudo_random_bytes(fresh ^ 0x5a5a, 3 * CHUNK + 17);
        let r = http::exchange(to.addr, &chunked_upload(&body), TIMEOUT);
        judge("a chunked 12 KB body (no Content-Length)", r, &body, &mut f);
    }
    f
}

/// The answer `{len} {crc}` to one body; false when there was no usable answer.
fn judge(
    what: &str,
    answer: Result<http::Response, http::HttpError>,
    body: &[u8],
    f: &mut Vec<Finding>,
) -> bool {
    let r = match answer {
        Ok(r) => r,
        Err(e) => {
            f.push(Finding::fail(
                "answer",
                format!("POST /upload of {what}: no answer ({e})"),
            ));
            return false;
        }
    };
    if !envelope(&r, &format!("POST /upload of {what}"), "text/plain", f) {
        return false;
    }
    let expected = expected_answer(body);
    let text = r.body_text();
    if text.trim() == expected {
        f.push(Finding::pass(
            "checksum",
            format!("POST /upload of {what} → {expected}"),
        ));
    } else {
        f.push(Finding::fail(
            "checksum",
            format!(
                "POST /upload of {what} → {:?}, expected {expected:?} (its length, a space, its CRC-32 in 8 lowercase hex digits)",
                snippet(&text)
            ),
        ));
    }
    true
}

/// What a body must be answered with.
pub fn expected_answer(body: &[u8]) -> String {
    format!("{} {:08x}", body.len(), crc32fast::hash(body))
}

fn chunked_upload(body: &[u8]) -> Vec<u8> {
    let mut out = b"POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for chunk in body.chunks(CHUNK) {
        out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        out.extend_from_slice(chunk);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_the_length_and_zlibs_crc32() {
        assert_eq!(expected_answer(b"hello"), "5 3610a686");
        assert_eq!(expected_answer(b""), "0 00000000");
        let up = chunked_upload(&[b'x'; 4097]);
        let text = String::from_utf8(up).unwrap();
        assert!(text.contains("chunked\r\n\r\n1000\r\nxxx"), "{text:.200}");
        assert!(text.ends_with("x\r\n1\r\nx\r\n0\r\n\r\n"));
    }
}
