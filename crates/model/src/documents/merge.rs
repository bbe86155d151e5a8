//! Merging the load results of several generators (shards of one load) into one, exactly:
//! counts and error classes are summed, HdrHistograms added (never percentiles averaged), time
//! series aligned by wall-clock second, and the rate is the total answered over the window in
//! which the generators measured together.
//!
//! Pure functions over [`LoadResult`]: `restbench merge`, the SSH shards and `k8s collect` all
//! go through [`merge_load_results`].

use std::collections::BTreeMap;

use hdrhistogram::Histogram;

use super::Document;
use crate::documents::histogram::{self, HistogramError, new_latency_histogram};
use crate::{
    ErrorCounts, LatencySummary, LoadResult, LoadSettings, LoadgenCpu, SecondSample, ShardSummary,
    ThreadRps,
};

/// Why results could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("nothing to merge: give at least one load result")]
    Empty,
    #[error(
        "{other} is not the same load as {first}: {}; pass --force to merge anyway",
        .differences.join("; ")
    )]
    Mismatch {
        first: String,
        other: String,
        /// One entry per differing field: `url: http://a/ vs http://b/`.
        differences: Vec<String>,
    },
    #[error(
        "{first} and {other} are both shard {shard}: one generator's result merged twice would \
         count its requests twice; pass --force to merge anyway"
    )]
    DuplicateShard {
        first: String,
        other: String,
        shard: String,
    },
    /// A part fails the checks every document read passes ([`crate::documents::validate`]).
    #[error("{label}: {invalid}")]
    Invalid {
        label: String,
        invalid: crate::documents::validate::Invalid,
    },
    /// The parts' counts do not fit in 64 bits together: one of them cannot be true.
    #[error("{label}: {field} makes the merged count larger than 2^64; a shard's counts are wrong")]
    Overflow { label: String, field: &'static str },
    /// The parts' wall-clock starts are too far apart to be one load.
    #[error(
        "{label}: started_at_unix_ms is {seconds} s from the other parts' window; parts of one \
         load measure together (at most {} s apart)",
        crate::documents::validate::MAX_SERIES_SECONDS
    )]
    Window { label: String, seconds: u64 },
    #[error("the latency histogram of {label} cannot be read: {reason}")]
    Histogram {
        label: String,
        reason: HistogramError,
    },
}

/// What must be equal for two results to be parts of one load, as `field: a vs b` lines.
/// Connections, threads, rates and request counts may differ: they are each shard's share.
pub fn shape_differences(a: &LoadSettings, b: &LoadSettings) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |field: &str, x: String, y: String| {
        if x != y {
            out.push(format!("{field}: {x} vs {y}"));
        }
    };
    check("url", a.url.clone(), b.url.clone());
    check("method", a.method.clone(), b.method.clone());
    check(
        "body size",
        a.body_bytes.to_string(),
        b.body_bytes.to_string(),
    );
    check(
        "keepalive",
        a.keepalive.to_string(),
        b.keepalive.to_string(),
    );
    check(
        "HTTP version",
        a.http_version.clone(),
        b.http_version.clone(),
    );
    check("pipeline", a.pipeline.to_string(), b.pipeline.to_string());
    check(
        "requests per connection",
        format!("{:?}", a.requests_per_connection),
        format!("{:?}", b.requests_per_connection),
    );
    check(
        "HTTP/2 streams per connection",
        format!("{:?}", a.max_streams),
        format!("{:?}", b.max_streams),
    );
    check("timeout", secs(Some(a.timeout_s)), secs(Some(b.timeout_s)));
    check("warm-up", secs(Some(a.warmup_s)), secs(Some(b.warmup_s)));
    check("duration", secs(a.duration_s), secs(b.duration_s));
    let bound = |s: &LoadSettings| {
        if s.requests.is_some() {
            "a request count"
        } else {
            "a duration"
        }
    };
    check("bounded by", bound(a).into(), bound(b).into());
    let lp = |s: &LoadSettings| {
        if s.rate.is_some() {
            "open (--rate)"
        } else {
            "closed"
        }
    };
    check("loop", lp(a).into(), lp(b).into());
    out
}

