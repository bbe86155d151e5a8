//! Getting an answer and checking its envelope, shared by every checker.

use std::time::Duration;

use crate::http::Endpoint;
use restbench_model::{Finding, Workload};
use serde_json::Value;

use super::transport;
use crate::http::Response;
use crate::requests;

/// How long the verifier waits for one answer.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// The workload's own request; a missing answer is a failed `answer` check.
pub fn fetch(to: Endpoint, w: Workload, f: &mut Vec<Finding>) -> Option<Response> {
    match transport::send(
        to,
        w.method(),
        w.path(),
        &requests::headers(w)
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect::<Vec<_>>(),
        &requests::body(w),
        TIMEOUT,
    ) {
        Ok(r) => Some(r),
        Err(e) => {
            f.push(Finding::fail(
                "answer",
                format!("{} {}: no answer ({e})", w.method(), w.path()),
            ));
            None
        }
    }
}

/// Status, `Content-Type`, framing and `Date`.
pub fn envelope(r: &Response, what: &str, content_type: &str, f: &mut Vec<Finding>) -> bool {
    if r.status != 200 {
        f.push(Finding::fail(
            "status",
            format!(
                "{what} → {} (expected 200): {}",
                r.status,
                snippet(&r.body_text())
            ),
        ));
        return false;
    }
    f.push(Finding::pass("status", format!("{what} → 200")));
    match r.header("content-type") {
        None => f.push(Finding::fail(
            "content-type",
            format!("{what}: no Content-Type header"),
        )),
        Some(ct) if ct.to_ascii_lowercase().starts_with(content_type) => {
            f.push(Finding::pass("content-type", format!("Content-Type: {ct}")))
        }
        Some(ct) => f.push(Finding::fail(
            "content-type",
            format!("{what}: Content-Type {ct:?}, expected {content_type}"),
        )),
    }
    if r.framing == "close" {
        f.push(Finding::fail(
            "framing",
            format!(
                "{what}: neither Content-Length nor chunked; the body ends only with the connection"
            ),
        ));
    } else {
        f.push(Finding::pass("framing", format!("framed by {}", r.framing)));
    }
    if r.header("date").is_none() {
        f.push(Finding::warn("date", format!("{what}: no Date header")));
    }
    true
}

/// The body as JSON; HTML-safe escapes are a warning, anything else a failed `json` check.
pub fn parse_json(r: &Response, f: &mut Vec<Finding>) -> Option<Value> {
    match serde_json::from_slice::<Value>(&r.body) {
        Ok(v) => {
            let text = r.body_text();
            if text.contains("\\u003e") || text.contains("\\u003c") || text.contains("\\u0026") {
                f.push(Finding::warn(
                    "escapes",
                    "HTML-safe escapes such as \\u003e in the JSON (normalised)",
                ));
            }
            Some(v)
        }
        Err(e) => {
            f.push(Finding::fail(
                "json",
                format!("the answer is not JSON ({e}): {}", snippet(&r.body_text())),
            ));
            None
        }
    }
}

/// The start of a text, on one line, for messages.
pub fn snippet(s: &str) -> String {
    let s: String = s.chars().take(120).collect();
    s.replace('\n', "\\n")
}
