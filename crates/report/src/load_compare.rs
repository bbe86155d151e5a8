//! Two `load` results side by side (`restbench compare A.json B.json`): B's throughput, latency
//! percentiles and errors as ratios of A's, and a verdict on req/s.
//!
//! One load run has no repeats, so its samples are its own seconds: the whole ones (the first and
//! the last, partial, left out). The interval of B ÷ A is Welch's on the logs of those per-second
//! rates ([`unpaired_ratio`]), and a verdict needs it to clear 1 by more than each run's own
//! drift (the rate of its second half against its first half), combined as in
//! [`crate::noise::combined`]; under two whole seconds on a side there is no interval and no
//! verdict. This module computes the model's [`LoadComparison`] document; the renderers are
//! `text::load_comparison` and `markdown::load_comparison`.

use restbench_model::LoadResult;
use restbench_model::statistics::interval::unpaired_ratio;

use crate::noise::{Verdict, combined, interval_verdict};
pub use restbench_model::documents::comparison::{
    Better, LoadComparison, LoadLabel, LoadMetric, Unit,
};

/// How a load run was shaped, for the heading.
fn load_label(r: &LoadResult) -> LoadLabel {
    let s = &r.settings;
    let mut shape = match (s.duration_s, s.requests) {
        (Some(d), _) => format!("{d} s"),
        (None, Some(n)) => format!("{n} requests"),
        _ => String::new(),
    };
    if let Some(rate) = s.rate {
        shape.push_str(&format!(" at {rate} req/s"));
    }
    LoadLabel {
        url: s.url.clone(),
        method: s.method.clone(),
        connections: s.connections,
        threads: s.threads,
        shape,
        duration_s: r.duration_s,
    }
}

/// Compares load result B with load result A.
pub fn compare_loads(a: &LoadResult, b: &LoadResult) -> LoadComparison {
    let metric = |name: &str, unit: Unit, better: Better, x: f64, y: f64| LoadMetric {
        metric: name.to_string(),
        unit,
        a: x,
        b: y,
        ratio: (x > 0.0 && y.is_finite()).then(|| y / x),
        better,
    };
    let (la, lb) = (&a.latency_us, &b.latency_us);
    let error_pct = |r: &LoadResult| {
        let asked = r.sent.max(r.requests);
        if asked == 0 {
            0.0
        } else {
            100.0 * r.errors.total() as f64 / asked as f64
        }
    };
    use Better::{Higher, Lower};
    let metrics = vec![
        metric("req/s", Unit::PerSecond, Higher, a.rps, b.rps),
        metric("mean", Unit::Micros, Lower, la.mean, lb.mean),
        metric("p50", Unit::Micros, Lower, la.p50 as f64, lb.p50 as f64),
        metric("p90", Unit::Micros, Lower, la.p90 as f64, lb.p90 as f64),
        metric("p99", Unit::Micros, Lower, la.p99 as f64, lb.p99 as f64),
        metric("p99.9", Unit::Micros, Lower, la.p999 as f64, lb.p999 as f64),
        metric("max", Unit::Micros, Lower, la.max as f64, lb.max as f64),
        metric(
            "errors",
            Unit::Count,
            Lower,
            a.errors.total() as f64,
            b.errors.total() as f64,
        ),
        metric(
            "error rate",
            Unit::Percent,
            Lower,
            error_pct(a),
            error_pct(b),
        ),
        metric(
            "transfer/s",
            Unit::BytesPerSecond,
            Higher,
            a.bytes_per_s,
            b.bytes_per_s,
        ),
    ];
    let (sa, sb) = (whole_seconds(a), whole_seconds(b));
    let rps_interval = unpaired_ratio(&sa, &sb);
    let noise = combined(drift(&sa), drift(&sb));
    let verdict = if a.rps <= 0.0 || b.rps <= 0.0 {
        Verdict::NotComparable
    } else {
        match &rps_interval {
            Some(i) => interval_verdict(i, noise.unwrap_or(0.0)),
            None => Verdict::NoInterval,
        }
    };
    LoadComparison {
        a: load_label(a),
        b: load_label(b),
        differences: differences(a, b),
        metrics,
        verdict,
        rps_interval,
        noise,
        a_cv: cv(&sa),
        b_cv: cv(&sb),
    }
}

/// A run's requests in each whole second: the first (a start mid-second, connections opening)
/// and the last (partial) left out.
fn whole_seconds(r: &LoadResult) -> Vec<f64> {
    let n = r.timeseries.len();
    if n < 3 {
        return Vec::new();
    }
    r.timeseries[1..n - 1]
        .iter()
        .map(|s| s.requests as f64)
        .collect()
}

/// How far a run's rate moved within it: its second half's mean rate against its first half's.
fn drift(seconds: &[f64]) -> Option<f64> {
    if seconds.len() < 2 {
        return None;
    }
    let half = seconds.len() / 2;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (first, second) = (
        mean(&seconds[..half]),
        mean(&seconds[seconds.len() - half..]),
    );
    (first > 0.0).then(|| (second / first - 1.0).abs())
}