fn secs(s: Option<f64>) -> String {
    match s {
        Some(s) => format!("{s}s"),
        None => "none".into(),
    }
}

/// Merges `(label, result)` pairs (a label names the result in messages and in
/// [`LoadResult::shards`]: a host or a file). Refuses results of different shapes, or the same
/// shard twice, unless `force`.
pub fn merge_load_results(
    inputs: &[(String, LoadResult)],
    force: bool,
) -> Result<LoadResult, MergeError> {
    let Some((first_label, first)) = inputs.first() else {
        return Err(MergeError::Empty);
    };
    for (label, r) in inputs {
        r.validate().map_err(|invalid| MergeError::Invalid {
            label: label.clone(),
            invalid,
        })?;
    }
    if !force {
        check_parts_of_one_load(inputs, first_label, first)?;
    }
    let (base, window_s) = window(inputs)?;
    let mut totals = Totals::new(inputs, first);
    for (label, r) in inputs {
        totals.add(label, r, base)?;
    }
    let merged = totals.into_result(inputs, first, base, window_s);
    // Sums of fields that each fit may not fit together (the error total).
    merged.validate().map_err(|invalid| MergeError::Invalid {
        label: "the merged result".into(),
        invalid,
    })?;
    Ok(merged)
}

/// Every input has the first one's shape, and no shard comes twice.
fn check_parts_of_one_load(
    inputs: &[(String, LoadResult)],
    first_label: &str,
    first: &LoadResult,
) -> Result<(), MergeError> {
    let mut seen: BTreeMap<(u32, u32), &str> = BTreeMap::new();
    for (label, r) in inputs {
        let differences = shape_differences(&first.settings, &r.settings);
        if !differences.is_empty() {
            return Err(MergeError::Mismatch {
                first: first_label.to_string(),
                other: label.clone(),
                differences,
            });
        }
        if let Some(s) = r.shard
            && let Some(previous) = seen.insert((s.index, s.count), label)
        {
            return Err(MergeError::DuplicateShard {
                first: previous.to_string(),
                other: label.clone(),
                shard: s.to_string(),
            });
        }
    }
    Ok(())
}

/// The window the parts measured in together, as its wall-clock start (when known) and its
/// length in seconds: from the earliest measured start to the latest end, when every part knows
/// its wall-clock start; else the longest part (they are taken as simultaneous).
/// Refused when a part ends more than [`crate::documents::validate::MAX_SERIES_SECONDS`] after the
/// earliest start: the merged series would be sized by it.
fn window(inputs: &[(String, LoadResult)]) -> Result<(Option<u64>, f64), MergeError> {
    let starts: Option<Vec<u64>> = inputs.iter().map(|(_, r)| r.started_at_unix_ms).collect();
    let Some(starts) = starts else {
        let longest = inputs.iter().map(|(_, r)| r.duration_s).fold(0.0, f64::max);
        return Ok((None, longest));
    };
    let base = starts.iter().copied().min().unwrap_or(0);
    let mut end = base as f64;
    for ((label, r), s) in inputs.iter().zip(&starts) {
        let part_end = *s as f64 + r.duration_s * 1000.0;
        let seconds = ((part_end - base as f64) / 1000.0).ceil() as u64;
        if seconds > crate::documents::validate::MAX_SERIES_SECONDS {
            return Err(MergeError::Window {
                label: label.clone(),
                seconds,
            });
        }
        end = end.max(part_end);
    }
    Ok((Some(base), (end - base as f64) / 1000.0))
}

/// The parts added so far: counts summed, histograms added, seconds aligned, shards listed.
struct Totals {
    latency: Histogram<u64>,
    /// Only when every part has one.
    uncorrected: Option<Histogram<u64>>,
    errors: ErrorCounts,
    status_counts: BTreeMap<String, u64>,
    series: Vec<SecondSample>,
    sent: u64,
    requests: u64,
    in_flight: u64,
    bytes: u64,
    opened: u64,
    user_s: f64,
    system_s: f64,
    max_lag: Option<u64>,
    shards: Vec<ShardSummary>,
    /// The first part's, with the shares (connections, threads, rate, requests) summed.
    settings: LoadSettings,
}

