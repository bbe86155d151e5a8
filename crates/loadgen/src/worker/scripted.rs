//! The worker's side of a wrk script run per request: `request()` asked for each request and
//! encoded for the connection (HTTP/1.x into its own buffer, HTTP/2 as literal frames), each
//! answer handed to `response()`, and the time spent in Lua counted. Only a script that defines
//! `request()` or `response()` comes here; the ordinary path never does.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::Worker;
use crate::LoadSpec;
use crate::h2::H2Request;
use crate::script::{ScriptPlan, ThreadScript};

/// Room in an HTTP/2 write queue per stream when a script makes the requests: one frame of
/// headers and the largest body, as the request is not known in advance.
pub(super) const H2_REQUEST_ROOM: usize = 16_384 + crate::MAX_H2_BODY + 64;
/// The most bytes of one answer kept for `response()`; beyond them the body is cut.
const MAX_CAPTURE: usize = 8 * 1024 * 1024;

/// What a thread needs to run its script.
pub struct ScriptConfig {
    pub plan: Arc<ScriptPlan>,
    /// This thread's index among the run's threads (`setup` was called for each).
    pub index: usize,
    /// The run's spec: what a script's request is encoded with beside its own parts.
    pub spec: Arc<LoadSpec>,
}

/// What a thread's script did.
#[derive(Debug, Clone, Default)]
pub struct ScriptReport {
    /// `request()` and `response()` calls, measuring or not.
    pub calls: u64,
    /// Time spent in them.
    pub spent: Duration,
    /// The first failure (a Lua error, a malformed request), which ended the thread.
    pub error: Option<String>,
}

pub(super) struct Scripted {
    thread: ThreadScript,
    /// The run's spec with the current request's parts (HTTP/2 encodes from a spec).
    spec: LoadSpec,
    error: Option<String>,
}

/// Appends to an answer's kept bytes, within [`MAX_CAPTURE`].
#[inline]
pub(super) fn capture(into: &mut Vec<u8>, bytes: &[u8]) {
    let room = MAX_CAPTURE.saturating_sub(into.len());
    into.extend_from_slice(&bytes[..bytes.len().min(room)]);
}

impl Scripted {
    pub fn start(cfg: ScriptConfig) -> std::io::Result<Self> {
        let thread = ThreadScript::start(cfg.plan, cfg.index)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let mut spec = (*cfg.spec).clone();
        spec.script = None;
        Ok(Self {
            thread,
            spec,
            error: None,
        })
    }

    #[inline]
    pub fn makes_requests(&self) -> bool {
        self.thread.makes_requests()
    }

    #[inline]
    pub fn reads_responses(&self) -> bool {
        self.thread.reads_responses()
    }

    /// The script failed or called `wrk.thread:stop()`: the thread stops.
    #[inline]
    pub fn ended(&self) -> bool {
        self.error.is_some() || self.thread.stop.load(Ordering::Relaxed)
    }

    pub fn finish(&self) -> ScriptReport {
        self.thread.finish();
        ScriptReport {
            calls: self.thread.calls,
            spent: self.thread.spent,
            error: self.error.clone(),
        }
    }

    fn fail(&mut self, e: String) {
        self.error.get_or_insert(e);
    }
}

impl Worker {
    /// Asks the script for `k` requests and puts them in connection `idx`'s write queue; false
    /// (and the thread ends) when the script failed.
    pub(super) fn scripted_fill(&mut self, idx: usize, k: usize) -> bool {
        let Some(s) = self.script.as_mut() else {
            return true;
        };
        let c = &mut self.conns[idx];
        if c.h2.is_none() {
            c.scripted.clear();
        }
        let mut one = Vec::new();
        for _ in 0..k {
            let parts = match s.thread.next_request() {
                Some(Ok(p)) => p,
                Some(Err(e)) => {
                    s.fail(e);
                    return false;
                }
                None => return true,
            };
            if let Err(e) = check(&parts) {
                s.fail(format!("script: request(): {e}"));
                return false;
            }
            match c.h2.as_mut() {
                Some(h) => {
                    parts.apply(&mut s.spec);
                    match H2Request::encode_literal(&s.spec) {
                        Ok(req) => h.push_requests(1, &req),
                        Err(e) => {
                            s.fail(format!("script: request(): {}", e.0));
                            return false;
                        }
                    }
                }
                None => {
                    crate::request::encode_parts(&s.spec, &parts, &mut one);
                    c.scripted.extend_from_slice(&one);
                }
            }
        }
        match c.h2.as_ref() {
            Some(h) => c.write_end = h.out.len(),
            None => {
                c.write_at = 0;
                c.write_end = c.scripted.len();
            }
        }
        true
    }

    /// Hands the answer just completed on `idx` to `response()`.
    pub(super) fn scripted_answer(&mut self, idx: usize, status: u16) {
        let Some(s) = self.script.as_mut() else {
            return;
        };
        let c = &mut self.conns[idx];
        if s.reads_responses() {
            if let Err(e) = s.thread.response(status, &c.captured) {
                s.fail(e);
            }
            c.captured.clear();
        }
    }
}

/// A script's request checked as `-m` and `-H` are.
fn check(parts: &crate::script::RequestParts) -> Result<(), String> {
    if !parts.method.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(format!("{:?} is not a method (letters only)", parts.method));
    }
    if parts.path.bytes().any(|b| b <= b' ' || b == 0x7f) {
        return Err(format!(
            "the path {:?} has a space or a control byte",
            parts.path
        ));
    }
    crate::spec::check_headers(&parts.headers).map_err(|e| e.to_string())
}
