//! `delay`: GET /delay/{ms} answers `{ms}` as text/plain after waiting that long. An answer
//! sooner than its wait fails (a server that skips the wait is measured doing nothing), a wait
//! beyond [`DELAY_MAX_MS`] or one that is not a number is refused, and waits that cannot overlap
//! (a thread or process held per waiting request) are a warning: that is how a synchronous stack
//! serves it, and under 10,000 connections it is the figure.

use std::time::{Duration, Instant};

use restbench_model::{DELAY_MAX_MS, DELAY_MS, DELAY_TIMER_SLACK_US, Finding};

use super::answer::{TIMEOUT, envelope, snippet};
use super::transport;
use crate::http::{Endpoint, Response};

/// The wait the verifier asks for beside the load's: long enough that an early answer cannot
/// hide in a slow connect.
const LONG_WAIT_MS: u32 = 300;

/// Requests sent at once to see whether waits overlap.
const AT_ONCE: usize = 16;

pub fn check(to: Endpoint) -> Vec<Finding> {
    let mut f = Vec::new();
    for ms in [DELAY_MS, LONG_WAIT_MS, 0] {
        if !waits(to, ms, &mut f) {
            return f;
        }
    }
    for path in [
        format!("/delay/{}", DELAY_MAX_MS + 1),
        "/delay/soon".to_string(),
    ] {
        refused(to, &path, &mut f);
    }
    overlap(to, &mut f);
    f
}

/// One request for `ms`, its answer and that it came after the wait; false when there was no
/// usable answer (the checks after it would only repeat the failure).
fn waits(to: Endpoint, ms: u32, f: &mut Vec<Finding>) -> bool {
    let path = format!("/delay/{ms}");
    let (answer, took) = timed(to, &path);
    let r = match answer {
        Ok(r) => r,
        Err(e) => {
            f.push(Finding::fail(
                "answer",
                format!("GET {path}: no answer ({e})"),
            ));
            return false;
        }
    };
    if !envelope(&r, &format!("GET {path}"), "text/plain", f) {
        return false;
    }
    let body = r.body_text();
    if body.trim() == ms.to_string() {
        f.push(Finding::pass("body", format!("GET {path} → {ms}")));
    } else {
        f.push(Finding::fail(
            "body",
            format!("GET {path}: body {:?}, expected {ms}", snippet(&body)),
        ));
    }
    f.push(judge_wait(&path, ms, took));
    true
}

/// An answer in less than the wait it was asked for (less a timer's slack) fails: the server
/// cannot have waited.
fn judge_wait(path: &str, ms: u32, took: Duration) -> Finding {
    let asked = Duration::from_millis(u64::from(ms));
    if took + Duration::from_micros(DELAY_TIMER_SLACK_US) >= asked {
        Finding::pass(
            "wait",
            format!("GET {path} answered after {} ms", took.as_millis()),
        )
    } else {
        Finding::fail(
            "wait",
            format!(
                "GET {path} answered after {:.1} ms, before its {ms} ms wait: the server did not wait",
                took.as_secs_f64() * 1000.0
            ),
        )
    }
}

/// A wait beyond the limit, or one that is not a number, gets 400 or 404 and no wait.
fn refused(to: Endpoint, path: &str, f: &mut Vec<Finding>) {
    match timed(to, path) {
        (Ok(r), _) if r.status == 400 || r.status == 404 => f.push(Finding::pass(
            "refused",
            format!("GET {path} → {}", r.status),
        )),
        (Ok(r), took) => f.push(Finding::fail(
            "refused",
            format!(
                "GET {path} → {} after {} ms (expected 400 or 404: waits are whole milliseconds up to {DELAY_MAX_MS})",
                r.status,
                took.as_millis()
            ),
        )),
        (Err(e), _) => f.push(Finding::fail(
            "refused",
            format!("GET {path}: no answer ({e}); expected 400 or 404"),
        )),
    }
}

/// [`AT_ONCE`] long waits sent together: an asynchronous server answers them all in about one
/// wait, one that holds a thread per waiting request takes a wait per thread it lacks.
fn overlap(to: Endpoint, f: &mut Vec<Finding>) {
    let path = format!("/delay/{LONG_WAIT_MS}");
    let start = Instant::now();
    let answered = std::thread::scope(|s| {
        let sent: Vec<_> = (0..AT_ONCE)
            .map(|_| s.spawn(|| timed(to, &path).0.is_ok_and(|r| r.status == 200)))
            .collect();
        sent.into_iter()
            .map(|h| h.join().unwrap_or(false))
            .filter(|&ok| ok)
            .count()
    });
    f.push(judge_overlap(answered, start.elapsed()));
}

fn judge_overlap(answered: usize, took: Duration) -> Finding {
    let wait = Duration::from_millis(u64::from(LONG_WAIT_MS));
    if answered < AT_ONCE {
        return Finding::fail(
            "overlap",
            format!(
                "{answered} of {AT_ONCE} requests for /delay/{LONG_WAIT_MS} sent at once were answered 200"
            ),
        );
    }
    let at_once = AT_ONCE as f64 * wait.as_secs_f64() / took.as_secs_f64();
    if took <= wait * 3 {
        Finding::pass(
            "overlap",
            format!(
                "{AT_ONCE} waits of {LONG_WAIT_MS} ms sent at once were answered in {} ms",
                took.as_millis()
            ),
        )
    } else {
        Finding::warn(
            "overlap",
            format!(
                "{AT_ONCE} waits of {LONG_WAIT_MS} ms sent at once took {} ms, about {at_once:.1} at a time: the server holds a thread or process per waiting request",
                took.as_millis()
            ),
        )
    }
}

fn timed(to: Endpoint, path: &str) -> (Result<Response, crate::http::HttpError>, Duration) {
    let start = Instant::now();
    let answer = transport::send(to, "GET", path, &[], b"", TIMEOUT);
    (answer, start.elapsed())
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_model::FindingLevel;

    #[test]
    fn an_answer_before_its_wait_fails_and_one_after_it_passes() {
        let early = judge_wait("/delay/300", 300, Duration::from_millis(2));
        assert_eq!(early.level, FindingLevel::Fail);
        assert!(
            early.message.contains("before its 300 ms wait"),
            "{}",
            early.message
        );
        let held = judge_wait("/delay/300", 300, Duration::from_millis(301));
        assert_eq!(held.level, FindingLevel::Pass);
        assert_eq!(
            judge_wait("/delay/0", 0, Duration::ZERO).level,
            FindingLevel::Pass
        );
    }

    #[test]
    fn waits_served_one_at_a_time_are_a_warning_with_their_count() {
        let serial = judge_overlap(AT_ONCE, Duration::from_millis(300 * AT_ONCE as u64));
        assert_eq!(serial.level, FindingLevel::Warn);
        assert!(
            serial.message.contains("about 1.0 at a time"),
            "{}",
            serial.message
        );
        let overlapping = judge_overlap(AT_ONCE, Duration::from_millis(320));
        assert_eq!(overlapping.level, FindingLevel::Pass);
        assert_eq!(
            judge_overlap(3, Duration::from_millis(320)).level,
            FindingLevel::Fail
        );
    }
}
