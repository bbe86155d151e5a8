//! What a load run does: the request, the connections, when it stops and how it is paced.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::script::ScriptPlan;
use crate::transport::tls::TlsSettings;
use crate::{LoadError, Target, request};

/// The most connections one run opens: a client address has fewer than 65,536 ports, so no more
/// connections to one server can be open at once.
pub const MAX_CONNECTIONS: u32 = 65_535;
/// The most threads: far beyond any machine's cores; more only costs stacks and context switches.
pub const MAX_THREADS: u32 = 1024;
/// The most requests in flight per connection (h2load's `-m` is rarely above a few hundred).
pub const MAX_PIPELINE: u32 = 1024;
/// The largest request body, so that a body file cannot exhaust memory.
pub const MAX_BODY: usize = 64 * 1024 * 1024;
/// The largest HTTP/2 request body: the default stream window, so that every request goes out
/// whole without waiting for the server's WINDOW_UPDATE.
pub const MAX_H2_BODY: usize = 65_535;
/// The most bytes one connection writes at once (`pipeline` requests back to back): they are
/// encoded once and kept in memory for the whole run.
pub const MAX_BURST: usize = 128 * 1024 * 1024;
/// The longest `--timeout`.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);
/// The longest measured period or warm-up.
pub const MAX_DURATION: Duration = Duration::from_secs(7 * 24 * 3600);
/// The slowest and fastest `--rate`, in requests per second: beyond them the interval between two
/// requests of a connection is no longer a sane (or representable) duration.
pub const RATE_RANGE: (f64, f64) = (0.001, 100_000_000.0);

/// Every extra header as RFC 9110 and 9112 allow a sender to write it: a token for a name, no
/// line break or control byte in a value, and no framing of its own.
pub(crate) fn check_headers(headers: &[(String, String)]) -> Result<(), LoadError> {
    let bad = |m: &str| Err(LoadError::InvalidSpec(m.to_string()));
    for (name, value) in headers {
        // RFC 9110 §5.1: a field name is a token.
        if name.is_empty() || !name.bytes().all(is_tchar) {
            return bad(&format!("invalid header name {name:?}"));
        }
        if value.bytes().any(|b| b == b'\r' || b == b'\n') {
            return bad(&format!("header {name} has a line break in its value"));
        }
        // RFC 9110 §5.5: no control characters but the tab in a field value.
        if value.bytes().any(|b| (b < b' ' && b != b'\t') || b == 0x7f) {
            return bad(&format!(
                "header {name} has a control character in its value"
            ));
        }
        // Bodies are framed by the Content-Length the generator computes; a Transfer-Encoding
        // beside it is what RFC 9112 §6.2 forbids a sender (and what smuggling is made of).
        if name.eq_ignore_ascii_case("transfer-encoding") {
            return bad(
                "Transfer-Encoding cannot be set: the body is sent with its Content-Length",
            );
        }
    }
    Ok(())
}

/// RFC 9110 §5.6.2: the characters of a token (a header name).
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Paths drawn in turn instead of the target's one, for a load of several files (`static`):
/// each connection walks `order` (indices into `paths`) from its own offset, so the mix is the
/// same in every run and the connections do not ask for the same file at once. HTTP/1.x only:
/// the HTTP/2 request is one pre-encoded shape (its HPACK table assumes it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathMix {
    pub paths: Vec<String>,
    pub order: Vec<u16>,
}

/// The most paths of a [`PathMix`]: each is encoded once and kept for the whole run.
pub const MAX_MIX_PATHS: usize = 1024;
/// The longest order of a [`PathMix`] (two bytes a draw).
pub const MAX_MIX_ORDER: usize = 1 << 20;

impl PathMix {
    fn validate(&self) -> Result<(), LoadError> {
        let bad = |m: String| Err(LoadError::InvalidSpec(m));
        if self.paths.is_empty() || self.paths.len() > MAX_MIX_PATHS {
            return bad(format!("a path mix needs 1 to {MAX_MIX_PATHS} paths"));
        }
        if self.order.is_empty() || self.order.len() > MAX_MIX_ORDER {
            return bad(format!(
                "a path mix's order needs 1 to {MAX_MIX_ORDER} draws"
            ));
        }
        if let Some(p) = self
            .paths
            .iter()
            .find(|p| !p.starts_with('/') || p.bytes().any(|b| b <= b' ' || b == 0x7f))
        {
            return bad(format!(
                "path {p:?} of the mix must start with / and hold no space or control byte"
            ));
        }
        if self
            .order
            .iter()
            .any(|&i| usize::from(i) >= self.paths.len())
        {
            return bad("a path mix's order names a path it does not have".into());
        }
        Ok(())
    }
}

