//! The verifier against correct and deliberately wrong servers started inside the test.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use restbench_model::Finding;
use restbench_verify as verify;
use restbench_verify::requests::Workload;

use restbench_testkit::TinyServer;

use crate::support::failed_checks;
use restbench_testkit::turn;

/// How a test server deviates from the contract.
#[derive(Clone, Copy, PartialEq)]
enum Flaw {
    None,
    WrongBody,
    AnswersEveryPath,
    CachedEcho,
    NoContentType,
    NoBodyLimit,
    /// `createdAt` with a non-ASCII time-zone offset (a slice inside `é` once panicked).
    NonAsciiDate,
    /// `/delay/{ms}` answered at once, without its wait.
    DelayAnsweredEarly,
    /// `/delay/{ms}` granted beyond its limit of 10,000 ms.
    DelayUncapped,
}

/// A server with `flaw`; the echo cache is per server.
fn start(flaw: Flaw) -> TinyServer {
    let cached: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
    TinyServer::serving(move |stream| handle(stream, flaw, &cached))
}

fn handle(mut s: TcpStream, flaw: Flaw, cached: &Mutex<Option<Vec<u8>>>) {
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let len: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap_or(0))
        })
        .unwrap_or(0);
    let (method, path) = {
        let mut p = head.split_whitespace();
        (
            p.next().unwrap_or("").to_string(),
            p.next().unwrap_or("").to_string(),
        )
    };
    if len > 1024 * 1024 && flaw != Flaw::NoBodyLimit {
        return respond(&mut s, 413, "text/plain", b"too large", flaw);
    }
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => body.extend_from_slice(&chunk[..n]),
        }
    }
    if let Some(ms) = path.strip_prefix("/delay/") {
        return delay(&mut s, ms, flaw);
    }
    let known = matches!(path.as_str(), "/api/test" | "/rest/todo" | "/echo");
    if !known && flaw != Flaw::AnswersEveryPath {
        return respond(&mut s, 404, "text/plain", b"not found", flaw);
    }
    match (method.as_str(), path.as_str()) {
        ("POST", "/echo") => {
            let Ok(v) = serde_json::from_slice::<serde_json::Value>(&body) else {
                return respond(&mut s, 400, "text/plain", b"bad json", flaw);
            };
            let mut out = serde_json::to_vec(&v).unwrap();
            if flaw == Flaw::CachedEcho {
                let mut c = cached.lock().unwrap();
                out = c.get_or_insert(out).clone();
            }
            respond(&mut s, 200, "application/json", &out, flaw)
        }
        ("GET", "/rest/todo") => {
            let items: Vec<_> = restbench_verify::payloads::TODO_TITLES
                .iter()
                .map(|t| {
                    let at = if flaw == Flaw::NonAsciiDate {
                        "2020-01-01T00:00:00+1é1"
                    } else {
                        "2026-11-29T19:01:24.123Z"
                    };
                    serde_json::json!({"title": t, "createdAt": at})
                })
                .collect();
            respond(
                &mut s,
                200,
                "application/json",
                &serde_json::to_vec(&items).unwrap(),
                flaw,
            )
        }
        _ => {
            let body: &[u8] = if flaw == Flaw::WrongBody {
                b"Hello World"
            } else {
                b"Hello, World!"
            };
            respond(&mut s, 200, "text/plain; charset=utf-8", body, flaw)
        }
    }
}

/// `GET /delay/{ms}`: the wait (this server's connections have a thread each), then `ms`. An
/// uncapped one answers a wait beyond the limit at once (the test does not wait 10 s for it).
fn delay(s: &mut TcpStream, ms: &str, flaw: Flaw) {
    match ms.parse::<u64>() {
        Ok(wait) if wait <= 10_000 => {
            if flaw != Flaw::DelayAnsweredEarly {
                std::thread::sleep(Duration::from_millis(wait));
            }
            respond(s, 200, "text/plain", ms.as_bytes(), flaw)
        }
        Ok(_) if flaw == Flaw::DelayUncapped => respond(s, 200, "text/plain", ms.as_bytes(), flaw),
        _ => respond(s, 404, "text/plain", b"not found", flaw),
    }
}

