//! The merged result of all threads, and its conversion into the on-disk document.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use restbench_model::histogram::{self, new_latency_histogram};
use restbench_model::{
    ErrorCounts, LatencySummary, LoadResult, LoadSettings, LoadgenCpu, SCHEMA_VERSION,
    SecondSample, ThreadRps,
};

use crate::worker::ThreadReport;
use crate::{HttpVersion, LoadError, LoadSpec, StopAt};

/// Everything a run measured, all threads merged.
#[derive(Debug, Clone)]
pub struct LoadOutcome {
    pub duration: Duration,
    pub sent: u64,
    pub answered: u64,
    pub in_flight: u64,
    pub errors: ErrorCounts,
    pub status_counts: BTreeMap<u16, u64>,
    pub bytes: u64,
    pub connections_opened: u64,
    pub latency: Histogram<u64>,
    pub uncorrected: Option<Histogram<u64>>,
    /// Per second: (answered, errors), all threads.
    pub series: Vec<(u64, u64)>,
    /// Per thread and whole second: answered.
    pub thread_seconds: Vec<u64>,
    pub cpu_user: Duration,
    pub cpu_system: Duration,
    pub max_lag: Option<Duration>,
    /// True when some thread stopped early because nothing succeeded for a long time.
    pub gave_up: bool,
    /// TLS handshakes of new connections (empty without TLS).
    pub handshake: Histogram<u64>,
    /// The first TLS failure's reason.
    pub tls_error: Option<String>,
    pub goaways: u64,
}

impl LoadOutcome {
    pub(crate) fn merge(
        reports: Vec<ThreadReport>,
        measure_from: Instant,
    ) -> Result<Self, LoadError> {
        let mut out = Self {
            duration: Duration::ZERO,
            sent: 0,
            answered: 0,
            in_flight: 0,
            errors: ErrorCounts::default(),
            status_counts: BTreeMap::new(),
            bytes: 0,
            connections_opened: 0,
            latency: new_latency_histogram(),
            uncorrected: None,
            series: Vec::new(),
            thread_seconds: Vec::new(),
            cpu_user: Duration::ZERO,
            cpu_system: Duration::ZERO,
            max_lag: None,
            gave_up: false,
            handshake: new_latency_histogram(),
            tls_error: None,
            goaways: 0,
        };
        let mut end = measure_from;
        for r in reports {
            let rec = r.recorder;
            end = end.max(r.end);
            out.sent += rec.sent;
            out.answered += rec.answered;
            out.in_flight += r.in_flight;
            out.errors += rec.errors;
            for (code, n) in rec.status.iter().enumerate().filter(|(_, n)| **n > 0) {
                *out.status_counts.entry(code as u16).or_default() += n;
            }
            out.bytes += rec.bytes;
            out.connections_opened += rec.connections_opened;
            histogram::merge(&mut out.latency, &rec.latency)
                .map_err(|e| LoadError::Io(std::io::Error::other(e)))?;
            if let Some(u) = rec.uncorrected.as_ref() {
                let into = out.uncorrected.get_or_insert_with(new_latency_histogram);
                histogram::merge(into, u).map_err(|e| LoadError::Io(std::io::Error::other(e)))?;
                out.max_lag = Some(out.max_lag.unwrap_or_default().max(rec.max_lag));
            }
            if out.series.len() < rec.series.len() {
                out.series.resize(rec.series.len(), (0, 0));
            }
            let measured_whole = r.end.saturating_duration_since(rec.t0).as_secs() as usize;
            for (i, (a, b)) in rec.series.iter().enumerate() {
                out.series[i].0 += a;
                out.series[i].1 += b;
                if i < measured_whole {
                    out.thread_seconds.push(*a);
                }
            }
            out.cpu_user += r.cpu_user;
            out.cpu_system += r.cpu_system;
            out.gave_up |= r.gave_up;
            histogram::merge(&mut out.handshake, &rec.handshake)
                .map_err(|e| LoadError::Io(std::io::Error::other(e)))?;
            if out.tls_error.is_none() {
                out.tls_error = rec.tls_reason;
            }
            out.goaways += rec.goaways;
        }
        out.duration = end.saturating_duration_since(measure_from);
        Ok(out)
    }

