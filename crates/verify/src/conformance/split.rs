//! A request as TCP may deliver it: split into two writes at every byte offset, one byte per
//! write, and two pipelined requests split around their boundary. A server that assumes a whole
//! request per read answers the unsplit request and fails these (TechEmpower #9055, HttpArena's
//! validation).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use restbench_model::{CaseLevel, CaseResult};

use super::wire::{Wire, WireError};
use super::{Reference, Target, differs, fail, pass};

/// The pause between the two writes: long enough for the first to leave as its own segment
/// (`TCP_NODELAY`), short enough that a 4 KiB request at every offset takes seconds.
const PAUSE: Duration = Duration::from_millis(2);
/// The pause between one-byte writes: enough for a waiting reader to wake for each byte.
const BYTE_PAUSE: Duration = Duration::from_micros(250);
/// Connections at once over the offsets.
const THREADS: usize = 4;
/// Failed offsets after which a split case stops: the verdict is clear, and each may have
/// cost a whole wait.
const ENOUGH_FAILURES: usize = 16;
/// The most a split case takes however the server behaves.
const CASE_BUDGET: Duration = Duration::from_secs(15);
/// Offsets either side of the boundary between two pipelined requests.
const AROUND_BOUNDARY: usize = 48;

pub fn cases(target: &Target, r: &Reference) -> Vec<CaseResult> {
    vec![
        every_offset(target, r),
        byte_per_write(target, r),
        pipelined(target, r),
    ]
}

fn every_offset(target: &Target, r: &Reference) -> CaseResult {
    let case = format!("split-every-offset/{}", r.workload);
    let offsets: Vec<usize> = (1..r.request.len()).collect();
    let failures = over_offsets(&offsets, |at| {
        let mut wire = Wire::connect(target.addr)?;
        wire.send(&r.request[..at])?;
        std::thread::sleep(PAUSE);
        wire.send(&r.request[at..])?;
        let got = wire.answer(false)?;
        Ok(differs(&got, &r.answer))
    });
    verdict(&case, &offsets, failures, r.request.len())
}

fn byte_per_write(target: &Target, r: &Reference) -> CaseResult {
    let case = format!("one-byte-per-write/{}", r.workload);
    let outcome = (|| {
        let mut wire = Wire::connect(target.addr)?;
        wire.send_in_pieces(&r.request, 1, BYTE_PAUSE)?;
        Ok::<_, WireError>(differs(&wire.answer(false)?, &r.answer))
    })();
    match outcome {
        Ok(None) => pass(
            &case,
            CaseLevel::Fail,
            format!("{} writes of one byte answered", r.request.len()),
        ),
        Ok(Some(why)) => fail(&case, why),
        Err(e) => fail(&case, e.to_string()),
    }
}

fn pipelined(target: &Target, r: &Reference) -> CaseResult {
    let case = format!("pipelined-split/{}", r.workload);
    let len = r.request.len();
    let two = [r.request.as_slice(), r.request.as_slice()].concat();
    let offsets: Vec<usize> = (len.saturating_sub(AROUND_BOUNDARY).max(1)
        ..(len + AROUND_BOUNDARY).min(2 * len))
        .collect();
    let failures = over_offsets(&offsets, |at| {
        let mut wire = Wire::connect(target.addr)?;
        wire.send(&two[..at])?;
        std::thread::sleep(PAUSE);
        wire.send(&two[at..])?;
        let first = wire.answer(false)?;
        if let Some(why) = differs(&first, &r.answer) {
            return Ok(Some(format!("first answer: {why}")));
        }
        // A server may close after any answer that says so (RFC 9112 §9.6); a pipelining
        // client sends the rest again on a new connection (§9.3.2).
        if first.connection_has("close") {
            return Ok(None);
        }
        let second = wire
            .answer(false)
            .map_err(|e| WireError::Io(format!("second answer: {e}")))?;
        Ok(differs(&second, &r.answer).map(|why| format!("second answer: {why}")))
    });
    verdict(&case, &offsets, failures, 2 * len)
}

