//! Intervals on figures and on ratios: what a verdict needs before it may be printed.
//!
//! Throughput and CPU per request are positive and multiplicative (a 10 % change is a ratio), so
//! intervals are taken on logarithms: the estimate is a geometric mean and the interval is a
//! Student t interval on the logs, turned back into a ratio (Kalibera & Jones, "Rigorous
//! Benchmarking in Reasonable Time", ISMM 2013, recommend intervals on ratios rather than on
//! single figures). Two cells measured in the same rounds are compared *paired*: the ratio per
//! round, so a drift that slows a whole round cancels out.

use serde::{Deserialize, Serialize};

/// A 95 % interval around an estimate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
    /// How many samples it came from.
    pub n: u32,
}

impl Interval {
    /// The larger distance from the estimate to an end, as a fraction of the estimate: `0.03`
    /// is "±3 %".
    pub fn relative_half_width(&self) -> f64 {
        if self.estimate <= 0.0 || !self.estimate.is_finite() {
            return f64::INFINITY;
        }
        ((self.high - self.estimate).max(self.estimate - self.low) / self.estimate).abs()
    }

    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }

    /// The interval lies wholly above `x`.
    pub fn above(&self, x: f64) -> bool {
        self.low > x
    }

    /// The interval lies wholly below `x`.
    pub fn below(&self, x: f64) -> bool {
        self.high < x
    }

    pub fn overlaps(&self, other: &Interval) -> bool {
        self.low <= other.high && other.low <= self.high
    }

    /// The interval of `1 / x` for `x` in this one (a ratio the other way round).
    pub fn inverse(&self) -> Interval {
        Interval {
            estimate: 1.0 / self.estimate,
            low: 1.0 / self.high,
            high: 1.0 / self.low,
            n: self.n,
        }
    }
}

/// The two-sided 95 % quantile of Student's t with `df` degrees of freedom.
pub fn t95(df: u32) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df as usize - 1],
        31..=60 => 2.000,
        61..=120 => 1.980,
        _ => 1.960,
    }
}

/// Geometric mean of positive values and a 95 % t interval on their logs; `None` with fewer
/// than two values or any value that is not positive and finite.
pub fn log_interval(values: &[f64]) -> Option<Interval> {
    let logs = logs(values)?;
    let (mean, se) = mean_and_se(&logs)?;
    let t = t95(logs.len() as u32 - 1);
    Some(Interval {
        estimate: mean.exp(),
        low: (mean - t * se).exp(),
        high: (mean + t * se).exp(),
        n: logs.len() as u32,
    })
}

/// `b ÷ a`, paired: the ratio of the two in each round where both were measured (`None` marks a
/// round a side was not), then [`log_interval`] of those ratios.
pub fn paired_ratio(a: &[Option<f64>], b: &[Option<f64>]) -> Option<Interval> {
    let ratios: Vec<f64> = a
        .iter()
        .zip(b)
        .filter_map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) if *x > 0.0 => Some(y / x),
            _ => None,
        })
        .collect();
    log_interval(&ratios)
}

/// `b ÷ a` of two independent samples (two runs): Welch's interval on the difference of the
/// mean logs; `None` when either side has fewer than two positive values.
pub fn unpaired_ratio(a: &[f64], b: &[f64]) -> Option<Interval> {
    let (la, lb) = (logs(a)?, logs(b)?);
    let (ma, sa) = mean_and_se(&la)?;
    let (mb, sb) = mean_and_se(&lb)?;
    let se = (sa * sa + sb * sb).sqrt();
    // Welch–Satterthwaite degrees of freedom.
    let df = if se == 0.0 {
        (la.len() + lb.len() - 2) as f64
    } else {
        let va = sa.powi(4) / (la.len() - 1) as f64;
        let vb = sb.powi(4) / (lb.len() - 1) as f64;
        se.powi(4) / (va + vb).max(f64::MIN_POSITIVE)
    };
    let t = t95(df.floor().max(1.0) as u32);
    let d = mb - ma;
    Some(Interval {
        estimate: d.exp(),
        low: (d - t * se).exp(),
        high: (d + t * se).exp(),
        n: (la.len().min(lb.len())) as u32,
    })
}

fn logs(values: &[f64]) -> Option<Vec<f64>> {
    if values.len() < 2 || values.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return None;
    }
    Some(values.iter().map(|v| v.ln()).collect())
}

/// Mean and standard error of the mean.
fn mean_and_se(v: &[f64]) -> Option<(f64, f64)> {
    if v.len() < 2 {
        return None;
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some((mean, (var / n).sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn a_log_interval_on_known_samples() {
        // logs of e^1, e^2, e^3: mean 2, sd 1, se 1/√3, t(2) = 4.303.
        let e = std::f64::consts::E;
        let i = log_interval(&[e, e * e, e * e * e]).unwrap();
        assert!(close(i.estimate, e * e, 1e-9), "{i:?}");
        let half = 4.303 / 3f64.sqrt();
        assert!(close(i.low, (2.0 - half).exp(), 1e-9), "{i:?}");
        assert!(close(i.high, (2.0 + half).exp(), 1e-9), "{i:?}");
        assert_eq!(i.n, 3);
        // Identical values: a point.
        let p = log_interval(&[5.0, 5.0, 5.0]).unwrap();
        assert!(close(p.low, 5.0, 1e-9) && close(p.high, 5.0, 1e-9), "{p:?}");
        assert!(p.relative_half_width() < 1e-12);
        assert!(log_interval(&[5.0]).is_none(), "one value has no spread");
        assert!(log_interval(&[5.0, 0.0]).is_none(), "a zero is no rate");
        assert!(log_interval(&[5.0, f64::NAN]).is_none());
    }

    #[test]
    fn a_paired_ratio_cancels_what_a_round_shares() {
        // Round 2 was slow for both by half: paired, the ratio is exactly 2 every round.
        let a = [Some(100.0), Some(50.0), Some(100.0)];
        let b = [Some(200.0), Some(100.0), Some(200.0)];
        let i = paired_ratio(&a, &b).unwrap();
        assert!(
            close(i.estimate, 2.0, 1e-12) && close(i.low, 2.0, 1e-12),
            "{i:?}"
        );
        // Unpaired, the same figures leave a wide interval.
        let u = unpaired_ratio(&[100.0, 50.0, 100.0], &[200.0, 100.0, 200.0]).unwrap();
        assert!(close(u.estimate, 2.0, 1e-9), "{u:?}");
        assert!(u.low < 1.5 && u.high > 2.5, "{u:?}");
        // A round where one side was not measured is left out of the pairs.
        let i = paired_ratio(
            &[Some(1.0), None, Some(1.0)],
            &[Some(1.1), Some(9.0), Some(1.1)],
        )
        .unwrap();
        assert_eq!(i.n, 2);
        assert!(close(i.estimate, 1.1, 1e-12));
    }

    #[test]
    fn interval_predicates() {
        let i = Interval {
            estimate: 1.1,
            low: 1.05,
            high: 1.2,
            n: 5,
        };
        assert!(i.above(1.0) && !i.below(1.0) && !i.contains(1.0));
        assert!(close(i.relative_half_width(), 0.1 / 1.1, 1e-12));
        let inv = i.inverse();
        assert!(inv.below(1.0) && close(inv.estimate, 1.0 / 1.1, 1e-12));
        assert!(i.overlaps(&Interval {
            estimate: 1.3,
            low: 1.19,
            high: 1.4,
            n: 3
        }));
        assert_eq!(t95(1), 12.706);
        assert_eq!(t95(1000), 1.96);
        assert!(t95(0).is_infinite());
    }
}