/// When a run ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopAt {
    /// Measure for this long (after the warm-up).
    Duration(Duration),
    /// Send exactly this many requests in total, then wait for their answers.
    Requests(u64),
}

/// The protocol of the request line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpVersion {
    Http11,
    /// As ab sends it: `HTTP/1.0`, no keep-alive.
    Http10,
    /// HTTP/2: over TLS when the server picks `h2` by ALPN, or h2c with prior knowledge.
    Http2,
}

/// A complete description of a load run.
#[derive(Debug, Clone)]
pub struct LoadSpec {
    pub target: Target,
    pub method: String,
    /// Extra headers, in order, as `(name, value)`.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub connections: u32,
    pub threads: u32,
    pub stop: StopAt,
    /// Constant total request rate (open loop); `None` for closed loop.
    pub rate: Option<f64>,
    /// Requests in flight per connection.
    pub pipeline: u32,
    /// False: a new connection per request (`Connection: close`).
    pub keepalive: bool,
    pub http_version: HttpVersion,
    /// HTTP/2: streams in flight per connection (h2load's `-m`).
    pub max_streams: u32,
    /// Connect to this Unix domain socket instead of the URL's address; the URL still gives the
    /// `Host` header (or `:authority`) and the path.
    pub unix_socket: Option<PathBuf>,
    /// How an `https://` server's certificate is checked.
    pub tls: TlsSettings,
    /// A request with no complete answer after this long is a timeout; its connection is replaced.
    pub timeout: Duration,
    /// Load sent before measuring starts, left out of every figure.
    pub warmup: Duration,
    /// A wrk script that runs per request (`request()` or `response()`); a script that only
    /// sets the request is read into the fields above instead ([`crate::script::Script`]).
    pub script: Option<Arc<ScriptPlan>>,
    /// The script's file as given, for the result (set whether it runs per request or not).
    pub script_name: Option<String>,
    /// A ramp (`-R A:B`): the rate moves linearly from `rate` to this over the measured period.
    pub rate_end: Option<f64>,
    /// With a rate: a request already later than this at its send time is shed, not sent.
    pub deadline: Option<Duration>,
    /// Close each connection after this many answers and open a new one (HttpArena's
    /// limited-conn); `None` keeps connections for the whole run.
    pub requests_per_connection: Option<u32>,
    /// Paths asked for in turn instead of the target's ([`PathMix`]).
    pub path_mix: Option<Arc<PathMix>>,
}

impl LoadSpec {
    /// A closed-loop GET with wrk's defaults (2 threads, 10 connections, 10 s).
    pub fn get(target: Target) -> Self {
        Self {
            target,
            method: "GET".into(),
            headers: Vec::new(),
            body: Vec::new(),
            connections: 10,
            threads: 2,
            stop: StopAt::Duration(Duration::from_secs(10)),
            rate: None,
            pipeline: 1,
            keepalive: true,
            http_version: HttpVersion::Http11,
            max_streams: 1,
            unix_socket: None,
            tls: TlsSettings::default(),
            timeout: Duration::from_secs(2),
            warmup: Duration::ZERO,
            script: None,
            script_name: None,
            rate_end: None,
            deadline: None,
            requests_per_connection: None,
            path_mix: None,
        }
    }