/// The coefficient of variation of per-second rates (0 under two seconds).
fn cv(seconds: &[f64]) -> f64 {
    if seconds.len() < 2 {
        return 0.0;
    }
    let n = seconds.len() as f64;
    let mean = seconds.iter().sum::<f64>() / n;
    let var = seconds.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    if mean > 0.0 { var.sqrt() / mean } else { 0.0 }
}

fn differences(a: &LoadResult, b: &LoadResult) -> Vec<String> {
    let (x, y) = (&a.settings, &b.settings);
    let mut d = Vec::new();
    let mut differ = |name: &str, p: String, q: String| {
        if p != q {
            d.push(format!("{name} {p} → {q}"));
        }
    };
    let opt = |v: Option<f64>| v.map_or("–".to_string(), |v| v.to_string());
    differ("method", x.method.clone(), y.method.clone());
    differ(
        "connections",
        x.connections.to_string(),
        y.connections.to_string(),
    );
    differ("threads", x.threads.to_string(), y.threads.to_string());
    differ("rate", opt(x.rate), opt(y.rate));
    differ("pipeline", x.pipeline.to_string(), y.pipeline.to_string());
    differ(
        "keep-alive",
        x.keepalive.to_string(),
        y.keepalive.to_string(),
    );
    differ("HTTP", x.http_version.clone(), y.http_version.clone());
    differ(
        "body bytes",
        x.body_bytes.to_string(),
        y.body_bytes.to_string(),
    );
    d
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use restbench_model::SecondSample;

    /// A load whose seconds served `counts` requests each.
    pub(crate) fn with_seconds(counts: &[u64]) -> LoadResult {
        let mut r = crate::test_support::load_result();
        r.timeseries = counts
            .iter()
            .enumerate()
            .map(|(i, n)| SecondSample {
                second: i as u32,
                requests: *n,
                errors: 0,
                ..Default::default()
            })
            .collect();
        r.duration_s = counts.len() as f64 - 0.5;
        let whole = &counts[1..counts.len() - 1];
        r.rps = whole.iter().sum::<u64>() as f64 / whole.len() as f64;
        r
    }

    /// A against B: B twice as fast (steady seconds), with half the p99 and some errors.
    pub(crate) fn sample() -> LoadComparison {
        let a = with_seconds(&[500, 2_000, 2_010, 1_990, 2_000, 700]);
        let mut b = with_seconds(&[900, 4_000, 4_020, 3_980, 4_000, 1_500]);
        b.latency_us.p99 = 915;
        b.errors.timeout = 4;
        b.sent = 4_004;
        b.requests = 4_000;
        b.settings.connections = 64;
        compare_loads(&a, &b)
    }

    #[test]
    fn ratios_are_b_over_a_and_the_verdict_weighs_noise() {
        let c = sample();
        let m = |name: &str| c.metrics.iter().find(|m| m.metric == name).unwrap();
        assert!((m("req/s").ratio.unwrap() - 2.0).abs() < 1e-9);
        assert_eq!(m("p99").ratio, Some(0.5));
        assert_eq!(m("p99").better, Better::Lower);
        assert_eq!(m("errors").ratio, None, "A had none");
        assert!((m("error rate").b - 0.0999).abs() < 1e-3);
        assert_eq!(c.verdict, Verdict::Faster);
        let i = c.rps_interval.unwrap();
        assert!(i.low > 1.9 && i.high < 2.1, "{i:?}");
        assert_eq!(i.n, 4, "the first and last seconds left out");
        assert_eq!(c.differences, vec!["connections 10 → 64".to_string()]);
    }

    #[test]
    fn per_second_series_give_the_interval_and_its_noise() {
        // The same steady rate, 1 % apart: the interval holds 1, so the same.
        let a = with_seconds(&[100, 2_000, 2_020, 1_980, 2_000, 2_010, 50]);
        let b = with_seconds(&[100, 2_020, 2_040, 2_000, 2_020, 2_030, 50]);
        let c = compare_loads(&a, &b);
        assert_eq!(c.verdict, Verdict::Same, "{:?}", c.rps_interval);
        // A run that drifted 30 % within itself: even a clear +40 % does not clear its noise.
        let drifting = with_seconds(&[100, 1_000, 1_000, 1_300, 1_300, 50]);
        let faster = with_seconds(&[100, 1_600, 1_600, 1_610, 1_590, 50]);
        let c = compare_loads(&drifting, &faster);
        assert!((c.noise.unwrap() - 0.3).abs() < 0.01, "{:?}", c.noise);
        let i = c.rps_interval.unwrap();
        assert!(i.low > 1.0, "the interval alone excludes 1: {i:?}");
        assert_eq!(c.verdict, Verdict::Same);
        // Under two whole seconds on a side: no interval, no verdict.
        let short = with_seconds(&[100, 2_000, 50]);
        let c = compare_loads(&short, &a);
        assert_eq!(c.verdict, Verdict::NoInterval);
        assert!(c.rps_interval.is_none());
        assert!(crate::lines::load_verdict_line(&c).contains("no interval"));
        // Without any series (an older result): no interval either.
        let old = crate::test_support::load_result();
        assert_eq!(compare_loads(&old, &old).verdict, Verdict::NoInterval);
    }
}
