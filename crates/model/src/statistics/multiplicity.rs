//! Verdicts drawn together: a run that judges many ratios at once calls some of them different by
//! chance (ten verdicts at 95 % each: a 40 % chance of at least one false one). Holm's step-down
//! correction (Holm, "A Simple Sequentially Rejective Multiple Test Procedure", Scandinavian
//! Journal of Statistics 6, 1979) keeps the chance of *any* false verdict of a family at 5 %:
//! sort the p-values, and the i-th smallest of m must be below 0.05 / (m − i + 1), stopping at the
//! first that is not.
//!
//! The p-value of a ratio comes from its own 95 % interval: the interval is a Student t interval
//! on logarithms ([`crate::statistics::interval`]), so its half width on logs is `t95(n − 1)` standard
//! errors, and the distance of its estimate from 1 on logs, in standard errors, is the t
//! statistic. A verdict that survives the correction also has an interval that excludes 1.

use crate::statistics::interval::{Interval, t95};

/// The chance of one false verdict in a family that the correction allows.
pub const FAMILY_ALPHA: f64 = 0.05;

/// Two-sided p-value that the ratio whose 95 % interval is `i` is 1; `1.0` when it cannot be
/// told (no spread and an estimate of 1, fewer than two samples, or not positive).
pub fn p_value(i: &Interval) -> f64 {
    if i.n < 2 || !(i.low > 0.0 && i.high >= i.low && i.estimate > 0.0) {
        return 1.0;
    }
    let df = i.n - 1;
    let distance = i.estimate.ln().abs();
    let half = (i.high.ln() - i.low.ln()) / 2.0;
    if half <= 0.0 {
        return if distance > 0.0 { 0.0 } else { 1.0 };
    }
    let se = half / t95(df);
    let t = distance / se;
    2.0 * student_upper_tail(t, f64::from(df))
}

/// Holm's correction over `p_values` at [`FAMILY_ALPHA`]: for each, in the order given, whether
/// it is a finding of the family (rejected).
pub fn holm(p_values: &[f64]) -> Vec<bool> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut rejected = vec![false; m];
    for (rank, &k) in order.iter().enumerate() {
        if p_values[k] < FAMILY_ALPHA / (m - rank) as f64 {
            rejected[k] = true;
        } else {
            break;
        }
    }
    rejected
}

/// Holm's correction over intervals: whether each excludes 1 as a finding of the family (its
/// own interval excludes 1 and it survives the correction).
pub fn distinct(intervals: &[Interval]) -> Vec<bool> {
    let p: Vec<f64> = intervals.iter().map(p_value).collect();
    holm(&p)
        .into_iter()
        .zip(intervals)
        .map(|(r, i)| r && !i.contains(1.0))
        .collect()
}

/// P(T > t) for Student's t with `df` degrees of freedom (`t ≥ 0`).
fn student_upper_tail(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return 0.0;
    }
    0.5 * regularized_beta(df / (df + t * t), df / 2.0, 0.5)
}

/// The regularized incomplete beta function I_x(a, b), by its continued fraction (Lentz's
/// method, as in Press et al., "Numerical Recipes", §6.4).
fn regularized_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(x, a, b) / a
    } else {
        1.0 - front * beta_fraction(1.0 - x, b, a) / b
    }
}

fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..300 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        let even = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + even * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + even / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        h *= d * c;
        let odd = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + odd * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + odd / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        let step = d * c;
        h *= step;
        if (step - 1.0).abs() < 1e-14 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine terms).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = G[0];
    for (i, g) in G.iter().enumerate().skip(1) {
        sum += g / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ratio interval symmetric on logs: `estimate` × / ÷ `spread`.
    fn ratio(estimate: f64, spread: f64, n: u32) -> Interval {
        Interval {
            estimate,
            low: estimate / spread,
            high: estimate * spread,
            n,
        }
    }

    #[test]
    fn the_t_tail_matches_the_table() {
        // At the 95 % quantile the two-sided tail is 5 %.
        for df in [1u32, 2, 3, 5, 10, 30] {
            let p = 2.0 * student_upper_tail(t95(df), f64::from(df));
            assert!((p - 0.05).abs() < 5e-4, "df {df}: {p}");
        }
        assert!((student_upper_tail(0.0, 4.0) - 0.5).abs() < 1e-12);
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-10);
    }

    #[test]
    fn an_interval_touching_one_has_a_p_value_of_five_percent() {
        // ×0.987 [0.975, 1.000] from 4 rounds: the case of the issue.
        let i = Interval {
            estimate: 0.987,
            low: 0.975,
            high: 0.999_2,
            n: 4,
        };
        let p = p_value(&i);
        assert!(p > 0.04 && p < 0.06, "{p}");
        assert_eq!(p_value(&ratio(1.0, 1.0, 3)), 1.0, "a point at 1");
        assert_eq!(p_value(&ratio(1.1, 1.0, 3)), 0.0, "a point away from 1");
        assert_eq!(p_value(&ratio(1.1, 1.01, 1)), 1.0, "one sample");
    }

    #[test]
    fn an_a_a_table_of_ten_measures_with_one_interval_touching_one_says_same() {
        let mut table: Vec<Interval> = (0..9)
            .map(|k| ratio(1.0 + 0.002 * f64::from(k) - 0.008, 1.02, 4))
            .collect();
        // The one that touches 1, as an A/A run draws by chance.
        table.push(Interval {
            estimate: 0.987,
            low: 0.975,
            high: 0.999_2,
            n: 4,
        });
        assert!(table[9].below(1.0), "alone it would be called different");
        let verdicts = distinct(&table);
        assert!(verdicts.iter().all(|d| !d), "{verdicts:?}");
    }

    #[test]
    fn clear_differences_survive_the_correction() {
        // Five clear 10 % differences from 3 rounds at ±1 %, among five ties.
        let mut table: Vec<Interval> = (0..5).map(|_| ratio(1.10, 1.01, 3)).collect();
        table.extend((0..5).map(|_| ratio(1.0, 1.02, 3)));
        let verdicts = distinct(&table);
        assert_eq!(verdicts, [vec![true; 5], vec![false; 5]].concat());
        // Holm is step-down: it stops at the first p-value above its threshold.
        assert_eq!(holm(&[0.001, 0.04, 0.03]), vec![true, false, false]);
        assert_eq!(holm(&[0.001, 0.04, 0.011]), vec![true, true, true]);
        assert_eq!(holm(&[0.03, 0.04]), vec![false, false]);
        assert!(holm(&[]).is_empty());
    }
}