/// Runs `one` at every offset over a few threads; the failed offsets, in order, with why, and
/// how many offsets ran. A server that fails stops the case after [`ENOUGH_FAILURES`] (each
/// may cost a whole wait) or [`CASE_BUDGET`], so a broken server costs seconds, not an hour.
fn over_offsets(
    offsets: &[usize],
    one: impl Fn(usize) -> Result<Option<String>, WireError> + Sync,
) -> Failures {
    let failures = Mutex::new(Vec::new());
    let ran = AtomicUsize::new(0);
    let started = Instant::now();
    let enough = || {
        failures.lock().map_or(true, |f| f.len() >= ENOUGH_FAILURES)
            || started.elapsed() > CASE_BUDGET
    };
    std::thread::scope(|scope| {
        for lane in 0..THREADS {
            let (failures, one, ran, enough) = (&failures, &one, &ran, &enough);
            scope.spawn(move || {
                for &at in offsets.iter().skip(lane).step_by(THREADS) {
                    if enough() {
                        return;
                    }
                    ran.fetch_add(1, Ordering::Relaxed);
                    let why = match one(at) {
                        Ok(None) => continue,
                        Ok(Some(why)) => why,
                        Err(e) => e.to_string(),
                    };
                    if let Ok(mut f) = failures.lock() {
                        f.push((at, why));
                    }
                }
            });
        }
    });
    let mut failed = failures.into_inner().unwrap_or_default();
    failed.sort();
    Failures {
        failed,
        ran: ran.into_inner(),
    }
}

/// What [`over_offsets`] saw.
struct Failures {
    failed: Vec<(usize, String)>,
    ran: usize,
}

/// The case's verdict from its failed offsets: the first and how many.
fn verdict(case: &str, offsets: &[usize], f: Failures, len: usize) -> CaseResult {
    match f.failed.first() {
        None => pass(
            case,
            CaseLevel::Fail,
            format!("{} offsets of a {len}-byte request answered", offsets.len()),
        ),
        Some((at, why)) => {
            let stopped = if f.ran < offsets.len() {
                format!(" (stopped after {} of {})", f.ran, offsets.len())
            } else {
                String::new()
            };
            fail(
                case,
                format!(
                    "split at byte {at} of {len}: {why}; {} of {} offsets failed{stopped}",
                    f.failed.len(),
                    f.ran
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_model::CaseVerdict;

    #[test]
    fn a_split_case_names_its_first_failed_offset_and_counts_them() {
        let offsets = [1, 2, 3, 4];
        let failed: Vec<(usize, String)> = vec![(2, "no answer".into()), (3, "x".into())];
        let ran_all = Failures {
            failed: failed.clone(),
            ran: 4,
        };
        let v = verdict("c", &offsets, ran_all, 5);
        assert_eq!(v.verdict, CaseVerdict::Fail);
        assert_eq!(
            v.seen,
            "split at byte 2 of 5: no answer; 2 of 4 offsets failed"
        );
        let v = verdict("c", &offsets, Failures { failed, ran: 3 }, 5);
        assert_eq!(
            v.seen,
            "split at byte 2 of 5: no answer; 2 of 3 offsets failed (stopped after 3 of 4)"
        );
        let none = Failures {
            failed: Vec::new(),
            ran: 4,
        };
        assert_eq!(verdict("c", &offsets, none, 5).verdict, CaseVerdict::Pass);
    }

    #[test]
    fn a_failing_server_stops_the_case_early() {
        let offsets: Vec<usize> = (1..1000).collect();
        let f = over_offsets(&offsets, |_| Ok(Some("bad".into())));
        assert!(
            f.failed.len() >= ENOUGH_FAILURES && f.ran < 100,
            "{}",
            f.ran
        );
    }

    #[test]
    fn every_offset_runs_once() {
        let seen = Mutex::new(Vec::new());
        let offsets: Vec<usize> = (1..40).collect();
        let failed = over_offsets(&offsets, |at| {
            seen.lock().unwrap().push(at);
            Ok((at % 10 == 0).then(|| "bad".to_string()))
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        assert_eq!(seen, offsets);
        assert_eq!(
            failed.failed.iter().map(|f| f.0).collect::<Vec<_>>(),
            [10, 20, 30]
        );
        assert_eq!(failed.ran, offsets.len());
    }
}
