//! A load run in wrk's shape (`restbench load`), so the two can be set side by side: header,
//! thread stats, optional distribution, totals, errors.

use std::fmt::Write;

use restbench_model::documents::histogram;
use restbench_model::{LatencySummary, LoadResult, LoadSettings};

use crate::escape::terminal;
use crate::units::{bytes, count, micros, plural, thousands};

/// wrk's report: header, thread stats, optional distribution, totals, errors.
pub fn load_report(r: &LoadResult, distribution: bool) -> String {
    let mut o = String::new();
    heading(&mut o, &r.settings);
    thread_stats(&mut o, r);
    if distribution {
        latency_distribution(&mut o, r);
    }
    let _ = writeln!(
        o,
        "  {} requests in {:.2}s, {} read",
        r.requests,
        r.duration_s,
        bytes(r.bytes as f64)
    );
    if r.interrupted {
        let _ = writeln!(
            o,
            "  Run interrupted after {} (Ctrl-C): the figures cover the load until then",
            r.interrupted_after_s
                .map_or_else(|| "an unknown time".to_string(), |s| format!("{s:.1} s"))
        );
    }
    errors(&mut o, r);
    status_codes(&mut o, r);
    accounting(&mut o, r);
    pacing(&mut o, r);
    overload(&mut o, r);
    script(&mut o, r);
    let _ = writeln!(o, "Requests/sec: {:>10.2}", r.rps);
    let _ = writeln!(o, "Transfer/sec: {:>10}", bytes(r.bytes_per_s));
    o
}

/// `Running 10s test @ URL`, the load's shape, and what closed-loop latency means.
fn heading(o: &mut String, s: &LoadSettings) {
    let what = match (s.duration_s, s.requests) {
        (Some(d), _) => format!("{}s test", trim_float(d)),
        (None, Some(n)) => format!("{n}-request test"),
        _ => "test".into(),
    };
    let _ = writeln!(o, "Running {what} @ {}", terminal(&s.url));
    let _ = writeln!(o, "{}", shape(s));
    if s.rate.is_none() {
        // Two lines, so that a terminal of 80 columns shows them whole.
        let _ = writeln!(
            o,
            "  Latency {}: a saturated queue",
            crate::vocabulary::closed_loop_latency(s.connections)
        );
        let _ = writeln!(o, "  (see --rate or --slo for latency at a given load)");
    }
}

/// `  2 threads and 10 connections`, with whatever departs from wrk's defaults.
fn shape(s: &LoadSettings) -> String {
    let mut shape = format!(
        "  {} and {}",
        plural(s.threads, "thread"),
        plural(s.connections, "connection")
    );
    match (s.rate, s.rate_end) {
        (Some(from), Some(to)) => {
            let _ = write!(
                shape,
                ", {} to {} requests/sec (open loop, ramp)",
                trim_float(from),
                trim_float(to)
            );
        }
        (Some(rate), None) => {
            let _ = write!(shape, ", {} requests/sec (open loop)", trim_float(rate));
        }
        _ => {}
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
            ", HTTP/2 with {} each",
            plural(s.max_streams.unwrap_or(1), "stream")
        );
    }
    if let Some(path) = &s.unix_socket {
        let _ = write!(shape, ", over unix:{}", terminal(path));
    }
    shape
}

/// wrk's `Thread Stats` block: latency and per-thread req/s, with the share within one stdev.
fn thread_stats(o: &mut String, r: &LoadResult) {
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
        "    Req/Sec {:>9} {:>9} {:>9} {:>8.2}%",
        count(t.mean),
        count(t.stdev),
        count(t.max),
        t.within_stdev_pct
    );
}

/// `--latency`: the percentiles, and the uncorrected ones beside them for an open loop.
fn latency_distribution(o: &mut String, r: &LoadResult) {
    let title = if r.uncorrected_latency_us.is_some() {
        "  Latency Distribution (from intended send times: coordinated omission corrected)"
    } else {
        "  Latency Distribution"
    };
    let _ = writeln!(o, "{title}");
    percentiles(o, &r.latency_us);
    if let Some(u) = &r.uncorrected_latency_us {
        let _ = writeln!(
            o,
            "  Uncorrected Latency Distribution (from actual send times)"
        );
        percentiles(o, u);
    }
}

