//! `static`: every file of the tree ([`StaticFile`]) with its exact bytes (a wrong byte is a
//! wrong checksum), its `Content-Type`, a `Content-Length` that matches, and a validator (`ETag`
//! or `Last-Modified`) that gets a 304 without a body when sent back; a stale validator gets the
//! file again, a missing file 404, and nothing outside the tree is served.

use restbench_model::{Finding, Protocol, StaticFile};

use super::answer::{TIMEOUT, snippet};
use super::transport;
use crate::http::{self, Endpoint, Response};

/// `Last-Modified` of every file: the tree's fixed mtime as an HTTP date.
const LAST_MODIFIED: &str = "Thu, 01 Jan 2026 00:00:00 GMT";
/// An `If-Modified-Since` before the files' mtime: the file must come back whole.
const BEFORE_MTIME: &str = "Mon, 01 Dec 2025 00:00:00 GMT";
/// An entity tag no server gave.
const STALE_ETAG: &str = "\"restbench-stale\"";
/// The files whose validators are sent back: the smallest and one above a socket buffer.
const CONDITIONAL: [&str; 2] = ["index.html", "data.json"];

pub fn check(to: Endpoint) -> Vec<Finding> {
    let mut f = Vec::new();
    for file in StaticFile::ALL {
        let Some(r) = fetch(to, &file, &[], &mut f) else {
            continue;
        };
        if file_answer(&file, &r, &mut f) && CONDITIONAL.contains(&file.name) {
            conditional(to, &file, &r, &mut f);
        }
    }
    missing(to, &mut f);
    outside(to, &mut f);
    f
}

fn fetch(
    to: Endpoint,
    file: &StaticFile,
    headers: &[(&str, &str)],
    f: &mut Vec<Finding>,
) -> Option<Response> {
    let path = file.path();
    match transport::send(to, "GET", &path, headers, b"", TIMEOUT) {
        Ok(r) => Some(r),
        Err(e) => {
            f.push(Finding::fail(
                "answer",
                format!("GET {path}: no answer ({e})"),
            ));
            None
        }
    }
}

/// The 200 of one file: status, type, length and bytes. False when it is no such answer.
fn file_answer(file: &StaticFile, r: &Response, f: &mut Vec<Finding>) -> bool {
    let path = file.path();
    if r.status != 200 {
        f.push(Finding::fail(
            "status",
            format!(
                "GET {path} → {} (expected 200): {}",
                r.status,
                snippet(&r.body_text())
            ),
        ));
        return false;
    }
    match r.header("content-type") {
        Some(ct)
            if file
                .content_types
                .iter()
                .any(|t| ct.to_ascii_lowercase().starts_with(t)) =>
        {
            f.push(Finding::pass(
                "content-type",
                format!("GET {path}: Content-Type {ct}"),
            ))
        }
        other => f.push(Finding::fail(
            "content-type",
            format!(
                "GET {path}: Content-Type {}, expected {}",
                other.map_or("missing".to_string(), |ct| format!("{ct:?}")),
                file.content_types.join(" or ")
            ),
        )),
    }
    match r.header("content-length") {
        Some(len) if len.trim() == file.bytes.to_string() => f.push(Finding::pass(
            "content-length",
            format!("GET {path}: Content-Length {len}"),
        )),
        Some(len) => f.push(Finding::fail(
            "content-length",
            format!(
                "GET {path}: Content-Length {len}, the file has {} bytes",
                file.bytes
            ),
        )),
        // HTTP/2 frames the body itself; a Content-Length there is optional.
        None if r.framing == "http2" => {}
        None => f.push(Finding::fail(
            "content-length",
            format!("GET {path}: no Content-Length (framed by {})", r.framing),
        )),
    }
    if let Some(enc) = r.header("content-encoding")
        && !enc.eq_ignore_ascii_case("identity")
    {
        f.push(Finding::fail(
            "encoding",
            format!("GET {path}: Content-Encoding {enc} although the request asked for none"),
        ));
        return false;
    }
    let expected = file.contents();
    if r.body == expected {
        f.push(Finding::pass(
            "checksum",
            format!(
                "GET {path}: {} bytes, CRC-32 {:08x}",
                r.body.len(),
                crc(&r.body)
            ),
        ));
    } else {
        f.push(Finding::fail(
            "checksum",
            format!(
                "GET {path}: {} bytes with CRC-32 {:08x}, expected the file's {} bytes with CRC-32 {:08x}{}",
                r.body.len(),
                crc(&r.body),
                expected.len(),
                crc(&expected),
                first_difference(&r.body, &expected)
                    .map_or(String::new(), |i| format!(" (first difference at byte {i})"))
            ),
        ));
    }
    true
}

