//! How a server reads HTTP/1.1, beside what it answers (the rest of `verify`): requests split at
//! every byte and pipelined (`split`), `Connection: close` and HTTP/1.0 (`connection`),
//! request bodies and their framing (`framing`), odd and missing headers and request lines
//! (`headers`). Each case runs over fresh raw connections ([`wire`]) with bounded waits, so a
//! server that hangs gets a verdict, not a stuck run. The cases, their levels and their RFC
//! sections are listed in `docs/conformance.md`; `restbench conformance`'s loop and the per-build
//! cache the run's conformance step shares are the harness's (its `sessions`).

mod connection;
mod framing;
mod headers;
mod split;
pub mod wire;

use std::net::SocketAddr;

use restbench_model::{CaseLevel, CaseResult, CaseVerdict, Workload};

use crate::requests;
use wire::{Answer, Wire, WireError};

/// Bumped whenever a case changes, so that cached results of an older suite are not reused.
pub const SUITE_VERSION: u32 = 5;

/// One workload of the subject with the answer its plain request gets, the reference every
/// other shape of the same request is held to.
#[derive(Debug, Clone)]
pub struct Reference {
    pub workload: Workload,
    /// The request as the load sends it (keep-alive).
    pub request: Vec<u8>,
    pub answer: Answer,
}

/// The server under test and what its plain requests answer.
pub struct Target {
    pub addr: SocketAddr,
    pub references: Vec<Reference>,
}

impl Target {
    /// The request the load sends for `w` (route, headers, body from [`crate::requests`], Host
    /// with the port as the load sends it), with `extra` headers after Host.
    pub fn request(&self, w: Workload, version: Version, extra: &[(&str, &str)]) -> Vec<u8> {
        request_as(w.method(), w, &self.addr.to_string(), version, extra)
    }

    /// [`Target::request`] with another method.
    pub fn request_as(
        &self,
        method: &str,
        w: Workload,
        version: Version,
        extra: &[(&str, &str)],
    ) -> Vec<u8> {
        request_as(method, w, &self.addr.to_string(), version, extra)
    }

    /// The reference of a `GET` workload (plaintext first: the smallest answer).
    fn get(&self) -> Option<&Reference> {
        [Workload::Plaintext, Workload::Todo, Workload::Users]
            .iter()
            .find_map(|w| self.of(*w))
    }

    fn of(&self, w: Workload) -> Option<&Reference> {
        self.references.iter().find(|r| r.workload == w)
    }
}

/// Every case against the server at `addr`, for the `workloads` it serves. A workload whose
/// plain request gets no good answer warns in its own case; the cases that need it are left out.
/// A workload whose answer varies by design ([`Workload::answer_varies`]: a random row) has no
/// reference answer to hold the other shapes to, so its cases are not run; its requests are
/// `GET`s with a query string, read as plaintext's are.
pub fn check(addr: SocketAddr, workloads: &[Workload]) -> Vec<CaseResult> {
    let mut results = Vec::new();
    let mut target = Target {
        addr,
        references: Vec::new(),
    };
    for &w in workloads.iter().filter(|w| !w.answer_varies()) {
        let request = target.request(w, Version::Http11, &[]);
        match one_exchange(addr, &request) {
            Ok(answer) if (200..300).contains(&answer.status) => {
                target.references.push(Reference {
                    workload: w,
                    request,
                    answer,
                })
            }
            Ok(answer) => results.push(unchecked(w, format!("got {}", answer.brief()))),
            Err(e) => results.push(unchecked(w, e.to_string())),
        }
    }
    for r in &target.references {
        results.extend(split::cases(&target, r));
    }
    results.extend(connection::cases(&target));
    results.extend(framing::cases(&target));
    results.extend(headers::cases(&target));
    results
}

/// A workload whose plain request got no good answer: its cases are not run. A warn, since
/// whether the workload works is `verify`'s finding (a users request without a database, say),
/// not how the server reads HTTP.
fn unchecked(w: Workload, why: String) -> CaseResult {
    result(
        &format!("plain-request/{w}"),
        CaseLevel::Warn,
        CaseVerdict::Warn,
        format!("the plain request {why}; its cases were not run"),
    )
}

/// The HTTP version a request says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Version {
    Http10,
    Http11,
}