impl Totals {
    fn new(inputs: &[(String, LoadResult)], first: &LoadResult) -> Self {
        let all_uncorrected = inputs
            .iter()
            .all(|(_, r)| r.uncorrected_histogram.is_some());
        let mut settings = first.settings.clone();
        settings.connections = 0;
        settings.threads = 0;
        settings.rate = None;
        settings.requests = None;
        Self {
            latency: new_latency_histogram(),
            uncorrected: all_uncorrected.then(new_latency_histogram),
            errors: ErrorCounts::default(),
            status_counts: BTreeMap::new(),
            series: Vec::new(),
            sent: 0,
            requests: 0,
            in_flight: 0,
            bytes: 0,
            opened: 0,
            user_s: 0.0,
            system_s: 0.0,
            max_lag: None,
            shards: Vec::new(),
            settings,
        }
    }

    /// Adds one part; `base` is the window's wall-clock start, when every part knows its own.
    /// Every count is added checked: parts whose sums do not fit cannot all be true.
    fn add(&mut self, label: &str, r: &LoadResult, base: Option<u64>) -> Result<(), MergeError> {
        self.add_histograms(label, r)?;
        let add = |into: &mut u64, n: u64, field: &'static str| {
            *into = into.checked_add(n).ok_or_else(|| MergeError::Overflow {
                label: label.to_string(),
                field,
            })?;
            Ok::<_, MergeError>(())
        };
        add(&mut self.sent, r.sent, "sent")?;
        add(&mut self.requests, r.requests, "requests")?;
        add(&mut self.in_flight, r.in_flight, "in_flight")?;
        add(&mut self.bytes, r.bytes, "bytes")?;
        add(&mut self.opened, r.connections_opened, "connections_opened")?;
        self.errors = self
            .errors
            .checked_add(r.errors)
            .ok_or(MergeError::Overflow {
                label: label.to_string(),
                field: "errors",
            })?;
        for (code, n) in &r.status_counts {
            add(
                self.status_counts.entry(code.clone()).or_default(),
                *n,
                "status_counts",
            )?;
        }
        if let Some(n) = r.settings.requests {
            let total = self.settings.requests.get_or_insert(0);
            add(total, n, "settings.requests")?;
        }
        let offset = match (base, r.started_at_unix_ms) {
            (Some(base), Some(start)) => {
                (start.saturating_sub(base) as f64 / 1000.0).round() as usize
            }
            _ => 0,
        };
        self.add_seconds(&r.timeseries, offset)
            .ok_or_else(|| MergeError::Overflow {
                label: label.to_string(),
                field: "timeseries",
            })?;
        self.user_s += r.loadgen_cpu.user_s;
        self.system_s += r.loadgen_cpu.system_s;
        if let Some(l) = r.max_schedule_lag_us {
            self.max_lag = Some(self.max_lag.unwrap_or(0).max(l));
        }
        self.add_shares(&r.settings);
        self.add_shards(label, r);
        Ok(())
    }

    fn add_histograms(&mut self, label: &str, r: &LoadResult) -> Result<(), MergeError> {
        let unreadable = |reason| MergeError::Histogram {
            label: label.to_string(),
            reason,
        };
        let h = histogram::decode(&r.histogram).map_err(unreadable)?;
        histogram::merge(&mut self.latency, &h).map_err(unreadable)?;
        if let (Some(into), Some(text)) = (self.uncorrected.as_mut(), &r.uncorrected_histogram) {
            let h = histogram::decode(text).map_err(unreadable)?;
            histogram::merge(into, &h).map_err(unreadable)?;
        }
        Ok(())
    }

    /// One part's seconds, `offset` seconds after the window's start (both validated, so the
    /// series stays within a week); `None` when a second's counts overflow.
    fn add_seconds(&mut self, timeseries: &[SecondSample], offset: usize) -> Option<()> {
        let series = &mut self.series;
        for s in timeseries {
            let i = offset + s.second as usize;
            if series.len() <= i {
                series.resize_with(i + 1, SecondSample::default);
            }
            // Percentiles of one second cannot be added: a second answered by one generator
            // keeps its own, a second several generators answered in has none (unknown, never
            // averaged).
            let first = series[i].requests == 0 && series[i].errors == 0;
            series[i].p50_us = if first { s.p50_us } else { None };
            series[i].p99_us = if first { s.p99_us } else { None };
            series[i].requests = series[i].requests.checked_add(s.requests)?;
            series[i].errors = series[i].errors.checked_add(s.errors)?;
        }
        Some(())
    }

    /// Each part's share of the load: connections, threads, rate and request count.
    fn add_shares(&mut self, part: &LoadSettings) {
        let s = &mut self.settings;
        s.connections = s.connections.saturating_add(part.connections);
        s.threads = s.threads.saturating_add(part.threads);
        if let Some(x) = part.rate {
            s.rate = Some(s.rate.unwrap_or(0.0) + x);
        }
    }

    fn add_shards(&mut self, label: &str, r: &LoadResult) {
        if r.shards.is_empty() {
            self.shards.push(ShardSummary {
                generator: label.to_string(),
                shard: r.shard,
                requests: r.requests,
                errors: r.errors.total(),
                duration_s: r.duration_s,
                rps: r.rps,
                started_at_unix_ms: r.started_at_unix_ms,
                loadgen_cpu: r.loadgen_cpu,
            });
        } else {
            // A merge of merges keeps every generator, not the intermediate totals.
            self.shards.extend(r.shards.iter().cloned());
        }
    }

    /// The merged result over a window of `window_s` seconds from `base`.
    fn into_result(
        mut self,
        inputs: &[(String, LoadResult)],
        first: &LoadResult,
        base: Option<u64>,
        window_s: f64,
    ) -> LoadResult {
        for (i, s) in self.series.iter_mut().enumerate() {
            s.second = i as u32;
        }
        let per_s = |n: f64| if window_s > 0.0 { n / window_s } else { 0.0 };
        let (requests, bytes) = (self.requests, self.bytes);
        let cpu = self.user_s + self.system_s;
        LoadResult {
            schema_version: first.schema_version,
            restbench_version: first.restbench_version.clone(),
            settings: self.settings,
            sent: self.sent,
            requests,
            in_flight: self.in_flight,
            duration_s: window_s,
            rps: per_s(requests as f64),
            bytes,
            bytes_per_s: per_s(bytes as f64),
            connections_opened: self.opened,
            latency_us: LatencySummary::from_histogram(&self.latency),
            uncorrected_latency_us: self
                .uncorrected
                .as_ref()
                .map(LatencySummary::from_histogram),
            errors: self.errors,
            status_counts: self.status_counts,
            histogram: histogram::encode(&self.latency),
            uncorrected_histogram: self.uncorrected.as_ref().map(histogram::encode),
            timeseries: self.series,
            thread_rps: pooled_thread_rps(inputs.iter().map(|(_, r)| r)),
            loadgen_cpu: LoadgenCpu {
                user_s: self.user_s,
                system_s: self.system_s,
                cores: per_s(cpu),
                us_per_request: if requests > 0 {
                    cpu * 1e6 / requests as f64
                } else {
                    0.0
                },
            },
            max_schedule_lag_us: self.max_lag,
            capacity: None,
            // Handshakes are kept as a summary, which cannot be added: only a lone input keeps
            // it.
            tls_handshake_us: match inputs {
                [(_, only)] => only.tls_handshake_us,
                _ => None,
            },
            connect_us: match inputs {
                [(_, only)] => only.connect_us,
                _ => None,
            },
            // Read again from the merged seconds by whoever renders the merge.
            overload: None,
            tls_error: inputs.iter().find_map(|(_, r)| r.tls_error.clone()),
            goaways: inputs.iter().map(|(_, r)| r.goaways).sum(),
            pacing: None,
            script: None,
            interrupted: inputs.iter().any(|(_, r)| r.interrupted),
            interrupted_after_s: None,
            started_at_unix_ms: base,
            shard: None,
            shards: self.shards,
        }
    }
}

