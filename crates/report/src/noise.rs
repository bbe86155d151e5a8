//! When a difference in throughput is real: the noise rule shared by `compare` (run against run)
//! and the study tables (reversed orders). A leaf: it knows the model's statistics and nothing
//! of the crate.

use restbench_model::RpsStats;
pub use restbench_model::comparison::Verdict;

/// The smallest change in req/s that counts as real when there are no confidence intervals.
pub const MIN_CHANGE: f64 = 0.05;

/// True when two throughput measurements differ by more than their noise: their 95 % confidence
/// intervals do not overlap when both have one; otherwise the relative change exceeds
/// max(2 × cv of either, [`MIN_CHANGE`]).
pub fn beyond_noise(a: &RpsStats, b: &RpsStats) -> bool {
    if let (Some(ca), Some(cb)) = (a.ci95, b.ci95) {
        return ca[1] < cb[0] || cb[1] < ca[0];
    }
    if a.median <= 0.0 || b.median <= 0.0 {
        return a.median != b.median;
    }
    let change = (b.median / a.median - 1.0).abs();
    change > (2.0 * a.cv).max(2.0 * b.cv).max(MIN_CHANGE)
}

/// The verdict for B against A.
pub fn verdict(a: &RpsStats, b: &RpsStats) -> Verdict {
    if !beyond_noise(a, b) {
        Verdict::WithinNoise
    } else if b.median > a.median {
        Verdict::Faster
    } else {
        Verdict::Slower
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(median: f64, cv: f64, ci: Option<[f64; 2]>) -> RpsStats {
        RpsStats {
            median,
            min: median,
            max: median,
            cv,
            ci95: ci,
        }
    }

    #[test]
    fn confidence_intervals_decide_when_both_exist() {
        let a = stats(1000.0, 0.01, Some([990.0, 1010.0]));
        let b = stats(1030.0, 0.01, Some([1020.0, 1040.0]));
        assert_eq!(verdict(&a, &b), Verdict::Faster);
        assert_eq!(verdict(&b, &a), Verdict::Slower);
        let c = stats(1005.0, 0.01, Some([1000.0, 1015.0]));
        assert_eq!(verdict(&a, &c), Verdict::WithinNoise);
    }

    #[test]
    fn without_intervals_the_change_must_beat_cv_and_five_percent() {
        let a = stats(1000.0, 0.0, None);
        assert_eq!(verdict(&a, &stats(1040.0, 0.0, None)), Verdict::WithinNoise);
        assert_eq!(verdict(&a, &stats(1060.0, 0.0, None)), Verdict::Faster);
        assert_eq!(verdict(&a, &stats(940.0, 0.0, None)), Verdict::Slower);
        // A cv of 10 % makes 15 % a non-result.
        assert_eq!(
            verdict(&stats(1000.0, 0.10, None), &stats(1150.0, 0.0, None)),
            Verdict::WithinNoise
        );
        assert_eq!(
            verdict(&stats(1000.0, 0.10, None), &stats(1250.0, 0.02, None)),
            Verdict::Faster
        );
        // One side with an interval and one without falls back to the cv rule.
        assert_eq!(
            verdict(
                &stats(1000.0, 0.01, Some([999.0, 1001.0])),
                &stats(1020.0, 0.0, None)
            ),
            Verdict::WithinNoise
        );
    }
}
