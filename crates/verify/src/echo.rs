//! `echo`: POST /echo parses the colours document and serializes it back; it must not cache,
//! must refuse malformed JSON with 400 and bodies over [`BODY_LIMIT`] with 413, and stay up.

use crate::http::Endpoint;
use restbench_model::{Finding, Workload};
use serde_json::Value;

use super::answer::{TIMEOUT, envelope, fetch, parse_json, snippet};
use super::transport;
use crate::payloads;

/// The body limit of the contract.
pub const BODY_LIMIT: usize = 1024 * 1024;

pub fn check(to: Endpoint) -> Vec<Finding> {
    let mut f = Vec::new();
    let sent = payloads::colors_document();
    let Some(r) = fetch(to, Workload::Echo, &mut f) else {
        return f;
    };
    if envelope(&r, "POST /echo", "application/json", &mut f)
        && let Some(answer) = parse_json(&r, &mut f)
    {
        compare_echo(
            &serde_json::from_str(&sent).unwrap_or(Value::Null),
            &answer,
            &mut f,
        );
        if String::from_utf8_lossy(&r.body) == sent {
            f.push(Finding::warn(
                "echo",
                "the answer is byte-for-byte the request: is the body parsed at all?",
            ));
        }
    }

    f.push(varied_bodies(to));
    f.push(malformed_json(to));
    f.push(body_limit(to));
    f.push(stays_up(to));
    f
}

/// Varying bodies: a cached or canned answer would not follow.
fn varied_bodies(to: Endpoint) -> Finding {
    for round in 0..2 {
        let doc =
            payloads::colors_document_with(1 + round, |i, name| format!("{name}-{round}-{i}"));
        match transport::send(
            to,
            "POST",
            "/echo",
            &[("Content-Type", "application/json")],
            doc.as_bytes(),
            TIMEOUT,
        ) {
            Ok(r) if r.status == 200 => {
                let expected: Value = serde_json::from_str(&doc).unwrap_or(Value::Null);
                match serde_json::from_slice::<Value>(&r.body) {
                    Ok(v) if same_ignoring_nulls(&expected, &v) => {}
                    _ => {
                        return Finding::fail(
                            "no-cache",
                            format!(
                                "a different body ({} colours) got a different echo: the answer is cached or canned",
                                6 * (1 + round)
                            ),
                        );
                    }
                }
            }
            Ok(r) => {
                return Finding::fail("no-cache", format!("a varied body got {}", r.status));
            }
            Err(e) => {
                return Finding::fail("no-cache", format!("a varied body got no answer ({e})"));
            }
        }
    }
    Finding::pass("no-cache", "varied bodies are echoed as sent")
}

/// Malformed JSON → 400.
fn malformed_json(to: Endpoint) -> Finding {
    match transport::send(
        to,
        "POST",
        "/echo",
        &[("Content-Type", "application/json")],
        b"{\"colors\": [{\"color\": ",
        TIMEOUT,
    ) {
        Ok(r) if r.status == 400 => Finding::pass("malformed-json", "malformed JSON → 400"),
        Ok(r) if (400..500).contains(&r.status) => Finding::warn(
            "malformed-json",
            format!("malformed JSON → {} (400 expected)", r.status),
        ),
        Ok(r) => Finding::fail(
            "malformed-json",
            format!("malformed JSON → {} (400 expected)", r.status),
        ),
        Err(e) => Finding::fail("malformed-json", format!("malformed JSON: no answer ({e})")),
    }
}

/// A body over 1 MiB → 413.
fn body_limit(to: Endpoint) -> Finding {
    let big = oversized_json();
    match transport::send(
        to,
        "POST",
        "/echo",
        &[("Content-Type", "application/json")],
        &big,
        TIMEOUT,
    ) {
        Ok(r) if r.status == 413 => {
            Finding::pass("body-limit", format!("{} byte body → 413", big.len()))
        }
        Ok(r) => Finding::fail(
            "body-limit",
            format!("{} byte body → {} (413 expected)", big.len(), r.status),
        ),
        Err(e) => Finding::warn(
            "body-limit",
            format!(
                "{} byte body: connection closed without a 413 ({e})",
                big.len()
            ),
        ),
    }
}

/// Still up after bad input.
fn stays_up(to: Endpoint) -> Finding {
    let mut after = Vec::new();
    match fetch(to, Workload::Echo, &mut after) {
        Some(r) if r.status == 200 => Finding::pass(
            "stays-up",
            "still answers after malformed and oversized bodies",
        ),
        Some(r) => Finding::fail(
            "stays-up",
            format!("after bad input, a good request got {}", r.status),
        ),
        None => Finding::fail(
            "stays-up",
            "the server stopped answering after malformed or oversized bodies",
        ),
    }
}

/// A valid JSON colours document just over the body limit.
pub fn oversized_json() -> Vec<u8> {
    let entry =
        br##"{"color":"black","category":"hue","code":{"rgba":[255,255,255,1],"hex":"#000"}}"##;
    let mut out = b"{\"colors\":[".to_vec();
    while out.len() <= BODY_LIMIT + 1024 {
        if out.len() > 11 {
            out.push(b',');
        }
        out.extend_from_slice(entry);
    }
    out.extend_from_slice(b"]}");
    out
}

fn compare_echo(sent: &Value, answer: &Value, f: &mut Vec<Finding>) {
    if sent == answer {
        f.push(Finding::pass("echo", "the same JSON value came back"));
    } else if same_ignoring_nulls(sent, answer) {
        f.push(Finding::warn(
            "echo",
            "the same value except `null` for absent fields (as Jackson writes \"type\": null)",
        ));
    } else {
        f.push(Finding::fail(
            "echo",
            format!(
                "a different JSON value came back: {}",
                snippet(&answer.to_string())
            ),
        ));
    }
}

/// Equality after dropping object members whose value is `null`.
fn same_ignoring_nulls(a: &Value, b: &Value) -> bool {
    fn strip(v: &Value) -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, v)| (k.clone(), strip(v)))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
            other => other.clone(),
        }
    }
    strip(a) == strip(b)
}

#[cfg(test)]
mod tests {
    use restbench_model::FindingLevel;

    use super::*;

    #[test]
    fn nulls_for_absent_fields_are_tolerated() {
        let a: Value = serde_json::from_str(r#"{"a":1,"b":[{"c":2}]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"b":[{"c":2,"t":null}],"a":1}"#).unwrap();
        assert!(same_ignoring_nulls(&a, &b));
        let mut f = Vec::new();
        compare_echo(&a, &b, &mut f);
        assert_eq!(f[0].level, FindingLevel::Warn);
    }

    #[test]
    fn oversized_json_is_valid_and_over_the_limit() {
        let big = oversized_json();
        assert!(big.len() > BODY_LIMIT);
        assert!(serde_json::from_slice::<Value>(&big).is_ok());
    }
}