fn respond(s: &mut TcpStream, status: u16, ct: &str, body: &[u8], flaw: Flaw) {
    let ct = if flaw == Flaw::NoContentType {
        String::new()
    } else {
        format!("Content-Type: {ct}\r\n")
    };
    let head = format!(
        "HTTP/1.1 {status} X\r\n{ct}Content-Length: {}\r\nDate: Sun, 29 Nov 2026 19:01:24 GMT\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(body);
}

fn check(flaw: Flaw, w: Workload) -> Vec<Finding> {
    let server = start(flaw);
    let mut f = verify::common(server.addr());
    f.extend(verify::workload(server.addr(), w, None));
    f
}

#[test]
fn a_correct_server_passes_every_workload_without_a_database() {
    let _turn = turn::take(module_path!());
    for w in [
        Workload::Plaintext,
        Workload::Todo,
        Workload::Echo,
        Workload::Delay,
    ] {
        let f = check(Flaw::None, w);
        assert!(verify::passed(&f), "{w}: {:?}", failed_checks(&f));
    }
}

#[test]
fn a_wrong_body_fails() {
    let _turn = turn::take(module_path!());
    let f = check(Flaw::WrongBody, Workload::Plaintext);
    assert!(
        failed_checks(&f).iter().any(|m| m.starts_with("body:")),
        "{f:?}"
    );
}

#[test]
fn a_server_that_answers_every_path_fails() {
    let _turn = turn::take(module_path!());
    let f = check(Flaw::AnswersEveryPath, Workload::Plaintext);
    assert!(
        failed_checks(&f)
            .iter()
            .any(|m| m.starts_with("unknown-path:")),
        "{f:?}"
    );
}

#[test]
fn a_cached_echo_fails() {
    let _turn = turn::take(module_path!());
    let f = check(Flaw::CachedEcho, Workload::Echo);
    assert!(
        failed_checks(&f).iter().any(|m| m.starts_with("no-cache:")),
        "{f:?}"
    );
}

#[test]
fn a_missing_content_type_fails() {
    let _turn = turn::take(module_path!());
    let f = check(Flaw::NoContentType, Workload::Todo);
    assert!(
        failed_checks(&f)
            .iter()
            .any(|m| m.starts_with("content-type:")),
        "{f:?}"
    );
}

#[test]
fn a_missing_body_limit_fails() {
    let _turn = turn::take(module_path!());
    let f = check(Flaw::NoBodyLimit, Workload::Echo);
    assert!(
        failed_checks(&f)
            .iter()
            .any(|m| m.starts_with("body-limit:")),
        "{f:?}"
    );
}

#[test]
fn a_non_ascii_time_zone_offset_is_a_date_failure_not_a_panic() {
    let _turn = turn::take(module_path!());
    let f = check(Flaw::NonAsciiDate, Workload::Todo);
    assert!(
        failed_checks(&f).iter().any(|m| m.starts_with("date:")),
        "{f:?}"
    );
}

#[test]
fn a_delay_answered_before_its_wait_fails_naming_the_wait() {
    let _turn = turn::take(module_path!());
    let f = check(Flaw::DelayAnsweredEarly, Workload::Delay);
    let failed = failed_checks(&f);
    assert!(
        failed
            .iter()
            .any(|m| m.starts_with("wait:") && m.contains("before its 300 ms wait")),
        "{f:?}"
    );
}

#[test]
fn a_delay_granted_beyond_its_limit_fails() {
    let _turn = turn::take(module_path!());
    let f = check(Flaw::DelayUncapped, Workload::Delay);
    assert!(
        failed_checks(&f)
            .iter()
            .any(|m| m.starts_with("refused:") && m.contains("/delay/10001")),
        "{f:?}"
    );
}

#[test]
fn users_without_a_database_is_a_failure_with_the_reason() {
    let _turn = turn::take(module_path!());
    let f = check(Flaw::None, Workload::Users);
    assert!(
        failed_checks(&f)
            .iter()
            .any(|m| m.contains("needs a database")),
        "{f:?}"
    );
}
