//! Terminal output: a load run in wrk's shape so the two can be set side by side, and a comparison
//! of two runs with aligned columns. Also the plain lines a comparison shares with its Markdown.

use std::fmt::Write;

use restbench_model::LoadResult;
use restbench_model::histogram;

use crate::compare::{Comparison, RunLabel, Verdict};
use crate::units::{bytes, count, micros, ratio, thousands};

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
    if s.http_version == "2" {
        let _ = write!(
            shape,
            ", HTTP/2 with {} streams each",
            s.max_streams.unwrap_or(1)
        );
    }
    if let Some(path) = &s.unix_socket {
        let _ = write!(shape, ", over unix:{path}");
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
    if e.protocol > 0 {
        let _ = writeln!(o, "  Responses no request asked for: {}", e.protocol);
    }
    if e.status > 0 {
        let _ = writeln!(o, "  Non-2xx or 3xx responses: {}", e.status);
    }
    if e.tls > 0 {
        let reason = r.tls_error.as_deref().unwrap_or("no reason recorded");
        let _ = writeln!(o, "  TLS failures: {} ({reason})", e.tls);
    }
    if e.reset > 0 || r.goaways > 0 {
        let _ = writeln!(
            o,
            "  HTTP/2: {} streams reset by the server, {} GOAWAY received",
            e.reset, r.goaways
        );
    }
    if let Some(h) = &r.tls_handshake_us {
        let _ = writeln!(
            o,
            "  TLS handshakes (new connections, not in latency): avg {}, p50 {}, p99 {}, max {}",
            micros(h.mean),
            micros(h.p50 as f64),
            micros(h.p99 as f64),
            micros(h.max as f64)
        );
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

/// One line on the verdicts: `4 cells in both runs: 1 faster, 1 slower, 1 within noise, …`.
pub(crate) fn comparison_summary(c: &Comparison) -> String {
    let counts = c.counts();
    let parts: Vec<String> = [
        Verdict::Faster,
        Verdict::Slower,
        Verdict::WithinNoise,
        Verdict::NotComparable,
    ]
    .iter()
    .filter_map(|v| counts.get(v.as_str()).map(|n| format!("{n} {v}")))
    .collect();
    format!(
        "{} cells in both runs: {}.",
        c.cells.len(),
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        }
    )
}

/// A comparison's table as text: subject, workload, scenario, A and B req/s, the three ratios
/// and the verdict.
pub(crate) fn comparison_rows(c: &Comparison) -> Vec<[String; 9]> {
    c.cells
        .iter()
        .map(|c| {
            let opt = |v: Option<f64>, f: fn(f64) -> String| v.map_or("–".to_string(), f);
            [
                c.key.label(),
                c.key.workload.clone(),
                c.key.scenario.clone(),
                opt(c.a_rps, thousands),
                opt(c.b_rps, thousands),
                opt(c.rps_ratio, ratio),
                opt(c.p99_ratio, ratio),
                opt(c.cpu_us_per_req_ratio, ratio),
                c.verdict.to_string(),
            ]
        })
        .collect()
}

/// Where each run came from, and a warning when the machines differ.
pub(crate) fn comparison_heading(c: &Comparison) -> Vec<String> {
    let l = |x: &RunLabel| {
        format!(
            "{} started {} on {} ({} cores{})",
            x.kind,
            x.started_at,
            x.cpu_model,
            x.cores,
            if x.hostname.is_empty() {
                String::new()
            } else {
                format!(", {}", x.hostname)
            }
        )
    };
    let mut v = vec![format!("A: {}", l(&c.a)), format!("B: {}", l(&c.b))];
    if c.different_machines {
        v.push(
            "The runs come from different machines: ratios mix machine and software differences."
                .into(),
        );
    }
    v
}

impl Comparison {
    /// Plain text for a terminal, with aligned columns.
    pub fn to_text(&self) -> String {
        let mut o = String::new();
        for line in comparison_heading(self) {
            let _ = writeln!(o, "{line}");
        }
        let _ = writeln!(o, "{}\n", comparison_summary(self));
        let header = [
            "subject",
            "workload",
            "scenario",
            "A req/s",
            "B req/s",
            "req/s B÷A",
            "p99 B÷A",
            "CPU/req B÷A",
            "verdict",
        ];
        let rows = comparison_rows(self);
        let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
        for r in &rows {
            for (w, cell) in widths.iter_mut().zip(r.iter()) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut s = String::new();
            for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
                let pad = w - c.chars().count();
                let right = (3..8).contains(&i);
                if i > 0 {
                    s.push_str("  ");
                }
                if right {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                } else {
                    s.push_str(c);
                    if i + 1 < cells.len() {
                        s.push_str(&" ".repeat(pad));
                    }
                }
            }
            s
        };
        let head: Vec<String> = header.iter().map(|h| h.to_string()).collect();
        let _ = writeln!(o, "{}", line(&head));
        for (r, c) in rows.iter().zip(&self.cells) {
            let mut l = line(r);
            if let Some(n) = &c.note {
                let _ = write!(l, "  ({n})");
            }
            let _ = writeln!(o, "{l}");
        }
        for (title, list) in [
            ("only in A", &self.only_in_a),
            ("only in B", &self.only_in_b),
        ] {
            if !list.is_empty() {
                let _ = writeln!(o, "\n{title}:");
                for k in list {
                    let _ = writeln!(o, "  {} / {} / {}", k.label(), k.workload, k.scenario);
                }
            }
        }
        o.push_str(
            "\nratios are B ÷ A; for p99 and CPU µs/req below 1 is better; \
             verdicts weigh req/s against the noise of both runs\n",
        );
        o
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_comparison_aligns_its_columns() {
        let text = crate::compare::tests::sample().to_text();
        let lines: Vec<&str> = text.lines().filter(|l| l.contains("  echo  ")).collect();
        assert_eq!(lines.len(), 4, "{text}");
        let lines: Vec<&str> = lines.into_iter().filter(|l| l.contains('×')).collect();
        // Aligned: the ratio column ends at the same character in every row.
        let ends: Vec<usize> = lines
            .iter()
            .map(|l| {
                let i = l.find('×').unwrap_or(0);
                l[..i].chars().count()
            })
            .collect();
        assert!(ends.windows(2).all(|w| w[0] == w[1]), "{text}");
        assert!(text.contains("only in A:") && text.contains("rust-iron"));
    }
}
