//! What a request's head may hold: header names in any case (RFC 9110 §5.1), a large header and
//! many headers (answered, or 431 per RFC 6585 §5), no `Host` (400, RFC 9112 §3.2), a method the
//! server does not serve (501 or 405, RFC 9110 §9.1, §15.5.6), `HEAD` without a body (RFC 9110
//! §9.3.2) and a request line that is not one (400, RFC 9112 §3).

use std::time::Duration;

use restbench_model::{CaseLevel, CaseResult, CaseVerdict};

use super::wire::{After, Wire, WireError};
use super::{Reference, Target, Version, differs, fail, pass, result};

/// The large header's value: 16 KiB, past the 8 KiB some servers allow by default.
const LARGE: usize = 16 * 1024;
/// The extra headers of `many-headers`: under the 96–100 that actix and hyper hold by default,
/// over what a browser sends.
const MANY: usize = 64;
/// How long a server is given to close after refusing a request, or to send body bytes after a
/// `HEAD` answer's head.
const SETTLE: Duration = Duration::from_millis(300);

pub fn cases(target: &Target) -> Vec<CaseResult> {
    let Some(base) = target.get().or(target.references.first()) else {
        return Vec::new();
    };
    vec![
        name_case(target),
        large_header(target, base),
        many_headers(target, base),
        missing_host(target, base),
        unknown_method(target, base),
        head(target, base),
        garbage_request_line(target),
    ]
}

/// Every reference request with its header names in odd case.
fn name_case(target: &Target) -> CaseResult {
    let case = "header-name-case";
    for r in &target.references {
        // Only the head is text: a body (upload's noise) goes back byte for byte.
        let end = r
            .request
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or(r.request.len());
        let head = String::from_utf8_lossy(&r.request[..end])
            .replacen("\r\nHost:", "\r\nhOsT:", 1)
            .replacen("\r\nContent-Type:", "\r\ncOnTeNt-TyPe:", 1)
            .replacen("\r\nContent-Length:", "\r\ncontent-LENGTH:", 1);
        let mut raw = format!("{head}\r\nX-ReStBeNcH: 1\r\n\r\n").into_bytes();
        raw.extend_from_slice(r.request.get(end + 4..).unwrap_or_default());
        match super::one_exchange(target.addr, &raw) {
            Ok(a) => {
                if let Some(why) = differs(&a, &r.answer) {
                    return fail(case, format!("{}: {why}", r.workload));
                }
            }
            Err(e) => return fail(case, format!("{}: {e}", r.workload)),
        }
    }
    pass(
        case,
        CaseLevel::Fail,
        "hOsT, cOnTeNt-TyPe, content-LENGTH read",
    )
}

/// The base request with `extra` headers: answered as the reference, or refused with 431.
fn answered_or_431(
    case: &str,
    target: &Target,
    base: &Reference,
    extra: &[(&str, &str)],
) -> CaseResult {
    let raw = target.request(base.workload, Version::Http11, extra);
    match super::one_exchange(target.addr, &raw) {
        Ok(a) if a.status == 431 => pass(case, CaseLevel::Fail, "431"),
        Ok(a) if (400..500).contains(&a.status) => result(
            case,
            CaseLevel::Fail,
            CaseVerdict::Warn,
            format!("{} (431 is the status for it)", a.status),
        ),
        Ok(a) => match differs(&a, &base.answer) {
            None => pass(case, CaseLevel::Fail, format!("answered ({})", a.brief())),
            Some(why) => fail(case, why),
        },
        Err(e @ WireError::Closed { had: 0 }) => {
            result(case, CaseLevel::Fail, CaseVerdict::Warn, e.to_string())
        }
        Err(e) => fail(case, e.to_string()),
    }
}

fn large_header(target: &Target, base: &Reference) -> CaseResult {
    let value = "a".repeat(LARGE);
    answered_or_431("large-header", target, base, &[("X-Large", &value)])
}

fn many_headers(target: &Target, base: &Reference) -> CaseResult {
    let names: Vec<String> = (0..MANY).map(|i| format!("X-Header-{i}")).collect();
    let extra: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "value")).collect();
    answered_or_431("many-headers", target, base, &extra)
}

