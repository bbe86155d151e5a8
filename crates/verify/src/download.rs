//! `download`: GET /download/{n} answers n bytes where byte `i` is `i mod 256`, with a
//! `Content-Length` of n; a size beyond [`DOWNLOAD_MAX_BYTES`] or one that is not a number is
//! refused.

use restbench_model::{BODY_BYTES, DOWNLOAD_MAX_BYTES, Finding, download_bytes};

use super::answer::{TIMEOUT, envelope, snippet};
use super::transport;
use crate::http::Endpoint;

pub fn check(to: Endpoint) -> Vec<Finding> {
    let mut f = Vec::new();
    for n in [BODY_BYTES, 0, 1, 65_537, 1024 * 1024 + 3] {
        if !one(to, n, &mut f) {
            return f;
        }
    }
    for path in [
        format!("/download/{}", DOWNLOAD_MAX_BYTES + 1),
        "/download/lots".to_string(),
    ] {
        match transport::send(to, "GET", &path, &[], b"", TIMEOUT) {
            Ok(r) if r.status == 400 || r.status == 404 => f.push(Finding::pass(
                "refused",
                format!("GET {path} → {}", r.status),
            )),
            Ok(r) => f.push(Finding::fail(
                "refused",
                format!(
                    "GET {path} → {} with {} bytes (expected 400 or 404: sizes are whole bytes up to {DOWNLOAD_MAX_BYTES})",
                    r.status,
                    r.body.len()
                ),
            )),
            Err(e) => f.push(Finding::fail(
                "refused",
                format!("GET {path}: no answer ({e}); expected 400 or 404"),
            )),
        }
    }
    f
}

/// One size; false when there was no usable answer.
fn one(to: Endpoint, n: usize, f: &mut Vec<Finding>) -> bool {
    let path = format!("/download/{n}");
    let r = match transport::send(to, "GET", &path, &[], b"", TIMEOUT) {
        Ok(r) => r,
        Err(e) => {
            f.push(Finding::fail(
                "answer",
                format!("GET {path}: no answer ({e})"),
            ));
            return false;
        }
    };
    if !envelope(&r, &format!("GET {path}"), "application/octet-stream", f) {
        return false;
    }
    if let Some(len) = r.header("content-length")
        && len.trim() != n.to_string()
    {
        f.push(Finding::fail(
            "content-length",
            format!("GET {path}: Content-Length {len}, expected {n}"),
        ));
    }
    let expected = download_bytes(n);
    if r.body == expected {
        f.push(Finding::pass(
            "checksum",
            format!(
                "GET {path}: {n} bytes, CRC-32 {:08x}",
                crc32fast::hash(&r.body)
            ),
        ));
    } else {
        let at = r
            .body
            .iter()
            .zip(&expected)
            .position(|(a, b)| a != b)
            .map_or(String::new(), |i| format!(", first wrong byte at {i}"));
        f.push(Finding::fail(
            "checksum",
            format!(
                "GET {path}: {} bytes with CRC-32 {:08x}, expected {n} bytes (byte i = i mod 256) with CRC-32 {:08x}{at}: {}",
                r.body.len(),
                crc32fast::hash(&r.body),
                crc32fast::hash(&expected),
                snippet(&String::from_utf8_lossy(&r.body[..r.body.len().min(32)]))
            ),
        ));
    }
    true
}
