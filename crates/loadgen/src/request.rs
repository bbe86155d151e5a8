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
    let version = match spec.http_version {
        HttpVersion::Http11 | HttpVersion::Http2 => "HTTP/1.1",
        HttpVersion::Http10 => "HTTP/1.0",
    };
    let mut out = Vec::with_capacity(256 + spec.body.len());
    out.extend_from_slice(
        format!("{} {} {}\r\n", spec.method, spec.target.path, version).as_bytes(),
    );
    let has = |name: &str| {
        spec.headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
    };
    if !has("host") {
        out.extend_from_slice(format!("Host: {}\r\n", spec.target.host_header).as_bytes());
    }
    for (name, value) in &spec.headers {
        if name.eq_ignore_ascii_case("content-length") {
            continue;
        }
        out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    if !spec.keepalive && spec.http_version == HttpVersion::Http11 && !has("connection") {
        out.extend_from_slice(b"Connection: close\r\n");
    }
    if !spec.body.is_empty() || matches!(spec.method.as_str(), "POST" | "PUT" | "PATCH") {
        out.extend_from_slice(format!("Content-Length: {}\r\n", spec.body.len()).as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    out
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