/// An HTTP/1.1 request without `Host`: a server MUST answer 400 (RFC 9112 §3.2).
fn missing_host(target: &Target, base: &Reference) -> CaseResult {
    let case = "missing-host";
    let raw = format!(
        "{} {} HTTP/1.1\r\n\r\n",
        base.workload.method(),
        base.workload.path()
    );
    match super::one_exchange(target.addr, raw.as_bytes()) {
        Ok(a) if a.status == 400 => pass(case, CaseLevel::Warn, "400"),
        Ok(a) => result(
            case,
            CaseLevel::Warn,
            CaseVerdict::Warn,
            format!("{} (400 expected)", a.status),
        ),
        Err(e) => result(case, CaseLevel::Warn, CaseVerdict::Warn, e.to_string()),
    }
}

/// A method no server knows on a path the subject serves: 501 (unrecognised) or 405.
fn unknown_method(target: &Target, base: &Reference) -> CaseResult {
    let case = "unknown-method";
    let raw = target.request_as(
        "FROBNICATE",
        base.workload,
        Version::Http11,
        &[("Connection", "close")],
    );
    match super::one_exchange(target.addr, &raw) {
        Ok(a) if a.status == 501 || a.status == 405 => {
            pass(case, CaseLevel::Warn, a.status.to_string())
        }
        Ok(a) => result(
            case,
            CaseLevel::Warn,
            CaseVerdict::Warn,
            format!(
                "{} to FROBNICATE {} (501 or 405 fit)",
                a.status,
                base.workload.path()
            ),
        ),
        Err(e) => result(case, CaseLevel::Warn, CaseVerdict::Warn, e.to_string()),
    }
}

/// `HEAD`, then the plain request on the same connection: a body after the head would be read
/// as the next answer.
fn head(target: &Target, base: &Reference) -> CaseResult {
    let case = "head-no-body";
    let raw = target.request_as("HEAD", base.workload, Version::Http11, &[]);
    let outcome = (|| {
        let mut wire = Wire::connect(target.addr)?;
        wire.send(&raw)?;
        let answer = wire.answer(true)?;
        let status = answer.status;
        match wire.after(SETTLE) {
            After::Extra(n) => {
                return Ok(fail(
                    case,
                    format!("{status}, then {n} bytes after the head"),
                ));
            }
            After::Closed => {
                return Ok(pass(
                    case,
                    CaseLevel::Fail,
                    format!("{status}, then closed"),
                ));
            }
            After::Open => {}
        }
        wire.send(&base.request)?;
        let next = wire.answer(false)?;
        Ok(match differs(&next, &base.answer) {
            Some(why) => fail(case, format!("the request after HEAD: {why}")),
            None if (200..300).contains(&status) => pass(
                case,
                CaseLevel::Fail,
                format!("{status}, no body; the next request answered"),
            ),
            None => result(
                case,
                CaseLevel::Fail,
                CaseVerdict::Warn,
                format!("{status} to HEAD (a server MUST support HEAD where it serves GET)"),
            ),
        })
    })();
    outcome.unwrap_or_else(|e: WireError| fail(case, e.to_string()))
}

/// Bytes that are no request line: 400, then the close.
fn garbage_request_line(target: &Target) -> CaseResult {
    let case = "garbage-request-line";
    let outcome = (|| {
        let mut wire = Wire::connect(target.addr)?;
        wire.send(b"\x01\x02 GARBAGE \xff\xfe\r\n\r\n")?;
        match wire.answer(false) {
            Ok(a) if a.status < 400 => Ok(fail(case, format!("answered {}", a.brief()))),
            Ok(a) => Ok(match wire.after(super::wire::WAIT) {
                After::Closed => pass(case, CaseLevel::Fail, format!("{}, then closed", a.status)),
                _ => result(
                    case,
                    CaseLevel::Fail,
                    CaseVerdict::Warn,
                    format!("{}, but the connection stayed open", a.status),
                ),
            }),
            Err(WireError::Closed { had: 0 }) => Ok(result(
                case,
                CaseLevel::Fail,
                CaseVerdict::Warn,
                "closed without an answer (400 expected)",
            )),
            Err(e) => Err(e),
        }
    })();
    outcome.unwrap_or_else(|e| fail(case, e.to_string()))
}
