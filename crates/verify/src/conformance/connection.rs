//! How long a connection lives: `Connection: close` honoured (RFC 9112 §9.6), HTTP/1.0 closed
//! unless it asked for keep-alive (§9.3), the answer's version (RFC 9110 §2.5) and its `Date`
//! (RFC 9110 §6.6.1). A server that keeps a connection its client asked to close serves a
//! `Connection: close` load as if it were keep-alive (the-benchmarker #9714).

use std::time::Duration;

use restbench_model::{CaseLevel, CaseResult, CaseVerdict};

use super::wire::{After, Answer, WAIT, Wire, WireError};
use super::{Reference, Target, Version, differs, fail, pass, result};

/// How long a server that keeps a 1.0 connection open is given to close it first.
const LINGER: Duration = Duration::from_millis(300);

pub fn cases(target: &Target) -> Vec<CaseResult> {
    let Some(base) = target.get().or(target.references.first()) else {
        return Vec::new();
    };
    vec![
        connection_close(target, base),
        http10_close(target, base),
        http10_keep_alive(target, base),
        response_version(target, base),
        date_header(base),
    ]
}

fn connection_close(target: &Target, base: &Reference) -> CaseResult {
    let case = "connection-close";
    let request = target.request(base.workload, Version::Http11, &[("Connection", "close")]);
    answered_then_closed(case, target, &request, base)
}

fn http10_close(target: &Target, base: &Reference) -> CaseResult {
    let request = target.request(base.workload, Version::Http10, &[]);
    answered_then_closed("http10-close", target, &request, base)
}

/// The reference answer to `request`, then the close within the wait.
fn answered_then_closed(
    case: &str,
    target: &Target,
    request: &[u8],
    base: &Reference,
) -> CaseResult {
    let outcome = (|| {
        let mut wire = Wire::connect(target.addr)?;
        wire.send(request)?;
        let answer = wire.answer(false)?;
        Ok::<_, WireError>((answer, wire.after(WAIT)))
    })();
    match outcome {
        Ok((answer, _)) if differs(&answer, &base.answer).is_some() => {
            fail(case, differs(&answer, &base.answer).unwrap_or_default())
        }
        Ok((answer, After::Closed)) => pass(
            case,
            CaseLevel::Fail,
            format!("answered ({}), then closed", answer.brief()),
        ),
        Ok((_, After::Open)) => fail(
            case,
            format!(
                "answered, then kept the connection open for {} s",
                WAIT.as_secs()
            ),
        ),
        Ok((_, After::Extra(n))) => fail(case, format!("answered, then {n} more bytes")),
        Err(e) => fail(case, e.to_string()),
    }
}

/// HTTP/1.0 with `Connection: keep-alive`: either closed after the answer, or kept open and a
/// second request answered. A server that says keep-alive must keep it.
fn http10_keep_alive(target: &Target, base: &Reference) -> CaseResult {
    let case = "http10-keep-alive";
    let request = target.request(
        base.workload,
        Version::Http10,
        &[("Connection", "keep-alive")],
    );
    let outcome = (|| {
        let mut wire = Wire::connect(target.addr)?;
        wire.send(&request)?;
        let first = wire.answer(false)?;
        if let Some(why) = differs(&first, &base.answer) {
            return Ok(fail(case, why));
        }
        let says_keep = first.connection_has("keep-alive");
        match wire.after(LINGER) {
            After::Closed if says_keep => Ok(fail(
                case,
                "answered with Connection: keep-alive, then closed",
            )),
            After::Closed => Ok(pass(case, CaseLevel::Fail, "answered, then closed")),
            After::Extra(n) => Ok(fail(case, format!("answered, then {n} more bytes"))),
            After::Open => {
                wire.send(&request)?;
                let second = wire
                    .answer(false)
                    .map_err(|e| WireError::Io(format!("kept open, but a second request: {e}")))?;
                Ok(match differs(&second, &base.answer) {
                    Some(why) => fail(case, format!("kept open; the second answer: {why}")),
                    None => pass(
                        case,
                        CaseLevel::Fail,
                        "kept open; a second request answered",
                    ),
                })
            }
        }
    })();
    outcome.unwrap_or_else(|e: WireError| fail(case, e.to_string()))
}

/// `HTTP/1.1` to a 1.1 request; `HTTP/1.1` or `HTTP/1.0` to a 1.0 request (a server sends its
/// highest version, RFC 9110 §2.5).
fn response_version(target: &Target, base: &Reference) -> CaseResult {
    let case = "response-version";
    let mut seen = Vec::new();
    for (version, allowed) in [
        (Version::Http11, &["HTTP/1.1"][..]),
        (Version::Http10, &["HTTP/1.1", "HTTP/1.0"][..]),
    ] {
        let asked = if version == Version::Http11 {
            "1.1"
        } else {
            "1.0"
        };
        let request = target.request(base.workload, version, &[("Connection", "close")]);
        match super::one_exchange(target.addr, &request) {
            Ok(a) if allowed.contains(&a.version.as_str()) => {
                seen.push(format!("{} to {asked}", a.version))
            }
            Ok(a) => return fail(case, format!("{:?} to an HTTP/{asked} request", a.version)),
            Err(e) => return fail(case, format!("an HTTP/{asked} request: {e}")),
        }
    }
    pass(case, CaseLevel::Fail, seen.join(", "))
}

/// RFC 9110 §6.6.1: an origin server with a clock MUST send `Date` in 2xx–4xx answers. A warn:
/// without it nothing is misread, but the answer is cheaper than a real server's.
fn date_header(base: &Reference) -> CaseResult {
    date_verdict(&base.answer)
}

fn date_verdict(answer: &Answer) -> CaseResult {
    let case = "date-header";
    match answer.header("date") {
        Some(d) => pass(case, CaseLevel::Warn, format!("Date: {d}")),
        None => result(case, CaseLevel::Warn, CaseVerdict::Warn, "no Date header"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_date_warns() {
        let mut a = Answer {
            version: "HTTP/1.1".into(),
            status: 200,
            headers: vec![],
            body: vec![],
        };
        assert_eq!(date_verdict(&a).verdict, CaseVerdict::Warn);
        a.headers
            .push(("date".into(), "Tue, 01 Dec 2026 10:00:00 GMT".into()));
        assert_eq!(date_verdict(&a).verdict, CaseVerdict::Pass);
    }
}