    /// Checks the settings that would make a run meaningless or exhaust the machine; every bound
    /// is checked here so that the engine's arithmetic cannot overflow.
    pub fn validate(&self) -> Result<(), LoadError> {
        let bad = |m: &str| Err(LoadError::InvalidSpec(m.to_string()));
        if !(1..=MAX_CONNECTIONS).contains(&self.connections) {
            return bad(&format!(
                "--connections must be from 1 to {MAX_CONNECTIONS} (the ports of one address)"
            ));
        }
        if !(1..=MAX_THREADS).contains(&self.threads) {
            return bad(&format!("--threads must be from 1 to {MAX_THREADS}"));
        }
        if !(1..=MAX_PIPELINE).contains(&self.pipeline) {
            return bad(&format!("--pipeline must be from 1 to {MAX_PIPELINE}"));
        }
        if self.body.len() > MAX_BODY {
            return bad("the request body is larger than 64 MiB");
        }
        let burst = request::head(self)
            .len()
            .saturating_add(self.body.len())
            .saturating_mul(self.pipeline as usize);
        if burst > MAX_BURST {
            return bad(&format!(
                "--pipeline {} makes {burst} bytes to send at once (at most 128 MiB): lower \
                 --pipeline or the body",
                self.pipeline
            ));
        }
        if self.pipeline > 1 && (!self.keepalive || self.http_version == HttpVersion::Http10) {
            return bad("--pipeline needs keep-alive HTTP/1.1 (drop --no-keepalive / --http1.0)");
        }
        let http2 = self.http_version == HttpVersion::Http2;
        if let Some(mix) = &self.path_mix {
            mix.validate()?;
            if http2 || self.pipeline > 1 || self.script.is_some() {
                return bad(
                    "a path mix is HTTP/1.x, one request in flight per connection, without a \
                     script (drop --http2, --pipeline or --script)",
                );
            }
        }
        if let Some(n) = self.requests_per_connection {
            if n == 0 {
                return bad("--requests-per-connection must be at least 1");
            }
            if http2 {
                return bad(
                    "--requests-per-connection is HTTP/1.1's: an HTTP/2 connection's requests \
                     are streams, which --max-streams sets (drop --http2)",
                );
            }
            if !self.keepalive || self.http_version == HttpVersion::Http10 {
                return bad(
                    "--requests-per-connection needs keep-alive HTTP/1.1: without it every \
                     connection carries one request already (drop --no-keepalive / --http1.0)",
                );
            }
        }
        if !(1..=MAX_PIPELINE).contains(&self.max_streams) {
            return bad(&format!("--max-streams must be from 1 to {MAX_PIPELINE}"));
        }
        if http2 {
            if self.pipeline > 1 {
                return bad("--pipeline is HTTP/1.1's; with --http2 use --max-streams");
            }
            if self.body.len() > MAX_H2_BODY {
                return bad("with --http2 the request body may be at most 65535 bytes");
            }
        } else if self.max_streams > 1 {
            return bad("--max-streams needs --http2");
        }
        if !self.target.tls && (self.tls.insecure || self.tls.ca_file.is_some()) {
            return bad("--insecure and --cacert need an https:// URL");
        }
        if self
            .unix_socket
            .as_ref()
            .is_some_and(|p| p.as_os_str().is_empty())
        {
            return bad("--unix-socket needs a path");
        }
        if self.timeout.is_zero() || self.timeout > MAX_TIMEOUT {
            return bad("--timeout must be more than zero and at most 1h");
        }
        match self.stop {
            StopAt::Duration(d) if d.is_zero() || d > MAX_DURATION => {
                return bad("--duration must be more than zero and at most 7 days");
            }
            StopAt::Requests(0) => return bad("--requests must be at least 1"),
            _ => {}
        }
        if self.warmup > MAX_DURATION {
            return bad("--warmup must be at most 7 days");
        }
        if let Some(rate) = self.rate
            && !(rate.is_finite() && (RATE_RANGE.0..=RATE_RANGE.1).contains(&rate))
        {
            return bad(&format!(
                "--rate must be from {} to {} requests per second",
                RATE_RANGE.0, RATE_RANGE.1
            ));
        }
        if let Some(end) = self.rate_end {
            if self.rate.is_none() || !matches!(self.stop, StopAt::Duration(_)) {
                return bad("a ramp -R A:B needs a duration (-d), not -n");
            }
            if !(end.is_finite() && (RATE_RANGE.0..=RATE_RANGE.1).contains(&end)) {
                return bad(&format!(
                    "the ramp's end rate must be from {} to {} requests per second",
                    RATE_RANGE.0, RATE_RANGE.1
                ));
            }
        }
        if let Some(d) = self.deadline
            && (self.rate.is_none() || d.is_zero() || d > MAX_TIMEOUT)
        {
            return bad("--deadline needs a rate (-R) and must be more than zero and at most 1h");
        }
        if self.method.is_empty() || !self.method.bytes().all(|b| b.is_ascii_alphabetic()) {
            return bad("--method must be letters only, such as GET or POST");
        }
        check_headers(&self.headers)
    }

