//! Two `load` results side by side (`restbench compare A.json B.json`): B's throughput, latency
//! percentiles and errors as ratios of A's, and a verdict on req/s.
//!
//! One load run has no repeats, so the noise is read from its own per-second rates: the
//! coefficient of variation over its whole seconds stands in for the spread between repeats in
//! the shared rule of [`crate::noise`] (with the 5 % floor when a run is shorter than two
//! seconds). This module computes the model's [`LoadComparison`] document; the renderers are
//! `text::load_comparison` and `markdown::load_comparison`.

use restbench_model::{LoadResult, RpsStats};

use crate::noise::{Verdict, verdict};
pub use restbench_model::comparison::{Better, LoadComparison, LoadLabel, LoadMetric, Unit};

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
    let (sa, sb) = (rate_stats(a), rate_stats(b));
    LoadComparison {
        a: load_label(a),
        b: load_label(b),
        differences: differences(a, b),
        metrics,
        verdict: if a.rps > 0.0 && b.rps > 0.0 {
            verdict(&sa, &sb)
        } else {
            Verdict::NotComparable
        },
        a_cv: sa.cv,
        b_cv: sb.cv,
    }
}

/// A run's rate with the spread of its whole seconds (the last, partial second left out).
fn rate_stats(r: &LoadResult) -> RpsStats {
    let whole = r.duration_s.floor().max(0.0) as usize;
    let per_second: Vec<f64> = r
        .timeseries
        .iter()
        .take(whole)
        .map(|s| s.requests as f64)
        .collect();
    let cv = if per_second.len() >= 2 {
        let n = per_second.len() as f64;
        let mean = per_second.iter().sum::<f64>() / n;
        let var = per_second.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        if mean > 0.0 { var.sqrt() / mean } else { 0.0 }
    } else {
        0.0
    };
    RpsStats {
        median: r.rps,
        min: r.rps,
        max: r.rps,
        cv,
        ci95: None,
    }
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

    /// A against B: B twice as fast, with half the p99 and some errors.
    pub(crate) fn sample() -> LoadComparison {
        let a = crate::test_support::load_result();
        let mut b = a.clone();
        b.rps = 4_000.0;
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
        assert_eq!(m("req/s").ratio, Some(2.0));
        assert_eq!(m("p99").ratio, Some(0.5));
        assert_eq!(m("p99").better, Better::Lower);
        assert_eq!(m("errors").ratio, None, "A had none");
        assert!((m("error rate").b - 0.0999).abs() < 1e-3);
        assert_eq!(c.verdict, Verdict::Faster);
        assert_eq!(c.differences, vec!["connections 10 → 64".to_string()]);

        // The same rate: within noise.
        let a = crate::test_support::load_result();
        let mut b = a.clone();
        b.rps *= 1.02;
        assert_eq!(compare_loads(&a, &b).verdict, Verdict::WithinNoise);
        // A noisy run (per-second rates 1000, 3000, 2000): even +30 % is within its noise.
        let mut noisy = a.clone();
        noisy.duration_s = 3.2;
        noisy.timeseries = [1_000, 3_000, 2_000, 100]
            .iter()
            .enumerate()
            .map(|(i, n)| SecondSample {
                second: i as u32,
                requests: *n,
                errors: 0,
                ..Default::default()
            })
            .collect();
        let mut faster = a.clone();
        faster.rps *= 1.3;
        let c = compare_loads(&noisy, &faster);
        assert!((c.a_cv - 0.5).abs() < 1e-9, "{}", c.a_cv);
        assert_eq!(c.verdict, Verdict::WithinNoise);
    }
}
