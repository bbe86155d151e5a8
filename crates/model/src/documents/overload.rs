//! Where a ramp broke: a load whose rate moves from A to B (`-R A:B`) read second by second as
//! latency against the offered rate, and the first stretch where the server stopped keeping up.
//! HttpArena's users ask for this overload profile; one number ("max req/s") hides where the
//! latency went first.
//!
//! The seconds are grouped into at most [`MAX_BUCKETS`] stretches of equal length. A stretch's
//! p99 is the highest of its seconds' p99 (percentiles of different seconds cannot be merged
//! from their summaries; the highest is an upper bound of the stretch's own), its achieved rate
//! its answers over its seconds.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The most stretches a ramp is read in: enough to place a knee within 5 % of the ramp.
pub const MAX_BUCKETS: usize = 20;

/// A stretch is broken when it answers less than this share of the rate it was offered.
pub const MIN_ACHIEVED_SHARE: f64 = 0.9;

/// A stretch is broken when more than this share of its requests failed.
pub const MAX_ERROR_SHARE: f64 = 0.01;

/// The ramp read stretch by stretch, and its knee.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overload {
    /// The p99 above which a stretch is broken (`--knee-p99`).
    pub p99_limit_us: u64,
    pub buckets: Vec<OverloadBucket>,
    /// The first broken stretch; `None` when the server kept up over the whole ramp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knee: Option<Knee>,
}

/// One stretch of the ramp.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverloadBucket {
    /// Its seconds of the measured period, `from_s..to_s`.
    pub from_s: u32,
    pub to_s: u32,
    /// The rate the ramp offered, averaged over the stretch.
    pub offered_rps: f64,
    pub achieved_rps: f64,
    /// The highest p99 of its seconds; `None` when nothing was answered in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_us: Option<u64>,
    pub errors: u64,
}

/// The first stretch that broke, and by which rule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Knee {
    /// Index into [`Overload::buckets`].
    pub bucket: usize,
    pub offered_rps: f64,
    pub reason: String,
}

/// One second of the measured period, as the load document's `timeseries` has it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Second {
    pub second: u32,
    pub requests: u64,
    pub errors: u64,
    pub p99_us: Option<u64>,
}

/// A ramp from `from` to `to` req/s over `secs` seconds, read from its `seconds`
/// ([`crate::LoadResult::overload_profile`] gives them); `p99_limit` is the latency beyond which a
/// stretch is broken. `None` with no second to read.
pub fn profile(
    (from, to, secs): (f64, f64, f64),
    seconds: &[Second],
    p99_limit: Duration,
) -> Option<Overload> {
    let seconds: Vec<&Second> = seconds
        .iter()
        .filter(|t| f64::from(t.second) < secs)
        .collect();
    if seconds.is_empty() || secs <= 0.0 {
        return None;
    }
    let last = seconds.iter().map(|t| t.second).max()? + 1;
    let width = last.div_ceil(MAX_BUCKETS as u32).max(1);
    let limit_us = p99_limit.as_micros() as u64;
    let offered_at = |t: f64| from + (to - from) * (t / secs).clamp(0.0, 1.0);
    let mut buckets = Vec::new();
    let mut start = 0;
    while start < last {
        let end = (start + width).min(last);
        let inside: Vec<_> = seconds
            .iter()
            .filter(|t| (start..end).contains(&t.second))
            .collect();
        let span = f64::from(end - start);
        let requests: u64 = inside.iter().map(|t| t.requests).sum();
        buckets.push(OverloadBucket {
            from_s: start,
            to_s: end,
            offered_rps: offered_at((f64::from(start) + f64::from(end)) / 2.0),
            achieved_rps: requests as f64 / span,
            p99_us: inside.iter().filter_map(|t| t.p99_us).max(),
            errors: inside.iter().map(|t| t.errors).sum(),
        });
        start = end;
    }
    let knee = buckets
        .iter()
        .enumerate()
        .find_map(|(i, b)| broken(b, limit_us).map(|reason| (i, b.offered_rps, reason)))
        .map(|(bucket, offered_rps, reason)| Knee {
            bucket,
            offered_rps,
            reason,
        });
    Some(Overload {
        p99_limit_us: limit_us,
        buckets,
        knee,
    })
}

