//! The request bytes, encoded once per run.

use crate::{HttpVersion, LoadSpec};

/// Encodes one request as it goes on the wire.
pub fn encode(spec: &LoadSpec) -> Vec<u8> {
    let mut out = head(spec);
    out.extend_from_slice(&spec.body);
    out
}

/// The request line and headers, up to and including the blank line (no body).
pub fn head(spec: &LoadSpec) -> Vec<u8> {
    let mut out = Vec::with_capacity(256 + spec.body.len());
    head_into(
        &mut out,
        spec,
        &spec.method,
        &spec.target.path,
        &spec.headers,
        spec.body.len(),
    );
    out
}

/// Each of `paths` as [`encode`] encodes the spec's request with that path, back to back in one
/// buffer, with each request's range in it.
pub fn encode_mix(spec: &LoadSpec, paths: &[String]) -> (Vec<u8>, Vec<(usize, usize)>) {
    let mut out = Vec::new();
    let mut ranges = Vec::with_capacity(paths.len());
    for path in paths {
        let from = out.len();
        head_into(
            &mut out,
            spec,
            &spec.method,
            path,
            &spec.headers,
            spec.body.len(),
        );
        out.extend_from_slice(&spec.body);
        ranges.push((from, out.len()));
    }
    (out, ranges)
}

/// A script's request as it goes on the wire, encoded as [`encode`] encodes `spec`'s own, into
/// `out` (cleared first, its allocation reused).
pub fn encode_parts(spec: &LoadSpec, parts: &crate::script::RequestParts, out: &mut Vec<u8>) {
    out.clear();
    head_into(
        out,
        spec,
        &parts.method,
        &parts.path,
        &parts.headers,
        parts.body.len(),
    );
    out.extend_from_slice(&parts.body);
}

fn head_into(
    out: &mut Vec<u8>,
    spec: &LoadSpec,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body_len: usize,
) {
    use std::io::Write;
    let version = match spec.http_version {
        HttpVersion::Http11 | HttpVersion::Http2 => "HTTP/1.1",
        HttpVersion::Http10 => "HTTP/1.0",
    };
    // Writes into a Vec cannot fail.
    let _ = write!(out, "{method} {path} {version}\r\n");
    let has = |name: &str| headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name));
    if !has("host") {
        let _ = write!(out, "Host: {}\r\n", spec.target.host_header);
    }
    for (name, value) in headers {
        if name.eq_ignore_ascii_case("content-length") {
            continue;
        }
        let _ = write!(out, "{name}: {value}\r\n");
    }
    if !spec.keepalive && spec.http_version == HttpVersion::Http11 && !has("connection") {
        out.extend_from_slice(b"Connection: close\r\n");
    }
    if body_len > 0 || matches!(method, "POST" | "PUT" | "PATCH") {
        let _ = write!(out, "Content-Length: {body_len}\r\n");
    }
    out.extend_from_slice(b"\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Target;

    #[test]
    fn encodes_post_with_body_and_headers() {
        let mut spec = LoadSpec::get(Target::parse("http://127.0.0.1:3000/echo").unwrap());
        spec.method = "POST".into();
        spec.headers
            .push(("Content-Type".into(), "application/json".into()));
        spec.body = b"{}".to_vec();
        let text = String::from_utf8(encode(&spec)).unwrap();
        assert_eq!(
            text,
            "POST /echo HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        );
    }

    #[test]
    fn a_mix_encodes_each_path_in_its_own_range() {
        let spec = LoadSpec::get(Target::parse("http://127.0.0.1:3000/a").unwrap());
        let (bytes, ranges) = encode_mix(&spec, &["/static/x".into(), "/y".into()]);
        assert_eq!(ranges.len(), 2);
        assert_eq!(ranges[0].1, ranges[1].0);
        let second = std::str::from_utf8(&bytes[ranges[1].0..ranges[1].1]).unwrap();
        assert_eq!(second, "GET /y HTTP/1.1\r\nHost: 127.0.0.1:3000\r\n\r\n");
        assert!(bytes.starts_with(b"GET /static/x HTTP/1.1\r\n"));
    }

    #[test]
    fn http10_sends_no_connection_header() {
        let mut spec = LoadSpec::get(Target::parse("http://localhost:1/").unwrap());
        spec.http_version = HttpVersion::Http10;
        spec.keepalive = false;
        assert_eq!(
            encode(&spec),
            b"GET / HTTP/1.0\r\nHost: localhost:1\r\n\r\n"
        );
    }

    #[test]
    fn no_keepalive_asks_to_close() {
        let mut spec = LoadSpec::get(Target::parse("http://h:2/p").unwrap());
        spec.keepalive = false;
        assert!(
            String::from_utf8(encode(&spec))
                .unwrap()
                .contains("Connection: close\r\n")
        );
    }
}
