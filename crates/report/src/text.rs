//! Terminal output of a load run, in wrk's shape so the two can be set side by side.

use std::fmt::Write;

use restbench_model::LoadResult;
use restbench_model::histogram;

use crate::units::{bytes, count, micros};

/// wrk's report: header, thread stats, optional distribution, totals, errors.
pub fn load_report(r: &LoadResult, distribution: bool) -> String {
    let mut o = String::new();
    let s = &r.settings;
    let what = match (s.duration_s, s.requests) {
        (Some(d), _) => format!("{}s test", trim_float(d)),
        (None, Some(n)) => format!("{n}-request test"),
        _ => "test".into(),
    };
    let _ = writeln!(o, "Running {what} @ {}", s.url);
    let mut shape = format!("  {} threads and {} connections", s.threads, s.connections);
    if let Some(rate) = s.rate {
        let _ = write!(shape, ", {} requests/sec (open loop)", trim_float(rate));
    }
    if s.pipeline > 1 {
        let _ = write!(shape, ", pipeline {}", s.pipeline);
    }
    if !s.keepalive {
        let _ = write!(shape, ", a new connection per request");
    }
    if s.http_version == "1.0" {
        let _ = write!(shape, ", HTTP/1.0");
    }
    let _ = writeln!(o, "{shape}");
    let l = &r.latency_us;
    let within = histogram::decode(&r.histogram)
        .ok()
        .filter(|h| !h.is_empty())
        .map(|h| {
            let lo = (l.mean - l.stdev).max(0.0) as u64;
            let hi = (l.mean + l.stdev) as u64;
            100.0 * h.count_between(lo, hi) as f64 / h.len() as f64
        })
        .unwrap_or(0.0);
    let _ = writeln!(o, "  Thread Stats   Avg      Stdev     Max   +/- Stdev");
    let _ = writeln!(
        o,
        "    Latency {:>9} {:>9} {:>9} {:>8.2}%",
        micros(l.mean),
        micros(l.stdev),
        micros(l.max as f64),
        within
    );
    let t = &r.thread_rps;
    let _ = writeln!(
        o,
        "    Req/Sec {:>9} {:>9} {:>9}",
        count(t.mean),
        count(t.stdev),
        count(t.max)
    );
    if distribution {
        let title = if r.uncorrected_latency_us.is_some() {
            "  Latency Distribution (from intended send times, corrected for coordinated omission)"
        } else {
            "  Latency Distribution"
        };
        let _ = writeln!(o, "{title}");
        percentiles(&mut o, l);
        if let Some(u) = &r.uncorrected_latency_us {
            let _ = writeln!(
                o,
                "  Uncorrected Latency Distribution (from actual send times)"
            );
            percentiles(&mut o, u);
        }
    }
    let _ = writeln!(
        o,
        "  {} requests in {:.2}s, {} read",
        r.requests,
        r.duration_s,
        bytes(r.bytes as f64)
    );
    let e = &r.errors;
    if e.connect + e.read + e.write + e.timeout > 0 {
        let _ = writeln!(
            o,
            "  Socket errors: connect {}, read {}, write {}, timeout {}",
            e.connect, e.read, e.write, e.timeout
        );
    }
    if e.parse > 0 {
        let _ = writeln!(o, "  Malformed responses: {}", e.parse);
    }
    if e.status > 0 {
        let _ = writeln!(o, "  Non-2xx or 3xx responses: {}", e.status);
    }
    if r.in_flight > 0 || e.unanswered() > 0 {
        let _ = writeln!(
            o,
            "  {} sent = {} answered + {} failed + {} in flight at the end",
            r.sent,
            r.requests,
            e.unanswered(),
            r.in_flight
        );
    }
    if let Some(lag) = r.max_schedule_lag_us
        && lag > 1_000
    {
        let _ = writeln!(
            o,
            "  Fell behind schedule by up to {} (raise -c to keep the rate)",
            micros(lag as f64)
        );
    }
    let _ = writeln!(o, "Requests/sec: {:>10.2}", r.rps);
    let _ = writeln!(o, "Transfer/sec: {:>10}", bytes(r.bytes_per_s));
    o
}

fn percentiles(o: &mut String, l: &restbench_model::LatencySummary) {
    for (label, v) in [
        ("50%", l.p50),
        ("75%", l.p75),
        ("90%", l.p90),
        ("99%", l.p99),
        ("99.9%", l.p999),
    ] {
        let _ = writeln!(o, "  {label:>7} {:>9}", micros(v as f64));
    }
}

fn trim_float(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}