    pub fn rps(&self) -> f64 {
        per_second(self.answered as f64, self.duration)
    }

    /// Converts into the versioned document written by `--json`.
    pub fn to_result(&self, spec: &LoadSpec) -> LoadResult {
        let secs = self.duration.as_secs_f64();
        let cpu = (self.cpu_user + self.cpu_system).as_secs_f64();
        let mean = mean(&self.thread_seconds);
        LoadResult {
            schema_version: SCHEMA_VERSION,
            restbench_version: env!("CARGO_PKG_VERSION").to_string(),
            settings: LoadSettings {
                url: spec.target.url.clone(),
                method: spec.method.clone(),
                connections: spec.connections,
                threads: spec.effective_threads(),
                duration_s: match spec.stop {
                    StopAt::Duration(d) => Some(d.as_secs_f64()),
                    StopAt::Requests(_) => None,
                },
                requests: match spec.stop {
                    StopAt::Requests(n) => Some(n),
                    StopAt::Duration(_) => None,
                },
                rate: spec.rate,
                pipeline: spec.pipeline,
                max_streams: (spec.http_version == HttpVersion::Http2).then_some(spec.max_streams),
                unix_socket: spec.unix_socket.as_ref().map(|p| p.display().to_string()),
                keepalive: spec.keepalive && spec.http_version != HttpVersion::Http10,
                http_version: match spec.http_version {
                    HttpVersion::Http11 => "1.1".into(),
                    HttpVersion::Http10 => "1.0".into(),
                    HttpVersion::Http2 => "2".into(),
                },
                timeout_s: spec.timeout.as_secs_f64(),
                warmup_s: spec.warmup.as_secs_f64(),
                body_bytes: spec.body.len() as u64,
            },
            sent: self.sent,
            requests: self.answered,
            in_flight: self.in_flight,
            duration_s: secs,
            rps: self.rps(),
            bytes: self.bytes,
            bytes_per_s: per_second(self.bytes as f64, self.duration),
            connections_opened: self.connections_opened,
            latency_us: LatencySummary::from_histogram(&self.latency),
            uncorrected_latency_us: self
                .uncorrected
                .as_ref()
                .map(LatencySummary::from_histogram),
            errors: self.errors,
            status_counts: self
                .status_counts
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect(),
            histogram: histogram::encode(&self.latency),
            uncorrected_histogram: self.uncorrected.as_ref().map(histogram::encode),
            timeseries: self
                .series
                .iter()
                .enumerate()
                .map(|(i, (r, e))| SecondSample {
                    second: i as u32,
                    requests: *r,
                    errors: *e,
                })
                .collect(),
            thread_rps: ThreadRps {
                mean,
                stdev: stdev(&self.thread_seconds, mean),
                max: self.thread_seconds.iter().copied().max().unwrap_or(0) as f64,
            },
            loadgen_cpu: LoadgenCpu {
                user_s: self.cpu_user.as_secs_f64(),
                system_s: self.cpu_system.as_secs_f64(),
                cores: if secs > 0.0 { cpu / secs } else { 0.0 },
                us_per_request: if self.answered > 0 {
                    cpu * 1e6 / self.answered as f64
                } else {
                    0.0
                },
            },
            max_schedule_lag_us: self.max_lag.map(|d| d.as_micros() as u64),
            tls_handshake_us: (!self.handshake.is_empty())
                .then(|| LatencySummary::from_histogram(&self.handshake)),
            tls_error: self.tls_error.clone(),
            goaways: self.goaways,
        }
    }
}

fn per_second(n: f64, d: Duration) -> f64 {
    if d.is_zero() {
        0.0
    } else {
        n / d.as_secs_f64()
    }
}

fn mean(v: &[u64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<u64>() as f64 / v.len() as f64
    }
}

fn stdev(v: &[u64], mean: f64) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let var = v.iter().map(|x| (*x as f64 - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
    var.sqrt()
}