    /// Threads actually used: never more than connections.
    pub fn effective_threads(&self) -> u32 {
        self.threads.min(self.connections)
    }

    /// Requests in flight per connection: HTTP/1.1 pipelining or HTTP/2 streams.
    pub fn in_flight_per_connection(&self) -> u32 {
        if self.http_version == HttpVersion::Http2 {
            self.max_streams
        } else {
            self.pipeline
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> LoadSpec {
        LoadSpec::get(Target::parse("http://127.0.0.1:1/").unwrap())
    }

    #[test]
    fn defaults_and_the_bounds_themselves_are_valid() {
        spec().validate().unwrap();
        let mut s = spec();
        s.connections = MAX_CONNECTIONS;
        s.threads = MAX_THREADS;
        s.pipeline = MAX_PIPELINE;
        s.timeout = MAX_TIMEOUT;
        s.stop = StopAt::Duration(MAX_DURATION);
        s.warmup = MAX_DURATION;
        s.rate = Some(RATE_RANGE.0);
        s.validate().unwrap();
        s.rate = Some(RATE_RANGE.1);
        s.validate().unwrap();
    }

    #[test]
    fn values_beyond_the_bounds_are_refused_not_panics() {
        type Change = fn(&mut LoadSpec);
        let cases: [(&str, Change); 18] = [
            ("max streams without http2", |s| s.max_streams = 2),
            ("pipeline with http2", |s| {
                s.http_version = HttpVersion::Http2;
                s.pipeline = 2;
            }),
            ("h2 body", |s| {
                s.http_version = HttpVersion::Http2;
                s.body = vec![0; MAX_H2_BODY + 1];
            }),
            ("insecure on http", |s| s.tls.insecure = true),
            ("connections 0", |s| s.connections = 0),
            ("connections max", |s| s.connections = u32::MAX),
            ("threads 0", |s| s.threads = 0),
            ("threads max", |s| s.threads = u32::MAX),
            ("pipeline 0", |s| s.pipeline = 0),
            ("pipeline max", |s| s.pipeline = u32::MAX),
            ("timeout", |s| s.timeout = Duration::from_secs(u64::MAX)),
            ("duration", |s| {
                s.stop = StopAt::Duration(Duration::from_secs(u64::MAX))
            }),
            ("warmup", |s| s.warmup = MAX_DURATION * 2),
            ("tiny rate", |s| s.rate = Some(1e-30)),
            ("tiny rate, many connections", |s| {
                s.rate = Some(1e-17);
                s.connections = 200;
            }),
            ("huge rate", |s| s.rate = Some(1e300)),
            ("NaN rate", |s| s.rate = Some(f64::NAN)),
            ("burst", |s| {
                s.body = vec![b'x'; 200_000];
                s.pipeline = MAX_PIPELINE;
            }),
        ];
        for (name, change) in cases {
            let mut s = spec();
            change(&mut s);
            assert!(
                matches!(s.validate(), Err(LoadError::InvalidSpec(_))),
                "{name}"
            );
        }
        let mut s = spec();
        s.body = vec![0; MAX_BODY + 1];
        assert!(s.validate().is_err(), "body over 64 MiB");
    }

    #[test]
    fn headers_that_would_break_the_request_grammar_are_refused() {
        for (name, value) in [
            ("X(a)", "b"),
            ("X/a", "b"),
            ("X\"a", "b"),
            ("X-A", "b\x00c"),
            ("X-A", "b\x7f"),
            ("Transfer-Encoding", "chunked"),
            ("transfer-encoding", "identity"),
        ] {
            let mut s = spec();
            s.headers = vec![(name.into(), value.into())];
            assert!(s.validate().is_err(), "{name:?}: {value:?}");
        }
        let mut s = spec();
        s.headers = vec![
            ("X-Odd_Name.1~!".into(), "a\tb, c=\"d\"".into()),
            ("Accept".into(), "*/*".into()),
        ];
        assert!(s.validate().is_ok());
    }
}
