//! When a difference in throughput is real: the noise rule shared by `compare` (run against run)
//! and the study tables (reversed orders). A leaf: it knows the model's statistics and nothing
//! of the crate.
//!
//! With per-round figures (runs since interleaved rounds), a verdict needs the 95 % interval of
//! B ÷ A to clear 1 by more than the *measured noise of both runs*: each run's noise is the
//! relative half-width of the interval of its generator ceilings, one per round of the cell's
//! group; a run without per-round ceilings uses its own drift, the ceiling at its end against
//! its start. The two are combined as independent errors (root of the sum of squares). Older
//! documents keep the older rule ([`verdict`]). docs/verdicts.md says why.

pub use restbench_model::documents::comparison::Verdict;
use restbench_model::statistics::interval::log_interval;
use restbench_model::{Cell, Interval, RpsStats, RunResults, Saturation};

/// The smallest change in req/s that counts as real when there are no confidence intervals.
pub const MIN_CHANGE: f64 = 0.05;

/// Without intervals, a change counts as real beyond this many coefficients of variation of
/// either run: about two standard deviations, beyond the scatter of a run's own repeats.
pub const NOISE_CVS: f64 = 2.0;

/// True when two throughput measurements differ by more than their noise: their 95 % confidence
/// intervals do not overlap when both have one; otherwise the relative change exceeds
/// max([`NOISE_CVS`] × cv of either, [`MIN_CHANGE`]).
pub fn beyond_noise(a: &RpsStats, b: &RpsStats) -> bool {
    if let (Some(ca), Some(cb)) = (a.ci95, b.ci95) {
        return ca[1] < cb[0] || cb[1] < ca[0];
    }
    if a.median <= 0.0 || b.median <= 0.0 {
        return a.median != b.median;
    }
    let change = (b.median / a.median - 1.0).abs();
    change > (NOISE_CVS * a.cv).max(NOISE_CVS * b.cv).max(MIN_CHANGE)
}

/// The verdict for B against A.
pub fn verdict(a: &RpsStats, b: &RpsStats) -> Verdict {
    if !beyond_noise(a, b) {
        Verdict::Same
    } else if b.median > a.median {
        Verdict::Faster
    } else {
        Verdict::Slower
    }
}

/// A run's noise for the cells of one group (workload, scenario, protocol), as a fraction: the
/// relative half-width of the interval of the group's per-round ceilings, else the run's
/// ceiling drift from start to end; `None` when the run measured neither.
pub fn run_noise(r: &RunResults, workload: &str, scenario: &str, protocol: &str) -> Option<f64> {
    let ceilings: Vec<f64> = r
        .groups
        .iter()
        .filter(|g| g.workload == workload && g.scenario == scenario && g.protocol == protocol)
        .flat_map(|g| g.rounds.iter().filter_map(|round| round.ceiling_rps))
        .collect();
    if let Some(i) = log_interval(&ceilings) {
        return Some(i.relative_half_width());
    }
    let e = &r.environment;
    match (e.loadgen_ceiling_start_rps, e.loadgen_ceiling_end_rps) {
        (Some(start), Some(end)) if start > 0.0 && end > 0.0 => Some((end / start - 1.0).abs()),
        _ => None,
    }
}

/// Two runs' noise as one margin: the root of the sum of squares of those measured.
pub fn combined(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (None, None) => None,
        _ => Some((a.unwrap_or(0.0).powi(2) + b.unwrap_or(0.0).powi(2)).sqrt()),
    }
}

/// The verdict of a B ÷ A interval that must clear 1 by `margin` (a fraction) to count.
pub fn interval_verdict(i: &Interval, margin: f64) -> Verdict {
    let m = 1.0 + margin.max(0.0);
    if i.above(m) {
        Verdict::Faster
    } else if i.below(1.0 / m) {
        Verdict::Slower
    } else {
        Verdict::Same
    }
}

/// A cell's repeats that count: every one not judged `contended`.
fn counting(c: &Cell) -> impl Iterator<Item = &restbench_model::RepeatResult> {
    c.repeats
        .iter()
        .filter(|r| r.saturation != Some(Saturation::Contended) && r.rps > 0.0)
}

/// A cell's req/s per counting repeat (one per round).
pub fn counting_rps(c: &Cell) -> Vec<f64> {
    counting(c).map(|r| r.rps).collect()
}

/// A cell's server CPU µs per request per counting repeat; empty when the server's CPU was not
/// measured.
pub fn counting_cpu_us_per_req(c: &Cell) -> Vec<f64> {
    let v: Vec<f64> = counting(c)
        .filter(|r| r.server_cpu_cores > 0.0)
        .map(|r| r.server_cpu_cores * 1e6 / r.rps)
        .collect();
    if v.len() == counting(c).count() {
        v
    } else {
        Vec::new()
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
        assert_eq!(verdict(&a, &c), Verdict::Same);
    }

    #[test]
    fn without_intervals_the_change_must_beat_cv_and_five_percent() {
        let a = stats(1000.0, 0.0, None);
        assert_eq!(verdict(&a, &stats(1040.0, 0.0, None)), Verdict::Same);
        assert_eq!(verdict(&a, &stats(1060.0, 0.0, None)), Verdict::Faster);
        assert_eq!(verdict(&a, &stats(940.0, 0.0, None)), Verdict::Slower);
        // A cv of 10 % makes 15 % a non-result.
        assert_eq!(
            verdict(&stats(1000.0, 0.10, None), &stats(1150.0, 0.0, None)),
            Verdict::Same
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
            Verdict::Same
        );
    }
}