fn percentiles(o: &mut String, l: &LatencySummary) {
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

/// The open loop's wake-up error (each request's actual send against its intended time), and
/// what `--deadline` shed.
fn pacing(o: &mut String, r: &LoadResult) {
    let Some(p) = &r.pacing else {
        return;
    };
    let w = &p.wake_error_ns;
    let us = |ns: u64| micros(ns as f64 / 1000.0);
    let _ = writeln!(
        o,
        "  Send wake-up error: p50 {}, p90 {}, p99 {}, max {}",
        us(w.p50).trim(),
        us(w.p90).trim(),
        us(w.p99).trim(),
        us(w.max).trim()
    );
    if p.shed > 0 || r.settings.deadline_s.is_some() {
        let _ = writeln!(
            o,
            "  Shed by --deadline (too late at their send time, not sent): {}",
            p.shed
        );
    }
}

/// What a wrk script cost.
fn script(o: &mut String, r: &LoadResult) {
    let Some(s) = &r.script else {
        return;
    };
    if s.per_request {
        let _ = writeln!(
            o,
            "  Script: {} calls, {} per call, {:.1}% of the generator's CPU",
            s.calls,
            micros(s.us_per_call).trim(),
            s.cpu_share * 100.0
        );
    } else {
        let _ = writeln!(
            o,
            "  Script: evaluated once into the request (no cost per request)"
        );
    }
}

/// One line per kind of failure that happened, in wrk's words where wrk has them.
fn errors(o: &mut String, r: &LoadResult) {
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
        let reason = terminal(r.tls_error.as_deref().unwrap_or("no reason recorded"));
        let _ = writeln!(o, "  TLS failures: {} ({reason})", e.tls);
    }
    if e.reset > 0 || r.goaways > 0 {
        let _ = writeln!(
            o,
            "  HTTP/2: {} reset by the server, {} GOAWAY received",
            plural(e.reset, "stream"),
            r.goaways
        );
    }
}

/// What came back, as oha and hey print it (`Status codes: 200: 1,234  404: 12`), and a hint
/// when most answers are one client or server error: the load measured that error, not the
/// endpoint.
fn status_codes(o: &mut String, r: &LoadResult) {
    if r.status_counts.is_empty() {
        return;
    }
    let list: Vec<String> = r
        .status_counts
        .iter()
        .map(|(code, n)| format!("{}: {}", terminal(code), thousands(*n as f64)))
        .collect();
    let _ = writeln!(o, "  Status codes: {}", list.join("  "));
    if let Some(hint) = dominant_status_hint(r) {
        let _ = writeln!(o, "  {hint}");
    }
}

/// A hint when at least half the answers share one status of 400 or above.
pub fn dominant_status_hint(r: &LoadResult) -> Option<String> {
    let answered: u64 = r.status_counts.values().sum();
    let (code, n) = r
        .status_counts
        .iter()
        .filter(|(code, _)| code.parse::<u16>().is_ok_and(|c| c >= 400))
        .max_by_key(|(_, n)| **n)?;
    if answered == 0 || 2 * n < answered {
        return None;
    }
    let code_num: u16 = code.parse().ok()?;
    let (reason, question) = status_question(code_num);
    let share = if *n == answered {
        "every answer was".to_string()
    } else {
        format!(
            "{:.0} % of the answers were",
            100.0 * *n as f64 / answered as f64
        )
    };
    Some(format!("{share} {code} {reason}: {question}"))
}

/// The status's reason phrase and what to check first.
fn status_question(code: u16) -> (&'static str, &'static str) {
    match code {
        400 => (
            "Bad Request",
            "is the request what the server expects (method, body, Content-Type)?",
        ),
        401 => (
            "Unauthorized",
            "does the server want credentials (-H 'Authorization: ...')?",
        ),
        403 => (
            "Forbidden",
            "does the server want credentials or another path?",
        ),
        404 => ("Not Found", "is the path right?"),
        405 => ("Method Not Allowed", "is the method right (-m)?"),
        411 => ("Length Required", "does the server want a body (-b)?"),
        413 => (
            "Content Too Large",
            "is the body (-b) too large for the server?",
        ),
        415 => ("Unsupported Media Type", "is the Content-Type right (-T)?"),
        429 => (
            "Too Many Requests",
            "the server limits the rate: the figures measure its refusal",
        ),
        500..=599 => ("(server error)", "the server failed: see its log"),
        _ => ("(client error)", "is the request what the server expects?"),
    }
}

