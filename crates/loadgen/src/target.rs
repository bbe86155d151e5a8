//! The server to load: parsed from an `http://` URL and resolved once.

use std::net::{SocketAddr, ToSocketAddrs};

use crate::LoadError;

/// Where requests go and what the request line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The URL as given.
    pub url: String,
    /// Host as written in the URL (for the `Host` header), with a port when it was given.
    pub host_header: String,
    pub host: String,
    pub port: u16,
    /// Path and query, starting with `/`.
    pub path: String,
    /// `https://`: the connections speak TLS.
    pub tls: bool,
}

impl Target {
    /// Parses `http[s]://host[:port][/path][?query]` (no scheme means `http://`).
    pub fn parse(url: &str) -> Result<Self, LoadError> {
        let invalid = |reason: &str| LoadError::InvalidUrl {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        // The path goes into the request line as written: a space or a line break there would
        // end the line early or inject headers.
        if url.bytes().any(|b| b <= b' ' || b == 0x7f) {
            return Err(invalid(
                "spaces and control characters are not allowed; percent-encode them (%20)",
            ));
        }
        for scheme in ["http:", "https:"] {
            if let Some(after) = url.strip_prefix(scheme)
                && !after.starts_with("//")
            {
                return Err(invalid(&format!(
                    "malformed URL: {scheme} must be followed by // (as in {scheme}//localhost:8080/)"
                )));
            }
        }
        let (rest, tls) = if let Some(rest) = url.strip_prefix("http://") {
            (rest, false)
        } else if let Some(rest) = url.strip_prefix("https://") {
            (rest, true)
        } else if url.contains("://") {
            return Err(invalid("only http:// and https:// URLs are supported"));
        } else {
            (url, false)
        };
        let default_port = if tls { 443 } else { 80 };
        let (authority, path) = match rest.find(['/', '?']) {
            Some(i) if rest.as_bytes()[i] == b'/' => (&rest[..i], rest[i..].to_string()),
            Some(i) => (&rest[..i], format!("/{}", &rest[i..])),
            None => (rest, "/".to_string()),
        };
        let path = match path.find('#') {
            Some(i) => path[..i].to_string(),
            None => path,
        };
        if authority.is_empty() {
            return Err(invalid("no host"));
        }
        if authority.contains('@') {
            return Err(invalid("user information in URLs is not supported"));
        }
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let end = v6
                .find(']')
                .ok_or_else(|| invalid("unclosed '[' in IPv6 address"))?;
            let host = &v6[..end];
            let after = &v6[end + 1..];
            let port = match after.strip_prefix(':') {
                Some(p) => p
                    .parse()
                    .map_err(|_| invalid("the port is not a number from 1 to 65535"))?,
                None if after.is_empty() => default_port,
                None => return Err(invalid("unexpected text after the IPv6 address")),
            };
            (host.to_string(), port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (
                    h.to_string(),
                    p.parse()
                        .map_err(|_| invalid("the port is not a number from 1 to 65535"))?,
                ),
                None => (authority.to_string(), default_port),
            }
        };
        if port == 0 {
            return Err(invalid("port 0 is not a valid destination"));
        }
        if host.is_empty() {
            return Err(invalid("no host"));
        }
        Ok(Self {
            url: url.to_string(),
            host_header: authority.to_string(),
            host,
            port,
            path,
            tls,
        })
    }

    /// Resolves the host; the first address is used for every connection.
    pub fn resolve(&self) -> Result<SocketAddr, LoadError> {
        (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(|source| LoadError::Resolve {
                host: self.host.clone(),
                source,
            })?
            .next()
            .ok_or_else(|| LoadError::Resolve {
                host: self.host.clone(),
                source: std::io::Error::other("no addresses found"),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_host_port_path_and_query() {
        let t = Target::parse("http://127.0.0.1:8080/api/test?x=1").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.path.as_str()),
            ("127.0.0.1", 8080, "/api/test?x=1")
        );
        assert_eq!(t.host_header, "127.0.0.1:8080");
    }

    #[test]
    fn a_missing_slash_is_a_malformed_url_not_a_bad_port() {
        let e = Target::parse("http:/localhost:18080/x")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("malformed URL: http: must be followed by //"),
            "{e}"
        );
        assert!(!e.contains("port"), "{e}");
    }

    #[test]
    fn defaults_port_and_path() {
        let t = Target::parse("http://localhost").unwrap();
        assert_eq!((t.port, t.path.as_str()), (80, "/"));
        let t = Target::parse("localhost:3000?a").unwrap();
        assert_eq!((t.port, t.path.as_str()), (3000, "/?a"));
    }

    #[test]
    fn https_defaults_to_port_443() {
        let t = Target::parse("https://example.test/x").unwrap();
        assert!(t.tls);
        assert_eq!((t.port, t.host_header.as_str()), (443, "example.test"));
        assert!(!Target::parse("http://a/").unwrap().tls);
    }

    #[test]
    fn parses_ipv6() {
        let t = Target::parse("http://[::1]:9000/x").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.path.as_str()),
            ("::1", 9000, "/x")
        );
    }

    #[test]
    fn rejects_bad_urls() {
        for bad in [
            "ftp://a/",
            "http://:80/",
            "http://a:99999/",
            "http://a:x/",
            "http://[::1/",
            "http://a/a b",
            "http://a/x\r\nX-Injected: 1",
            "http://a/\t",
            "http://a/\x7f",
            "http://a\n:80/",
        ] {
            assert!(Target::parse(bad).is_err(), "{bad} should be rejected");
        }
    }
}