/// The validators the 200 carried, each sent back (304 without a body), and stale ones (200).
fn conditional(to: Endpoint, file: &StaticFile, first: &Response, f: &mut Vec<Finding>) {
    let path = file.path();
    let etag = first.header("etag");
    let modified = first.header("last-modified");
    if etag.is_none() && modified.is_none() {
        f.push(Finding::fail(
            "validators",
            format!("GET {path}: neither ETag nor Last-Modified, so no client can revalidate it"),
        ));
        return;
    }
    f.push(Finding::pass(
        "validators",
        format!(
            "GET {path}: {}",
            [
                etag.map(|e| format!("ETag {e}")),
                modified.map(|m| format!("Last-Modified {m}"))
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ")
        ),
    ));
    if let Some(m) = modified
        && m != LAST_MODIFIED
    {
        f.push(Finding::warn(
            "last-modified",
            format!("GET {path}: Last-Modified {m}, but the file's mtime is {LAST_MODIFIED}"),
        ));
    }
    if let Some(tag) = etag {
        not_modified(to, &path, ("If-None-Match", tag), f);
        still_modified(to, file, ("If-None-Match", STALE_ETAG), f);
    }
    if let Some(date) = modified {
        not_modified(to, &path, ("If-Modified-Since", date), f);
        still_modified(to, file, ("If-Modified-Since", BEFORE_MTIME), f);
    }
}

/// A matching validator gets 304 and no body. Over HTTP/1.1 the bytes after the head are read
/// too: a client takes a 304 to end at its head, so a body there would be read as the next answer.
fn not_modified(to: Endpoint, path: &str, (name, value): (&str, &str), f: &mut Vec<Finding>) {
    let what = format!("GET {path} with {name}: {value}");
    let answer = match to.protocol {
        Protocol::H1 => http::exchange_trailing(
            to.addr,
            &http::request("GET", path, &[(name, value)], b""),
            TIMEOUT,
        ),
        Protocol::H2c => {
            transport::send(to, "GET", path, &[(name, value)], b"", TIMEOUT).map(|r| {
                let body = r.body.clone();
                (r, body)
            })
        }
    };
    match answer {
        Ok((r, after)) if r.status == 304 && after.is_empty() => f.push(Finding::pass(
            "not-modified",
            format!("{what} → 304, no body"),
        )),
        Ok((r, after)) if r.status == 304 => f.push(Finding::fail(
            "not-modified",
            format!(
                "{what} → 304 with {} bytes of body after its head: a 304 has no body (RFC 9110 §15.4.5), and a keep-alive client reads those bytes as its next answer",
                after.len()
            ),
        )),
        Ok((r, _)) => f.push(Finding::fail(
            "not-modified",
            format!("{what} → {} (expected 304: the validator it sent matches)", r.status),
        )),
        Err(e) => f.push(Finding::fail(
            "not-modified",
            format!("{what}: no answer ({e})"),
        )),
    }
}

/// A validator that does not match gets the whole file again.
fn still_modified(to: Endpoint, file: &StaticFile, header: (&str, &str), f: &mut Vec<Finding>) {
    let what = format!("GET {} with {}: {}", file.path(), header.0, header.1);
    match fetch(to, file, &[header], f) {
        // Its bytes are the checksum's to judge, on the plain request.
        Some(r) if r.status == 200 && r.body.len() == file.bytes => f.push(Finding::pass(
            "modified",
            format!("{what} → 200 with the file"),
        )),
        Some(r) => f.push(Finding::fail(
            "modified",
            format!(
                "{what} → {} with {} bytes (expected 200 with the file's {}: the validator does not match)",
                r.status,
                r.body.len(),
                file.bytes
            ),
        )),
        None => {}
    }
}

fn missing(to: Endpoint, f: &mut Vec<Finding>) {
    let path = "/static/missing.txt";
    match transport::send(to, "GET", path, &[], b"", TIMEOUT) {
        Ok(r) if r.status == 404 => f.push(Finding::pass("missing", format!("GET {path} → 404"))),
        Ok(r) => f.push(Finding::fail(
            "missing",
            format!("GET {path} → {} (expected 404: no such file)", r.status),
        )),
        Err(e) => f.push(Finding::fail(
            "missing",
            format!("GET {path}: no answer ({e})"),
        )),
    }
}

/// Paths that climb out of the tree get anything but a file: 400, 403, 404 or a redirect to a
/// cleaned path.
fn outside(to: Endpoint, f: &mut Vec<Finding>) {
    for path in [
        "/static/../subject.toml",
        "/static/%2e%2e/subject.toml",
        "/static/..%2fsubject.toml",
    ] {
        match transport::send(to, "GET", path, &[], b"", TIMEOUT) {
            Ok(r) if (200..300).contains(&r.status) => f.push(Finding::fail(
                "outside",
                format!(
                    "GET {path} → {} with {} bytes: a path outside the tree must not be served",
                    r.status,
                    r.body.len()
                ),
            )),
            Ok(r) => f.push(Finding::pass(
                "outside",
                format!("GET {path} → {}", r.status),
            )),
            // A server may refuse such a request line by closing: that serves nothing either.
            Err(e) => f.push(Finding::pass(
                "outside",
                format!("GET {path}: refused ({e})"),
            )),
        }
    }
}

fn crc(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or((a.len() != b.len()).then(|| a.len().min(b.len())))
}
