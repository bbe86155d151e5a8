//! Statistics over repeats: median, spread, coefficient of variation, bootstrap interval.

/// Median of a sample (mean of the middle two for even sizes); 0 when empty.
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Sample standard deviation over mean; 0 with fewer than two values.
pub fn cv(v: &[f64]) -> f64 {
    let m = mean(v);
    if v.len() < 2 || m == 0.0 {
        return 0.0;
    }
    let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
    var.sqrt() / m
}

/// Resamples of [`bootstrap_median_ci`]: enough that the 2.5th and 97.5th percentiles of the
/// medians move by less than the data's own rounding.
const RESAMPLES: usize = 2000;

/// A 95 % percentile-bootstrap interval of the median (2,000 resamples, fixed seed so
/// that the same data always gives the same interval); `None` with fewer than three values.
pub fn bootstrap_median_ci(v: &[f64]) -> Option<[f64; 2]> {
    if v.len() < 3 {
        return None;
    }
    let mut state = 0x0123_4567_89AB_CDEFu64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut medians: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let sample: Vec<f64> = (0..v.len())
                .map(|_| v[(next() % v.len() as u64) as usize])
                .collect();
            median(&sample)
        })
        .collect();
    medians.sort_by(f64::total_cmp);
    // The 2.5th and 97.5th percentiles: 50 resamples beyond each end.
    let tail = RESAMPLES / 40;
    Some([medians[tail - 1], medians[RESAMPLES - tail - 1]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_on_known_samples() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
        assert!((cv(&[10.0, 10.0, 10.0])).abs() < 1e-12);
        // stdev of 2,4,4,4,5,5,7,9 (sample) = 2.138..., mean 5
        assert!((cv(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]) - 0.42762).abs() < 1e-4);
        assert_eq!(cv(&[5.0]), 0.0);
    }

    #[test]
    fn bootstrap_interval_brackets_the_median_and_is_stable() {
        let v = [100.0, 102.0, 98.0, 101.0, 99.0];
        let [lo, hi] = bootstrap_median_ci(&v).unwrap();
        assert!(
            lo <= 100.0 && hi >= 100.0 && lo >= 98.0 && hi <= 102.0,
            "{lo} {hi}"
        );
        assert_eq!(bootstrap_median_ci(&v), Some([lo, hi]));
        assert_eq!(bootstrap_median_ci(&[1.0, 2.0]), None);
        assert_eq!(bootstrap_median_ci(&[7.0, 7.0, 7.0]), Some([7.0, 7.0]));
    }
}