/// A ramp as latency against the offered rate, a bar per stretch (its p99 on a log scale
/// against the highest), and where it broke.
fn overload(o: &mut String, r: &LoadResult) {
    let Some(ov) = &r.overload else {
        return;
    };
    let (from, to) = (
        r.settings.rate.unwrap_or(0.0),
        r.settings.rate_end.unwrap_or(0.0),
    );
    let _ = writeln!(
        o,
        "  Ramp {from:.0} -> {to:.0} req/s in {} stretches (p99 limit {}; a stretch's p99 is \
         its worst second's):",
        ov.buckets.len(),
        micros(ov.p99_limit_us as f64)
    );
    let _ = writeln!(
        o,
        "    {:>9} {:>11} {:>11} {:>10} {:>7}",
        "seconds", "offered/s", "answered/s", "p99", "errors"
    );
    let top = ov
        .buckets
        .iter()
        .filter_map(|b| b.p99_us)
        .max()
        .unwrap_or(1)
        .max(2) as f64;
    for (i, b) in ov.buckets.iter().enumerate() {
        let bar = b.p99_us.map_or(0, |p| {
            ((p.max(1) as f64).ln() / top.ln() * 30.0).round() as usize
        });
        let mark = if ov.knee.as_ref().is_some_and(|k| k.bucket == i) {
            "  <- broke"
        } else {
            ""
        };
        let _ = writeln!(
            o,
            "    {:>9} {:>11.0} {:>11.0} {:>10} {:>7}  {}{mark}",
            format!("{}-{}", b.from_s, b.to_s),
            b.offered_rps,
            b.achieved_rps,
            b.p99_us.map_or_else(|| "-".into(), |p| micros(p as f64)),
            b.errors,
            "#".repeat(bar)
        );
    }
    match &ov.knee {
        Some(k) => {
            let b = &ov.buckets[k.bucket.min(ov.buckets.len().saturating_sub(1))];
            let _ = writeln!(
                o,
                "  Broke at {:.0} req/s offered (seconds {}-{}): {}",
                k.offered_rps, b.from_s, b.to_s, k.reason
            );
        }
        None => {
            let _ = writeln!(
                o,
                "  Kept up over the whole ramp: no stretch over the p99 limit, under 90 % of its \
                 rate or over 1 % errors"
            );
        }
    }
}

/// Connects and TLS handshakes, requests not answered, and a lag behind an open loop's
/// schedule.
fn accounting(o: &mut String, r: &LoadResult) {
    if let (Some(n), Some(c)) = (r.settings.requests_per_connection, &r.connect_us) {
        let _ = writeln!(
            o,
            "  Connects (a new connection every {n} answers; not in latency): {} opened, avg {}, \
             p50 {}, p99 {}, max {}",
            r.connections_opened,
            micros(c.mean),
            micros(c.p50 as f64),
            micros(c.p99 as f64),
            micros(c.max as f64)
        );
    }
    if let Some(h) = &r.tls_handshake_us {
        let _ = writeln!(
            o,
            "  TLS handshakes (not in latency): avg {}, p50 {}, p99 {}, max {}",
            micros(h.mean),
            micros(h.p50 as f64),
            micros(h.p99 as f64),
            micros(h.max as f64)
        );
    }
    let unanswered = r.errors.unanswered();
    if r.in_flight > 0 || unanswered > 0 {
        let _ = writeln!(
            o,
            "  {} sent = {} answered + {} failed + {} in flight at the end",
            r.sent, r.requests, unanswered, r.in_flight
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
}

fn trim_float(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_codes_are_listed_and_a_dominant_error_gets_a_hint() {
        let mut r = crate::test_support::load_result();
        r.status_counts = [("200".to_string(), 1234), ("404".to_string(), 12)].into();
        let text = load_report(&r, false);
        assert!(
            text.contains("\n  Status codes: 200: 1,234  404: 12\n"),
            "{text}"
        );
        assert!(!text.contains("is the path right"), "{text}");
        r.status_counts = [("404".to_string(), 200)].into();
        assert_eq!(
            dominant_status_hint(&r).as_deref(),
            Some("every answer was 404 Not Found: is the path right?")
        );
        r.status_counts = [("200".to_string(), 10), ("400".to_string(), 30)].into();
        assert_eq!(
            dominant_status_hint(&r).as_deref(),
            Some(
                "75 % of the answers were 400 Bad Request: is the request what the server \
                 expects (method, body, Content-Type)?"
            )
        );
    }

    #[test]
    fn an_interrupted_load_says_so_and_when() {
        let mut r = crate::test_support::load_result();
        assert!(!load_report(&r, false).contains("interrupted"));
        r.interrupted = true;
        r.interrupted_after_s = Some(1.23);
        let text = load_report(&r, false);
        assert!(
            text.contains("Run interrupted after 1.2 s (Ctrl-C)"),
            "{text}"
        );
    }
}
