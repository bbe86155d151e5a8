//! A request as a script returns it (HTTP/1.1 text, as `wrk.format` writes it) read back into
//! its method, path, headers and body, so that the engine encodes it as it encodes `-m/-H/-b`
//! (over HTTP/1.1 or HTTP/2); and an answer's head and body split for `response()`.

use memchr::memmem;

use crate::LoadSpec;

/// The largest request a script may return.
const MAX_REQUEST: usize = 16 * 1024 * 1024;

/// One request's parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestParts {
    pub method: String,
    pub path: String,
    /// In the order written; `Content-Length` left out (the engine writes it), and `Host` left
    /// out when it is the URL's own (the engine writes that one first, as for `-H`).
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RequestParts {
    /// Reads exactly one request; more bytes after it are refused.
    pub fn parse(text: &[u8], host_header: &str) -> Result<Self, String> {
        if text.len() > MAX_REQUEST {
            return Err("the request is larger than 16 MiB".into());
        }
        let Some(head_end) = memmem::find(text, b"\r\n\r\n") else {
            return Err("the request has no blank line after its headers (use wrk.format)".into());
        };
        let head = std::str::from_utf8(&text[..head_end])
            .map_err(|_| "the request head is not UTF-8 text".to_string())?;
        let mut lines = head.split("\r\n");
        let line = lines.next().unwrap_or("");
        let mut words = line.split(' ');
        let (Some(method), Some(path), Some(version), None) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            return Err(format!(
                "{line:?} is not a request line such as GET / HTTP/1.1"
            ));
        };
        if !version.starts_with("HTTP/1.") || method.is_empty() || !path.starts_with('/') {
            return Err(format!(
                "{line:?} is not a request line such as GET / HTTP/1.1"
            ));
        }
        let mut headers = Vec::new();
        let mut length = 0usize;
        for h in lines {
            let Some((name, value)) = h.split_once(':') else {
                return Err(format!("{h:?} is not a header such as Name: value"));
            };
            let (name, value) = (name.trim(), value.trim());
            if name.eq_ignore_ascii_case("content-length") {
                length = value
                    .parse()
                    .map_err(|_| format!("Content-Length {value:?} is not a number"))?;
                continue;
            }
            if name.eq_ignore_ascii_case("host") && value == host_header {
                continue;
            }
            headers.push((name.to_string(), value.to_string()));
        }
        let body_start = head_end + 4;
        let rest = &text[body_start..];
        if rest.len() < length {
            return Err(format!(
                "the body has {} bytes but Content-Length says {length}",
                rest.len()
            ));
        }
        if rest.len() > length {
            return Err(format!(
                "request() returned several requests ({} bytes after the first): restbench sends \
                 one request per call; pipeline with --pipeline",
                rest.len() - length
            ));
        }
        Ok(Self {
            method: method.to_string(),
            path: path.to_string(),
            headers,
            body: rest.to_vec(),
        })
    }

    /// Makes `spec`'s request this one.
    pub fn apply(&self, spec: &mut LoadSpec) {
        spec.method.clone_from(&self.method);
        spec.target.path.clone_from(&self.path);
        spec.headers.clone_from(&self.headers);
        spec.body.clone_from(&self.body);
    }
}

/// A response header's name and value, as bytes.
pub type Header = (Vec<u8>, Vec<u8>);

/// An HTTP/1.x answer's headers (name, value) and body, the body de-chunked when it was sent in
/// chunks.
pub fn parse_response(raw: &[u8]) -> (Vec<Header>, Vec<u8>) {
    let Some(head_end) = memmem::find(raw, b"\r\n\r\n") else {
        return (Vec::new(), Vec::new());
    };
    let mut headers = Vec::new();
    let mut chunked = false;
    for line in raw[..head_end].split(|b| *b == b'\n').skip(1) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(colon) = line.iter().position(|b| *b == b':') else {
            continue;
        };
        let name = line[..colon].trim_ascii().to_vec();
        let value = line[colon + 1..].trim_ascii().to_vec();
        if name.eq_ignore_ascii_case(b"transfer-encoding")
            && value.to_ascii_lowercase().ends_with(b"chunked")
        {
            chunked = true;
        }
        headers.push((name, value));
    }
    let body = &raw[head_end + 4..];
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_vec()
    };
    (headers, body)
}

/// The data of a chunked body (its framing was already checked by the response parser).
fn dechunk(mut bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = memmem::find(bytes, b"\r\n") {
        let size_text = std::str::from_utf8(&bytes[..eol]).unwrap_or("");
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let Ok(size) = usize::from_str_radix(size_text, 16) else {
            break;
        };
        bytes = &bytes[eol + 2..];
        if size == 0 || bytes.len() < size {
            break;
        }
        out.extend_from_slice(&bytes[..size]);
        bytes = bytes.get(size + 2..).unwrap_or(&[]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_formatted_request_reads_back_into_its_parts() {
        let text = b"POST /echo HTTP/1.1\r\nHost: 127.0.0.1:1\r\nContent-Type: a/b\r\nContent-Length: 2\r\n\r\n{}";
        let p = RequestParts::parse(text, "127.0.0.1:1").unwrap();
        assert_eq!(p.method, "POST");
        assert_eq!(p.path, "/echo");
        assert_eq!(p.headers, vec![("Content-Type".into(), "a/b".into())]);
        assert_eq!(p.body, b"{}");
        let other_host = RequestParts::parse(text, "example:2").unwrap();
        assert_eq!(other_host.headers[0], ("Host".into(), "127.0.0.1:1".into()));
    }

    #[test]
    fn several_requests_or_a_broken_one_are_refused_with_a_sentence() {
        let two = b"GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n";
        let e = RequestParts::parse(two, "h").unwrap_err();
        assert!(e.contains("several requests"), "{e}");
        for bad in [
            &b"GET /\r\n\r\n"[..],
            b"GET / HTTP/1.1\r\n",
            b"GET x HTTP/1.1\r\n\r\n",
        ] {
            assert!(RequestParts::parse(bad, "h").is_err());
        }
        let short = b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab";
        assert!(
            RequestParts::parse(short, "h")
                .unwrap_err()
                .contains("Content-Length")
        );
    }

    #[test]
    fn an_answer_splits_into_headers_and_its_body() {
        let (h, b) =
            parse_response(b"HTTP/1.1 200 OK\r\nX-Token: t1\r\nContent-Length: 2\r\n\r\nok");
        assert_eq!(h[0], (b"X-Token".to_vec(), b"t1".to_vec()));
        assert_eq!(b, b"ok");
        let (_, b) = parse_response(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n3;x=y\r\ncde\r\n0\r\n\r\n",
        );
        assert_eq!(b, b"abcde");
    }
}
