//! `json-gzip`: todo's document compressed when, and only when, `Accept-Encoding` asks: gzip for
//! `gzip`, gzip or br for the load's `gzip, br`, nothing for no header or `identity` (a server
//! that compresses unasked fails), `Vary: Accept-Encoding` on what it compresses, and the
//! decoded body the same document as `todo`'s. Decoding is bounded: a server cannot make
//! restbench inflate without end.

use std::io::Read;

use restbench_model::{Finding, JSON_GZIP_ACCEPT, Workload};

use super::answer::{TIMEOUT, envelope};
use super::{todo, transport};
use crate::http::{Endpoint, Response};

/// The most bytes a decoded answer may have: todo's document is about 500.
const DECODED_LIMIT: u64 = 1024 * 1024;

/// What each request may be answered with: `None` is identity.
const CASES: [(Option<&str>, &[&str]); 5] = [
    (None, &[]),
    (Some("identity"), &[]),
    (Some("gzip"), &["gzip"]),
    (Some(JSON_GZIP_ACCEPT), &["gzip", "br"]),
    (Some("br"), &["br", ""]),
];

pub fn check(to: Endpoint) -> Vec<Finding> {
    let mut f = Vec::new();
    let path = Workload::JsonGzip.path();
    for (accept, allowed) in CASES {
        let headers: Vec<(&str, &str)> =
            accept.map(|a| ("Accept-Encoding", a)).into_iter().collect();
        let what = match accept {
            Some(a) => format!("GET {path} with Accept-Encoding: {a}"),
            None => format!("GET {path} without Accept-Encoding"),
        };
        let r = match transport::send(to, "GET", path, &headers, b"", TIMEOUT) {
            Ok(r) => r,
            Err(e) => {
                f.push(Finding::fail("answer", format!("{what}: no answer ({e})")));
                return f;
            }
        };
        if !envelope(&r, &what, "application/json", &mut f) {
            return f;
        }
        one(&what, &r, allowed, accept.is_none(), &mut f);
    }
    f
}

/// One answer against the encodings its request allowed (`""` among them: identity allowed
/// beside them; none at all: identity only).
fn one(what: &str, r: &Response, allowed: &[&str], unasked: bool, f: &mut Vec<Finding>) {
    let encoding = r
        .header("content-encoding")
        .map(|e| e.trim().to_ascii_lowercase())
        .filter(|e| e != "identity")
        .unwrap_or_default();
    let ok = if allowed.is_empty() {
        encoding.is_empty()
    } else {
        allowed.contains(&encoding.as_str())
    };
    if !ok {
        let expected = match allowed {
            [] => "no Content-Encoding".to_string(),
            a => a
                .iter()
                .map(|e| if e.is_empty() { "identity" } else { e })
                .collect::<Vec<_>>()
                .join(" or "),
        };
        let reason = if unasked {
            ": compressed unasked, which a client that sent no Accept-Encoding cannot read"
        } else {
            ""
        };
        let shown = if encoding.is_empty() {
            "none"
        } else {
            &encoding
        };
        f.push(Finding::fail(
            "encoding",
            format!("{what}: Content-Encoding {shown}, expected {expected}{reason}"),
        ));
        return;
    }
    let decoded = match decode(&encoding, &r.body) {
        Ok(d) => d,
        Err(e) => {
            f.push(Finding::fail(
                "encoding",
                format!("{what}: the {encoding} body does not decode ({e})"),
            ));
            return;
        }
    };
    let shown = if encoding.is_empty() {
        "identity"
    } else {
        &encoding
    };
    f.push(Finding::pass(
        "encoding",
        format!(
            "{what}: {shown}, {} bytes for {} decoded",
            r.body.len(),
            decoded.len()
        ),
    ));
    if !encoding.is_empty() {
        vary(what, r, f);
    }
    let plain = Response {
        body: decoded,
        ..r.clone()
    };
    // Its findings name what is wrong with the document.
    let _ = todo::document(&plain, f);
}

/// A compressed answer says that it varies by `Accept-Encoding`, or a cache hands it to a client
/// that cannot read it.
fn vary(what: &str, r: &Response, f: &mut Vec<Finding>) {
    let varies = r.headers.iter().any(|(n, v)| {
        n == "vary"
            && v.split(',')
                .any(|t| t.trim().eq_ignore_ascii_case("accept-encoding") || t.trim() == "*")
    });
    if varies {
        f.push(Finding::pass(
            "vary",
            format!("{what}: Vary: Accept-Encoding"),
        ));
    } else {
        f.push(Finding::fail(
            "vary",
            format!(
                "{what}: compressed without Vary: Accept-Encoding, so a shared cache may serve it to a client that did not ask for it (RFC 9110 §12.5.5)"
            ),
        ));
    }
}

/// The body decoded by its `Content-Encoding` (empty: identity), within [`DECODED_LIMIT`].
fn decode(encoding: &str, body: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let read = match encoding {
        "" => return Ok(body.to_vec()),
        "gzip" | "x-gzip" => flate2::read::GzDecoder::new(body)
            .take(DECODED_LIMIT + 1)
            .read_to_end(&mut out),
        "br" => brotli_decompressor::Decompressor::new(body, 4096)
            .take(DECODED_LIMIT + 1)
            .read_to_end(&mut out),
        other => return Err(format!("restbench cannot decode {other}")),
    };
    read.map_err(|e| e.to_string())?;
    if out.len() as u64 > DECODED_LIMIT {
        return Err(format!("it inflates past {DECODED_LIMIT} bytes"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn gzip_decodes_and_a_bomb_is_refused() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"[1,2,3]").unwrap();
        let small = gz.finish().unwrap();
        assert_eq!(decode("gzip", &small).unwrap(), b"[1,2,3]");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&vec![b'a'; 2 * 1024 * 1024]).unwrap();
        let bomb = gz.finish().unwrap();
        assert!(decode("gzip", &bomb).unwrap_err().contains("inflates past"));
        assert!(decode("gzip", b"not gzip").is_err());
        assert!(
            decode("zstd", b"")
                .unwrap_err()
                .contains("cannot decode zstd")
        );
    }
}
