//! Figures a caller reads while a run goes on (a progress line), published by the threads
//! without locks: plain atomic counters, and a coarse latency histogram of atomic buckets that
//! each thread adds its finished seconds into (once per second, never per request).

use std::sync::atomic::{AtomicU64, Ordering};

/// Exact buckets below this many microseconds.
const LINEAR: u64 = 16;
/// Buckets per power of two above [`LINEAR`]: 8 gives at most 12.5 % width, enough to read.
const SUB_BITS: u32 = 3;
const SUB: u64 = 1 << SUB_BITS;
/// Covers up to 2^26 µs (67 s), beyond restbench's 60 s histogram bound.
const BUCKETS: usize = LINEAR as usize + (26 - 4) * SUB as usize;

/// A latency histogram of atomic counters with about 12 % resolution: coarse, but enough for
/// "p99 so far" on a progress line. Exact figures come from the HdrHistograms at the end.
#[derive(Debug)]
pub struct LiveLatency {
    buckets: [AtomicU64; BUCKETS],
}

impl Default for LiveLatency {
    fn default() -> Self {
        Self {
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

fn index(us: u64) -> usize {
    if us < LINEAR {
        return us as usize;
    }
    let exp = 63 - us.leading_zeros(); // ≥ 4
    let mantissa = (us >> (exp - SUB_BITS)) - SUB; // 0..SUB
    let i = LINEAR + u64::from(exp - 4) * SUB + mantissa;
    (i as usize).min(BUCKETS - 1)
}

/// The highest value of bucket `i` (a percentile reads high rather than low, as HdrHistogram's).
fn highest(i: usize) -> u64 {
    let i = i as u64;
    if i < LINEAR {
        return i;
    }
    let exp = (i - LINEAR) / SUB + 4;
    let mantissa = (i - LINEAR) % SUB + SUB;
    ((mantissa + 1) << (exp - u64::from(SUB_BITS))) - 1
}

impl LiveLatency {
    /// Adds `count` latencies of `us` microseconds.
    pub fn add(&self, us: u64, count: u64) {
        self.buckets[index(us)].fetch_add(count, Ordering::Relaxed);
    }

    /// Latencies added so far.
    pub fn count(&self) -> u64 {
        self.buckets.iter().map(|b| b.load(Ordering::Relaxed)).sum()
    }

    /// The `q` quantile (0..=1) of what was added so far, in microseconds; `None` before any.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        Self::quantile_of(&self.counts(), q)
    }

    /// The buckets' counts now; two readings subtracted give an interval's latencies.
    pub fn counts(&self) -> Vec<u64> {
        self.buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect()
    }

    /// The `q` quantile of bucket counts as [`Self::counts`] reads them (or a difference of
    /// two readings), in microseconds; `None` when they are all zero.
    pub fn quantile_of(counts: &[u64], q: f64) -> Option<u64> {
        let total: u64 = counts.iter().sum();
        if total == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, n) in counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Some(highest(i));
            }
        }
        counts.iter().rposition(|n| *n > 0).map(highest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_falls_in_a_bucket_no_wider_than_an_eighth() {
        let mut previous = 0;
        for us in 1..200_000u64 {
            let i = index(us);
            assert!(i >= previous, "buckets grow with the value");
            previous = i;
            assert!(highest(i) >= us, "{us} is within its bucket");
            assert!(highest(i) - us <= us / 8, "{us} → {}", highest(i));
        }
        assert_eq!(index(60_000_000), index(60_000_000).min(BUCKETS - 1));
        assert!(highest(index(60_000_000)) >= 60_000_000);
        assert_eq!(index(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn quantiles_read_the_buckets() {
        let live = LiveLatency::default();
        assert_eq!(live.quantile(0.99), None);
        live.add(100, 98);
        live.add(5_000, 2);
        assert_eq!(live.count(), 100);
        let p50 = live.quantile(0.5).unwrap();
        assert!((100..=112).contains(&p50), "{p50}");
        let p99 = live.quantile(0.99).unwrap();
        assert!((5_000..=5_625).contains(&p99), "{p99}");
        assert_eq!(live.quantile(1.0), Some(p99));
    }
}