/// Why a stretch broke, by the first rule it fails: its p99 over the limit, fewer answers than
/// [`MIN_ACHIEVED_SHARE`] of what it was offered, or more errors than [`MAX_ERROR_SHARE`].
fn broken(b: &OverloadBucket, limit_us: u64) -> Option<String> {
    if let Some(p99) = b.p99_us.filter(|&p| p > limit_us) {
        return Some(format!(
            "p99 {} ms over the limit of {} ms",
            ms(p99),
            ms(limit_us)
        ));
    }
    if b.achieved_rps < MIN_ACHIEVED_SHARE * b.offered_rps {
        return Some(format!(
            "answered {:.0} req/s of the {:.0} offered (under {:.0} %)",
            b.achieved_rps,
            b.offered_rps,
            MIN_ACHIEVED_SHARE * 100.0
        ));
    }
    let span = f64::from(b.to_s - b.from_s);
    let total = b.achieved_rps * span + b.errors as f64;
    if total > 0.0 && b.errors as f64 > MAX_ERROR_SHARE * total {
        return Some(format!(
            "{} errors, over {:.0} % of its requests",
            b.errors,
            MAX_ERROR_SHARE * 100.0
        ));
    }
    None
}

fn ms(us: u64) -> String {
    format!("{:.1}", us as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ramp from 1,000 to 5,000 req/s over as many seconds as `seconds` has.
    fn ramp(seconds: &[(u64, u64, u64)], limit: Duration) -> Option<Overload> {
        let seconds: Vec<Second> = seconds
            .iter()
            .enumerate()
            .map(|(i, &(requests, errors, p99))| Second {
                second: i as u32,
                requests,
                errors,
                p99_us: Some(p99),
            })
            .collect();
        profile((1000.0, 5000.0, seconds.len() as f64), &seconds, limit)
    }

    const LIMIT: Duration = Duration::from_millis(100);

    #[test]
    fn the_knee_is_the_first_stretch_over_the_p99_limit() {
        // 4 s from 1,000 to 5,000 req/s: offered 1,500, 2,500, 3,500, 4,500 in each second.
        let o = ramp(
            &[
                (1500, 0, 2_000),
                (2500, 0, 5_000),
                (3400, 0, 150_000),
                (3500, 0, 900_000),
            ],
            LIMIT,
        )
        .unwrap();
        assert_eq!(o.buckets.len(), 4);
        assert_eq!(o.buckets[1].offered_rps, 2500.0);
        let knee = o.knee.unwrap();
        assert_eq!((knee.bucket, knee.offered_rps), (2, 3500.0));
        assert_eq!(knee.reason, "p99 150.0 ms over the limit of 100.0 ms");
    }

    #[test]
    fn a_server_that_falls_behind_or_fails_breaks_too_and_one_that_keeps_up_has_no_knee() {
        // Offered 2,000 then 4,000 over 2 s; 2,000 answered is under 90 % of 4,000.
        let knee = ramp(&[(2000, 0, 1_000), (2000, 0, 1_000)], LIMIT)
            .unwrap()
            .knee
            .unwrap();
        assert_eq!(knee.bucket, 1);
        assert!(
            knee.reason.starts_with("answered 2000 req/s of the 4000"),
            "{}",
            knee.reason
        );
        let knee = ramp(&[(2000, 50, 1_000), (4000, 0, 1_000)], LIMIT)
            .unwrap()
            .knee
            .unwrap();
        assert_eq!(
            (knee.bucket, knee.reason.as_str()),
            (0, "50 errors, over 1 % of its requests")
        );
        let fine = ramp(&[(2000, 0, 1_000), (4000, 0, 1_000)], LIMIT).unwrap();
        assert_eq!(fine.knee, None);
    }

    #[test]
    fn a_long_ramp_is_read_in_at_most_twenty_stretches_and_no_second_gives_none() {
        let o = ramp(&[(3000, 0, 1_000); 45], LIMIT).unwrap();
        // 45 s in stretches of 3 s: 15 of them, the last whole.
        assert_eq!(o.buckets.len(), 15);
        assert_eq!((o.buckets[14].from_s, o.buckets[14].to_s), (42, 45));
        assert_eq!(o.buckets[0].achieved_rps, 3000.0);
        assert_eq!(ramp(&[], LIMIT), None);
    }
}
