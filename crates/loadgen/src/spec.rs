//! What a load run does: the request, the connections, when it stops and how it is paced.

use std::time::Duration;

use crate::{LoadError, Target};

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
    /// A request with no complete answer after this long is a timeout; its connection is replaced.
    pub timeout: Duration,
    /// Load sent before measuring starts, left out of every figure.
    pub warmup: Duration,
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
            timeout: Duration::from_secs(2),
            warmup: Duration::ZERO,
        }
    }

    /// Checks the settings that would make a run meaningless.
    pub fn validate(&self) -> Result<(), LoadError> {
        let bad = |m: &str| Err(LoadError::InvalidSpec(m.to_string()));
        if self.connections == 0 {
            return bad("--connections must be at least 1");
        }
        if self.threads == 0 {
            return bad("--threads must be at least 1");
        }
        if self.pipeline == 0 {
            return bad("--pipeline must be at least 1");
        }
        if self.pipeline > 1 && (!self.keepalive || self.http_version == HttpVersion::Http10) {
            return bad("--pipeline needs keep-alive HTTP/1.1 (drop --no-keepalive / --http1.0)");
        }
        if self.timeout.is_zero() {
            return bad("--timeout must be more than zero");
        }
        match self.stop {
            StopAt::Duration(d) if d.is_zero() => return bad("--duration must be more than zero"),
            StopAt::Requests(0) => return bad("--requests must be at least 1"),
            _ => {}
        }
        if let Some(rate) = self.rate
            && !(rate.is_finite() && rate > 0.0)
        {
            return bad("--rate must be a positive number of requests per second");
        }
        if self.method.is_empty() || !self.method.bytes().all(|b| b.is_ascii_alphabetic()) {
            return bad("--method must be letters only, such as GET or POST");
        }
        for (name, value) in &self.headers {
            if name.is_empty() || name.bytes().any(|b| b <= b' ' || b == b':' || b >= 0x7f) {
                return bad(&format!("invalid header name {name:?}"));
            }
            if value.bytes().any(|b| b == b'\r' || b == b'\n') {
                return bad(&format!("header {name} has a line break in its value"));
            }
        }
        Ok(())
    }

    /// Threads actually used: never more than connections.
    pub fn effective_threads(&self) -> u32 {
        self.threads.min(self.connections)
    }
}