/// wrk's Req/Sec line over all generators. Each part keeps only its summary, so the parts are
/// pooled as groups of one sample per thread: the pooled mean and standard deviation are exact
/// for such groups; the share within one deviation is the parts' share weighted by threads.
fn pooled_thread_rps<'a>(results: impl Iterator<Item = &'a LoadResult>) -> ThreadRps {
    let parts: Vec<(f64, ThreadRps)> = results
        .map(|r| (f64::from(r.settings.threads.max(1)), r.thread_rps))
        .collect();
    let n: f64 = parts.iter().map(|(n, _)| n).sum();
    if n == 0.0 {
        return ThreadRps::default();
    }
    let mean = parts.iter().map(|(k, t)| k * t.mean).sum::<f64>() / n;
    let spread: f64 = parts
        .iter()
        .map(|(k, t)| (k - 1.0) * t.stdev.powi(2) + k * (t.mean - mean).powi(2))
        .sum();
    ThreadRps {
        mean,
        stdev: if n > 1.0 {
            (spread / (n - 1.0)).sqrt()
        } else {
            0.0
        },
        max: parts.iter().map(|(_, t)| t.max).fold(0.0, f64::max),
        within_stdev_pct: parts
            .iter()
            .map(|(k, t)| k * t.within_stdev_pct)
            .sum::<f64>()
            / n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Shard;
    use hdrhistogram::Histogram;

    fn settings() -> LoadSettings {
        LoadSettings {
            url: "http://10.0.0.1:8080/".into(),
            method: "GET".into(),
            connections: 4,
            threads: 2,
            duration_s: Some(2.0),
            requests: None,
            rate: None,
            pipeline: 1,
            keepalive: true,
            http_version: "1.1".into(),
            timeout_s: 2.0,
            warmup_s: 0.0,
            body_bytes: 0,
            max_streams: None,
            unix_socket: None,
            rate_end: None,
            deadline_s: None,
            requests_per_connection: None,
            script: None,
        }
    }

    /// A result whose histogram holds exactly `samples` and whose series is `per_second`.
    fn result(samples: &[u64], start_ms: u64, per_second: &[u64], shard: u32) -> LoadResult {
        let mut h: Histogram<u64> = new_latency_histogram();
        for s in samples {
            h.record(*s).unwrap();
        }
        let n = samples.len() as u64;
        LoadResult {
            schema_version: LoadResult::SCHEMA_VERSION,
            restbench_version: "0".into(),
            settings: settings(),
            sent: n + 2,
            requests: n,
            in_flight: 1,
            duration_s: 2.0,
            rps: n as f64 / 2.0,
            bytes: n * 100,
            bytes_per_s: n as f64 * 50.0,
            connections_opened: 4,
            latency_us: LatencySummary::from_histogram(&h),
            uncorrected_latency_us: None,
            errors: ErrorCounts {
                timeout: 1,
                protocol: 1,
                ..ErrorCounts::default()
            },
            status_counts: [("200".to_string(), n)].into_iter().collect(),
            histogram: histogram::encode(&h),
            uncorrected_histogram: None,
            timeseries: per_second
                .iter()
                .enumerate()
                .map(|(i, r)| SecondSample {
                    second: i as u32,
                    requests: *r,
                    errors: 0,
                    p50_us: Some(100),
                    p99_us: Some(900),
                })
                .collect(),
            thread_rps: ThreadRps {
                mean: 100.0,
                stdev: 0.0,
                max: 100.0,
                within_stdev_pct: 100.0,
            },
            loadgen_cpu: LoadgenCpu {
                user_s: 0.5,
                system_s: 0.25,
                cores: 0.375,
                us_per_request: 0.0,
            },
            max_schedule_lag_us: None,
            capacity: None,
            tls_handshake_us: None,
            connect_us: None,
            overload: None,
            tls_error: None,
            goaways: 0,
            pacing: None,
            script: None,
            interrupted: false,
            interrupted_after_s: None,
            started_at_unix_ms: Some(start_ms),
            shard: Some(Shard {
                index: shard,
                count: 2,
            }),
            shards: Vec::new(),
        }
    }

    #[test]
    fn merged_histogram_equals_the_histogram_of_all_samples() {
        let a: Vec<u64> = (1..3_000).map(|v| v * 13 % 50_000 + 1).collect();
        let b: Vec<u64> = (1..2_000).map(|v| v * 977 % 900_000 + 40).collect();
        let mut whole: Histogram<u64> = new_latency_histogram();
        for v in a.iter().chain(&b) {
            whole.record(*v).unwrap();
        }
        let merged = merge_load_results(
            &[
                ("a".into(), result(&a, 1_000_000, &[1, 2], 0)),
                ("b".into(), result(&b, 1_000_000, &[3, 4], 1)),
            ],
            false,
        )
        .unwrap();
        let back = histogram::decode(&merged.histogram).unwrap();
        assert_eq!(back, whole, "bucket by bucket");
        assert_eq!(merged.latency_us, LatencySummary::from_histogram(&whole));
        assert_eq!(back.len(), merged.requests);
    }

    #[test]
    fn counts_add_and_the_rate_is_total_over_the_common_window() {
        let a = result(&[100; 10], 1_000_000, &[4, 6], 0);
        let b = result(&[200; 30], 1_000_000, &[10, 20], 1);
        let m = merge_load_results(&[("a".into(), a), ("b".into(), b)], false).unwrap();
        assert_eq!((m.requests, m.sent, m.in_flight), (40, 44, 2));
        assert_eq!((m.errors.timeout, m.errors.protocol), (2, 2));
        assert_eq!(m.status_counts["200"], 40);
        assert_eq!(m.bytes, 4_000);
        assert_eq!(m.connections_opened, 8);
        assert_eq!((m.settings.connections, m.settings.threads), (8, 4));
        assert_eq!(m.duration_s, 2.0);
        assert_eq!(m.rps, 20.0);
        assert_eq!(m.loadgen_cpu.user_s, 1.0);
        assert_eq!(m.loadgen_cpu.cores, 0.75);
        assert!(m.totals_add_up());
        assert_eq!(m.shards.len(), 2);
        assert_eq!(m.shards[1].requests, 30);
        assert_eq!(m.shard, None);
        let seconds: Vec<u64> = m.timeseries.iter().map(|s| s.requests).collect();
        assert_eq!(seconds, vec![14, 26]);
    }

    #[test]
    fn seconds_align_by_wall_clock_and_the_window_spans_both() {
        // b started one second later: its second 0 is a's second 1.
        let a = result(&[100; 3], 5_000_000, &[1, 1], 0);
        let b = result(&[100; 3], 5_001_000, &[7, 7], 1);
        let m = merge_load_results(&[("a".into(), a), ("b".into(), b)], false).unwrap();
        let seconds: Vec<u64> = m.timeseries.iter().map(|s| s.requests).collect();
        assert_eq!(seconds, vec![1, 8, 7]);
        assert_eq!(m.timeseries[2].second, 2);
        assert_eq!(m.duration_s, 3.0);
        assert_eq!(m.rps, 2.0);
        assert_eq!(m.started_at_unix_ms, Some(5_000_000));
    }

    #[test]
    fn a_different_load_is_refused_naming_the_field() {
        let a = result(&[100], 0, &[1], 0);
        let mut b = result(&[100], 0, &[1], 1);
        b.settings.url = "http://10.0.0.2:8080/".into();
        b.settings.body_bytes = 4096;
        let err = merge_load_results(
            &[("a.json".into(), a.clone()), ("b.json".into(), b.clone())],
            false,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("b.json is not the same load as a.json"),
            "{err}"
        );
        assert!(
            err.contains("url: http://10.0.0.1:8080/ vs http://10.0.0.2:8080/"),
            "{err}"
        );
        assert!(err.contains("body size: 0 vs 4096"), "{err}");
        assert!(err.contains("--force"), "{err}");
        let forced = merge_load_results(&[("a".into(), a), ("b".into(), b)], true).unwrap();
        assert_eq!(forced.requests, 2);
    }

    #[test]
    fn the_same_shard_twice_is_refused() {
        let a = result(&[100], 0, &[1], 0);
        let err = merge_load_results(&[("x".into(), a.clone()), ("y".into(), a)], false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("x and y are both shard 0/2"), "{err}");
    }

    #[test]
    fn nothing_is_an_error_and_shards_parse() {
        assert!(matches!(
            merge_load_results(&[], false),
            Err(MergeError::Empty)
        ));
        assert_eq!(
            "1/3".parse::<Shard>().unwrap(),
            Shard { index: 1, count: 3 }
        );
        for bad in ["3/3", "1", "a/2", "0/0", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    /// Issue 26 item 6: each lie is refused before anything is sized by it, naming the part and
    /// the field.
    #[test]
    fn parts_that_lie_are_refused_naming_the_part_and_the_field() {
        type Lie = fn(&mut LoadResult);
        let lies: [(&str, Lie, &str); 7] = [
            (
                "a second of 2^32 - 1",
                |r| r.timeseries[0].second = u32::MAX,
                "timeseries[0].second",
            ),
            (
                "a far-future start",
                |r| r.started_at_unix_ms = Some(crate::documents::validate::MAX_UNIX_MS),
                "started_at_unix_ms",
            ),
            (
                "shard 5 of 2",
                |r| r.shard = Some(Shard { index: 5, count: 2 }),
                "shard.index",
            ),
            (
                "shard 0 of 0",
                |r| r.shard = Some(Shard { index: 0, count: 0 }),
                "shard.count",
            ),
            (
                "2^64 - 1 requests",
                |r| {
                    (r.requests, r.sent, r.in_flight) = (u64::MAX, u64::MAX, 0);
                    r.errors = ErrorCounts::default();
                },
                "2^64",
            ),
            ("a NaN duration", |r| r.duration_s = f64::NAN, "duration_s"),
            (
                "errors past 2^64",
                |r| (r.errors.read, r.errors.timeout) = (u64::MAX, 1),
                "errors",
            ),
        ];
        for (lie, tell, field) in lies {
            let a = result(&[100], 1_000_000, &[1], 0);
            let mut b = result(&[100], 1_000_000, &[1], 1);
            tell(&mut b);
            let mut parts = vec![("a.json".to_string(), a), ("b.json".to_string(), b)];
            if lie == "2^64 - 1 requests" {
                tell(&mut parts[0].1);
            }
            let err = merge_load_results(&parts, true).unwrap_err().to_string();
            assert!(err.starts_with("b.json: "), "{lie}: {err}");
            assert!(err.contains(field), "{lie}: {err}");
        }
        // A start a week and more after the other part's: the merged series would be that long.
        let a = result(&[100], 1_000_000, &[1], 0);
        let b = result(&[100], 1_000_000 + 8 * 24 * 3_600_000, &[1], 1);
        let err = merge_load_results(&[("a".into(), a), ("b".into(), b)], false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("b: started_at_unix_ms"), "{err}");
    }

    #[test]
    fn pooled_thread_rates_are_exact_for_equal_groups() {
        let mut a = result(&[1], 0, &[], 0);
        let mut b = result(&[1], 0, &[], 1);
        // Samples {90, 110} and {190, 210}: pooled {90, 110, 190, 210}.
        a.thread_rps = ThreadRps {
            mean: 100.0,
            stdev: 200f64.sqrt(),
            max: 110.0,
            within_stdev_pct: 100.0,
        };
        b.thread_rps = ThreadRps {
            mean: 200.0,
            stdev: 200f64.sqrt(),
            max: 210.0,
            within_stdev_pct: 100.0,
        };
        let t = pooled_thread_rps([&a, &b].into_iter());
        let samples = [90.0f64, 110.0, 190.0, 210.0];
        let var = samples.iter().map(|x| (x - 150.0).powi(2)).sum::<f64>() / 3.0;
        assert!((t.mean - 150.0).abs() < 1e-9);
        assert!((t.stdev - var.sqrt()).abs() < 1e-9, "{t:?}");
        assert_eq!(t.max, 210.0);
    }
}