/// A request for `w`'s route with `method`, `Host: host` and `extra` headers, then the
/// workload's own headers and body.
fn request_as(
    method: &str,
    w: Workload,
    host: &str,
    version: Version,
    extra: &[(&str, &str)],
) -> Vec<u8> {
    let version = match version {
        Version::Http10 => "HTTP/1.0",
        Version::Http11 => "HTTP/1.1",
    };
    let mut head = format!("{method} {} {version}\r\nHost: {host}\r\n", w.path());
    for (n, v) in extra {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    for (n, v) in requests::headers(w) {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    let body = requests::probe_body(w);
    if !body.is_empty() {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(&body);
    bytes
}

/// `raw` on a fresh connection, one answer back.
pub fn one_exchange(addr: SocketAddr, raw: &[u8]) -> Result<Answer, WireError> {
    let mut wire = Wire::connect(addr)?;
    wire.send(raw)?;
    wire.answer(false)
}

/// Why `got` is not the reference answer, if it is not: the status, and the body as framed.
fn differs(got: &Answer, reference: &Answer) -> Option<String> {
    if got.status != reference.status {
        return Some(format!(
            "status {} where the plain request gets {}",
            got.status, reference.status
        ));
    }
    if got.body != reference.body {
        return Some(format!(
            "a {}-byte body where the plain request gets {} bytes",
            got.body.len(),
            reference.body.len()
        ));
    }
    None
}

/// A verdict, never above the case's level: a warn-level case that goes badly warns.
fn result(
    case: &str,
    level: CaseLevel,
    verdict: CaseVerdict,
    seen: impl Into<String>,
) -> CaseResult {
    let verdict = match (level, verdict) {
        (CaseLevel::Warn, CaseVerdict::Fail) => CaseVerdict::Warn,
        (_, v) => v,
    };
    CaseResult {
        case: case.into(),
        level,
        verdict,
        seen: seen.into(),
    }
}

fn pass(case: &str, level: CaseLevel, seen: impl Into<String>) -> CaseResult {
    result(case, level, CaseVerdict::Pass, seen)
}

fn fail(case: &str, seen: impl Into<String>) -> CaseResult {
    result(case, CaseLevel::Fail, CaseVerdict::Fail, seen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warn_level_case_never_fails() {
        let r = result("c", CaseLevel::Warn, CaseVerdict::Fail, "x");
        assert_eq!(r.verdict, CaseVerdict::Warn);
        let r = result("c", CaseLevel::Fail, CaseVerdict::Warn, "x");
        assert_eq!(r.verdict, CaseVerdict::Warn);
        assert_eq!(fail("c", "x").verdict, CaseVerdict::Fail);
    }

    #[test]
    fn a_workload_that_answers_random_rows_is_no_reference() {
        // A server that answers /db with a body whose length changes every time, as a random
        // World row's does: holding a split request to the plain one's answer would fail it.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            use std::io::{Read, Write};
            for (n, stream) in listener.incoming().take(8).enumerate() {
                let Ok(mut s) = stream else { continue };
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf);
                let body = format!(
                    "{{\"id\":{},\"randomNumber\":1}}",
                    10usize.pow(n as u32 % 4)
                );
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        let results = check(addr, &[Workload::Db, Workload::Queries]);
        let about_db: Vec<&CaseResult> = results
            .iter()
            .filter(|c| c.case.ends_with("/db") || c.case.ends_with("/queries"))
            .collect();
        assert!(about_db.is_empty(), "{about_db:?}");
        assert!(Workload::Db.answer_varies() && !Workload::Plaintext.answer_varies());
        assert!(!Workload::Fortunes.answer_varies() && !Workload::Json.answer_varies());
    }

    #[test]
    fn requests_are_the_loads_bytes() {
        let host = "127.0.0.1:1";
        let plain = request_as("GET", Workload::Plaintext, host, Version::Http11, &[]);
        assert_eq!(
            plain,
            b"GET /api/test HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n".to_vec()
        );
        let echo = request_as(
            "POST",
            Workload::Echo,
            "127.0.0.1",
            Version::Http10,
            &[("A", "b")],
        );
        let echo = String::from_utf8(echo).unwrap();
        assert!(echo.starts_with("POST /echo HTTP/1.0\r\nHost: 127.0.0.1\r\nA: b\r\nContent-Type: application/json\r\nContent-Length: "), "{echo}");
    }
}
