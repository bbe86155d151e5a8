//! Request bodies as clients frame them (RFC 9112 §6–7): chunked, after `Expect: 100-continue`
//! (RFC 9110 §10.1.1), trickled in small pieces, and the smuggling shape with both
//! `Content-Length` and `Transfer-Encoding` (RFC 9112 §6.1), after which the connection must not
//! be desynchronised.

use std::time::Duration;

use restbench_model::{CaseLevel, CaseResult, CaseVerdict, Workload};

use super::wire::{Wire, WireError};
use super::{Reference, Target, differs, fail, pass, result};
use crate::requests;

/// How long a server is given to send `100 Continue` before the body goes anyway (a client
/// waits "for some unspecified period", RFC 9110 §10.1.1; curl waits 1 s).
const CONTINUE_WAIT: Duration = Duration::from_secs(1);

pub fn cases(target: &Target) -> Vec<CaseResult> {
    let mut out = Vec::new();
    if let Some(echo) = target.of(Workload::Echo) {
        out.push(chunked(target, echo));
        out.push(expect_continue(target, echo));
        out.push(small_pieces(target, echo));
    }
    if let Some(base) = target.get().or(target.references.first()) {
        out.push(length_and_chunked(target, base));
    }
    out
}

/// `body` as chunks of `size` bytes, then the last chunk.
fn chunk(body: &[u8], size: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for c in body.chunks(size.max(1)) {
        out.extend_from_slice(format!("{:x}\r\n", c.len()).as_bytes());
        out.extend_from_slice(c);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

/// The echo request's head with `extra` headers and no `Content-Length`.
fn echo_head(target: &Target, extra: &[(&str, &str)]) -> Vec<u8> {
    let mut head = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\n",
        Workload::Echo.path(),
        target.addr
    );
    for (n, v) in requests::headers(Workload::Echo)
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .chain(extra.iter().copied())
    {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("\r\n");
    head.into_bytes()
}

fn chunked(target: &Target, echo: &Reference) -> CaseResult {
    let case = "echo-chunked";
    let body = requests::body(Workload::Echo);
    let mut request = echo_head(target, &[("Transfer-Encoding", "chunked")]);
    request.extend_from_slice(&chunk(&body, 256));
    match super::one_exchange(target.addr, &request) {
        Ok(a) => match differs(&a, &echo.answer) {
            None => pass(
                case,
                CaseLevel::Fail,
                format!("{} chunks answered", body.len().div_ceil(256)),
            ),
            Some(why) => fail(case, why),
        },
        Err(e) => fail(case, e.to_string()),
    }
}

fn expect_continue(target: &Target, echo: &Reference) -> CaseResult {
    let case = "echo-expect-continue";
    let body = requests::body(Workload::Echo);
    let length = body.len().to_string();
    let head = echo_head(
        target,
        &[("Content-Length", &length), ("Expect", "100-continue")],
    );
    let outcome = (|| {
        let mut wire = Wire::connect(target.addr)?;
        wire.send(&head)?;
        let seen = match wire.interim_or_final(CONTINUE_WAIT)? {
            Some(a) if a.status == 100 => "100 Continue, then",
            Some(a) => {
                return Ok(pass(
                    case,
                    CaseLevel::Fail,
                    format!("a final answer before the body: {}", a.brief()),
                ));
            }
            None => "no 100 Continue within 1 s; the body sent anyway,",
        };
        wire.send(&body)?;
        let answer = wire.answer(false)?;
        Ok(match differs(&answer, &echo.answer) {
            None => pass(case, CaseLevel::Fail, format!("{seen} answered")),
            Some(why) => fail(case, format!("{seen} {why}")),
        })
    })();
    outcome.unwrap_or_else(|e: WireError| fail(case, e.to_string()))
}

fn small_pieces(target: &Target, echo: &Reference) -> CaseResult {
    let case = "echo-small-pieces";
    let body = requests::body(Workload::Echo);
    let length = body.len().to_string();
    let head = echo_head(target, &[("Content-Length", &length)]);
    let piece = 16;
    let outcome = (|| {
        let mut wire = Wire::connect(target.addr)?;
        wire.send(&head)?;
        wire.send_in_pieces(&body, piece, Duration::from_millis(1))?;
        Ok::<_, WireError>(differs(&wire.answer(false)?, &echo.answer))
    })();
    match outcome {
        Ok(None) => pass(
            case,
            CaseLevel::Fail,
            format!(
                "{} pieces of {piece} bytes answered",
                body.len().div_ceil(piece)
            ),
        ),
        Ok(Some(why)) => fail(case, why),
        Err(e) => fail(case, e.to_string()),
    }
}

/// `Content-Length: 4` beside `Transfer-Encoding: chunked`, a request behind it on the same
/// connection. Refusing and closing, or framing by the chunks, is right (RFC 9112 §6.1 asks for
/// the close after either); the second request answered as its own is what must hold.
fn length_and_chunked(target: &Target, base: &Reference) -> CaseResult {
    let case = "content-length-with-chunked";
    let (method, path, body) = if base.workload == Workload::Echo {
        (
            "POST",
            Workload::Echo.path(),
            requests::body(Workload::Echo),
        )
    } else {
        (
            "POST",
            base.workload.path(),
            b"hello, smuggled world".to_vec(),
        )
    };
    let mut raw = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n",
        target.addr
    )
    .into_bytes();
    raw.extend_from_slice(&chunk(&body, 64));
    raw.extend_from_slice(&base.request);
    let outcome = (|| {
        let mut wire = Wire::connect(target.addr)?;
        wire.send(&raw)?;
        let first = match wire.answer(false) {
            Ok(a) => a,
            Err(WireError::Closed { had: 0 }) => {
                return Ok(pass(case, CaseLevel::Fail, "closed without an answer"));
            }
            Err(e) => return Err(e),
        };
        match wire.answer(false) {
            Err(WireError::Closed { had: 0 }) => Ok(pass(
                case,
                CaseLevel::Fail,
                format!("{}, then closed", first.status),
            )),
            Ok(second) => Ok(match differs(&second, &base.answer) {
                Some(why) => fail(
                    case,
                    format!(
                        "desynchronised: {} then, for the request behind it, {why}",
                        first.status
                    ),
                ),
                None => result(
                    case,
                    CaseLevel::Fail,
                    CaseVerdict::Warn,
                    format!(
                        "{}, and the request behind it answered; kept open (RFC 9112 §6.1: close)",
                        first.status
                    ),
                ),
            }),
            Err(e) => Ok(fail(
                case,
                format!("{}, then for the request behind it: {e}", first.status),
            )),
        }
    })();
    outcome.unwrap_or_else(|e: WireError| fail(case, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_chunked_with_a_last_chunk() {
        assert_eq!(
            chunk(b"abcde", 2),
            b"2\r\nab\r\n2\r\ncd\r\n1\r\ne\r\n0\r\n\r\n"
        );
    }
}
