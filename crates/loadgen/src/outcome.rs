//! The merged result of all threads, and its conversion into the on-disk document.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use restbench_model::documents::histogram::{self, new_latency_histogram};
use restbench_model::{
    Document, ErrorCounts, LatencySummary, LoadResult, LoadSettings, LoadgenCpu, Pacing,
    ScriptCost, SecondSample, ThreadRps, WakeError,
};

use crate::worker::{ScriptReport, ThreadReport};
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
    /// Per second: (p50, p99) latency in microseconds of the answers in it, all threads'
    /// histograms of that second merged; `None` for a second without answers.
    pub second_percentiles: Vec<Option<(u64, u64)>>,
    /// wrk's Req/Sec samples: each thread's answers per second, one sample per thread and whole
    /// second when every thread measured at least two whole seconds, else one per thread over
    /// its own measuring window (so that short runs, `-n 500` or `-d 1s`, still have a figure).
    pub thread_rates: Vec<f64>,
    pub cpu_user: Duration,
    pub cpu_system: Duration,
    pub max_lag: Option<Duration>,
    /// True when some thread stopped early because nothing succeeded for a long time.
    pub gave_up: bool,
    /// Wall-clock start of the measured period, Unix milliseconds (set by [`crate::run`]).
    pub measure_started_unix_ms: Option<u64>,
    /// TLS handshakes of new connections (empty without TLS).
    pub handshake: Histogram<u64>,
    /// TCP connects of new connections in the measured period.
    pub connect: Histogram<u64>,
    /// The first TLS failure's reason.
    pub tls_error: Option<String>,
    pub goaways: u64,
    /// The most bytes any HTTP/2 connection's write queue held (0 over HTTP/1.x and for an
    /// outcome read from a document): at most the requests in flight on one connection plus
    /// [`crate::h2::CONTROL_QUEUE_BYTES`], however fast a server floods.
    pub peak_write_queue: usize,
    /// The requests still waiting when the load ended, at their age (µs): censored latencies,
    /// each at least that long (empty for an outcome read from a document).
    pub waiting_at_end: Histogram<u64>,
    /// Per connection, the answers it got in the measured period (empty for an outcome read
    /// from a document).
    pub answers_per_connection: Vec<u64>,
    /// A script run per request: its calls, the time spent in Lua, and its first failure.
    pub script: Option<ScriptReport>,
    /// With a rate: each measured request's wake-up error, in nanoseconds.
    pub wake_error: Option<Histogram<u64>>,
    /// Requests `--deadline` shed.
    pub shed: u64,
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
            second_percentiles: Vec::new(),
            thread_rates: Vec::new(),
            cpu_user: Duration::ZERO,
            cpu_system: Duration::ZERO,
            max_lag: None,
            gave_up: false,
            measure_started_unix_ms: None,
            handshake: new_latency_histogram(),
            connect: new_latency_histogram(),
            tls_error: None,
            goaways: 0,
            peak_write_queue: 0,
            waiting_at_end: new_latency_histogram(),
            answers_per_connection: Vec::new(),
            script: None,
            wake_error: None,
            shed: 0,
        };
        let mut end = measure_from;
        let mut windows = Vec::with_capacity(reports.len());
        let mut second_buckets: Vec<Vec<(u64, u64)>> = Vec::new();
        for r in reports {
            let mut rec = r.recorder;
            if second_buckets.len() < rec.second_latencies.len() {
                second_buckets.resize_with(rec.second_latencies.len(), Vec::new);
            }
            for (i, b) in std::mem::take(&mut rec.second_latencies)
                .into_iter()
                .enumerate()
            {
                second_buckets[i].extend(b);
            }
            end = end.max(r.end);
            out.sent += rec.sent;
            out.answered += rec.answered;
            out.in_flight += r.in_flight;
            histogram::merge(&mut out.waiting_at_end, &r.waiting_at_end)
                .map_err(|e| LoadError::Io(std::io::Error::other(e)))?;
            out.answers_per_connection
                .extend_from_slice(&r.answers_per_connection);
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
            for (i, (a, b)) in rec.series.iter().enumerate() {
                out.series[i].0 += a;
                out.series[i].1 += b;
            }
            windows.push(ThreadWindow {
                answered: rec.answered,
                window: if rec.measuring {
                    r.end.saturating_duration_since(rec.t0)
                } else {
                    Duration::ZERO
                },
                seconds: rec.series.iter().map(|(a, _)| *a).collect(),
            });
            out.cpu_user += r.cpu_user;
            out.cpu_system += r.cpu_system;
            out.gave_up |= r.gave_up;
            histogram::merge(&mut out.handshake, &rec.handshake)
                .map_err(|e| LoadError::Io(std::io::Error::other(e)))?;
            histogram::merge(&mut out.connect, &rec.connect)
                .map_err(|e| LoadError::Io(std::io::Error::other(e)))?;
            if out.tls_error.is_none() {
                out.tls_error = rec.tls_reason;
            }
            out.goaways += rec.goaways;
            out.peak_write_queue = out.peak_write_queue.max(rec.peak_write_queue);
            if let Some(w) = rec.wake_error.as_ref() {
                let into = out
                    .wake_error
                    .get_or_insert_with(crate::recorder::new_wake_error_histogram);
                into.add(w)
                    .map_err(|e| LoadError::Io(std::io::Error::other(e.to_string())))?;
            }
            out.shed += rec.shed;
            if let Some(s) = r.script {
                let into = out.script.get_or_insert_with(ScriptReport::default);
                into.calls += s.calls;
                into.spent += s.spent;
                if into.error.is_none() {
                    into.error = s.error;
                }
            }
        }
        out.duration = end.saturating_duration_since(measure_from);
        out.thread_rates = thread_rates(&windows);
        out.second_percentiles = second_percentiles(&second_buckets, out.series.len());
        Ok(out)
    }

    /// The run second by second: answers, errors, and the second's p50/p99.
    pub fn seconds(&self) -> Vec<SecondSample> {
        self.series
            .iter()
            .enumerate()
            .map(|(i, (r, e))| {
                let p = self.second_percentiles.get(i).copied().flatten();
                SecondSample {
                    second: i as u32,
                    requests: *r,
                    errors: *e,
                    p50_us: p.map(|p| p.0),
                    p99_us: p.map(|p| p.1),
                }
            })
            .collect()
    }

    /// Connections that got no answer in the measured period (of
    /// [`Self::answers_per_connection`]).
    pub fn starved_connections(&self) -> usize {
        self.answers_per_connection
            .iter()
            .filter(|n| **n == 0)
            .count()
    }

    pub fn rps(&self) -> f64 {
        per_second(self.answered as f64, self.duration)
    }

    /// Converts into the versioned document written by `--json`.
    pub fn to_result(&self, spec: &LoadSpec) -> LoadResult {
        let secs = self.duration.as_secs_f64();
        let cpu = (self.cpu_user + self.cpu_system).as_secs_f64();
        LoadResult {
            schema_version: LoadResult::SCHEMA_VERSION,
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
                rate_end: spec.rate_end,
                deadline_s: spec.deadline.map(|d| d.as_secs_f64()),
                requests_per_connection: spec.requests_per_connection,
                script: spec.script_name.clone(),
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
            timeseries: self.seconds(),
            thread_rps: thread_rps(&self.thread_rates),
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
            capacity: None,
            interrupted: false,
            interrupted_after_s: None,
            started_at_unix_ms: self.measure_started_unix_ms,
            shard: None,
            shards: Vec::new(),
            tls_handshake_us: (!self.handshake.is_empty())
                .then(|| LatencySummary::from_histogram(&self.handshake)),
            connect_us: (!self.connect.is_empty())
                .then(|| LatencySummary::from_histogram(&self.connect)),
            overload: None,
            tls_error: self.tls_error.clone(),
            goaways: self.goaways,
            pacing: self.wake_error.as_ref().map(|h| Pacing {
                wake_error_ns: wake_error(h),
                shed: self.shed,
            }),
            script: spec.script_name.as_ref().map(|_| self.script_cost(cpu)),
        }
    }

    /// What the script cost: nothing per request when it was evaluated once.
    fn script_cost(&self, cpu_s: f64) -> ScriptCost {
        let Some(s) = &self.script else {
            return ScriptCost::default();
        };
        let spent = s.spent.as_secs_f64();
        ScriptCost {
            per_request: true,
            calls: s.calls,
            us_per_call: if s.calls > 0 {
                spent * 1e6 / s.calls as f64
            } else {
                0.0
            },
            // The Lua time is counted from the start, the CPU only while measuring: capped.
            cpu_share: if cpu_s > 0.0 {
                (spent / cpu_s).min(1.0)
            } else {
                0.0
            },
        }
    }
}

/// The wake-up error's percentiles, in nanoseconds.
fn wake_error(h: &Histogram<u64>) -> WakeError {
    let at = |q: f64| {
        if h.is_empty() {
            0
        } else {
            h.value_at_quantile(q)
        }
    };
    WakeError {
        p50: at(0.5),
        p90: at(0.9),
        p99: at(0.99),
        p999: at(0.999),
        max: if h.is_empty() { 0 } else { h.max() },
        count: h.len(),
    }
}

/// Each second's p50 and p99 from the buckets all threads kept of it (merged into one histogram
/// per second, never by averaging the threads' percentiles); `seconds` long.
fn second_percentiles(buckets: &[Vec<(u64, u64)>], seconds: usize) -> Vec<Option<(u64, u64)>> {
    let mut h = new_latency_histogram();
    (0..seconds)
        .map(|i| {
            let b = buckets.get(i)?;
            if b.is_empty() {
                return None;
            }
            h.reset();
            for (us, n) in b {
                h.saturating_record_n(*us, *n);
            }
            Some((h.value_at_quantile(0.5), h.value_at_quantile(0.99)))
        })
        .collect()
}

fn per_second(n: f64, d: Duration) -> f64 {
    if d.is_zero() {
        0.0
    } else {
        n / d.as_secs_f64()
    }
}

/// Whole seconds every thread must have measured for per-second Req/Sec samples: with fewer, a
/// thread gives one sample or none (its partial last second is left out, as it reads low), and
/// its rate over its own window says more.
const MIN_WHOLE_SECONDS: usize = 2;

/// What one thread answered while it measured, for its Req/Sec samples.
#[derive(Debug, Clone, Default)]
struct ThreadWindow {
    answered: u64,
    /// From the start of its measuring to its end.
    window: Duration,
    /// Answers per second since the start of measuring (the last second may be partial).
    seconds: Vec<u64>,
}

/// wrk's Req/Sec samples. Whole seconds when every thread measured at least two of them (the
/// partial last second is left out, as it would read low); otherwise each thread's answers over
/// its own window, so a run shorter than two seconds still reports its threads' rates.
fn thread_rates(threads: &[ThreadWindow]) -> Vec<f64> {
    let whole = |t: &ThreadWindow| (t.window.as_secs() as usize).min(t.seconds.len());
    if !threads.is_empty() && threads.iter().all(|t| whole(t) >= MIN_WHOLE_SECONDS) {
        return threads
            .iter()
            .flat_map(|t| t.seconds[..whole(t)].iter().map(|n| *n as f64))
            .collect();
    }
    threads
        .iter()
        .filter(|t| !t.window.is_zero())
        .map(|t| t.answered as f64 / t.window.as_secs_f64())
        .collect()
}

/// Mean, sample standard deviation, maximum, and the share of samples within one standard
/// deviation of the mean (wrk's `+/- Stdev` column).
fn thread_rps(samples: &[f64]) -> ThreadRps {
    if samples.is_empty() {
        return ThreadRps::default();
    }
    let n = samples.len() as f64;
    let mean = samples.iter().sum::<f64>() / n;
    let stdev = if samples.len() < 2 {
        0.0
    } else {
        (samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    };
    let within = samples
        .iter()
        .filter(|x| (**x - mean).abs() <= stdev)
        .count() as f64;
    ThreadRps {
        mean,
        stdev,
        max: samples.iter().copied().fold(0.0, f64::max),
        within_stdev_pct: 100.0 * within / n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(answered: u64, ms: u64, seconds: &[u64]) -> ThreadWindow {
        ThreadWindow {
            answered,
            window: Duration::from_millis(ms),
            seconds: seconds.to_vec(),
        }
    }

    #[test]
    fn a_run_shorter_than_two_seconds_rates_each_thread_over_its_window() {
        // `-n 500` on two threads, done in 50 ms: no whole second, yet each thread's rate is known.
        let rates = thread_rates(&[window(250, 50, &[250]), window(250, 40, &[250])]);
        assert_eq!(rates.len(), 2);
        assert!((rates[0] - 5_000.0).abs() < 1e-6, "{rates:?}");
        assert!((rates[1] - 6_250.0).abs() < 1e-6, "{rates:?}");
        let t = thread_rps(&rates);
        assert!(t.mean > 0.0 && t.stdev > 0.0 && t.max == 6_250.0, "{t:?}");
        assert_eq!(t.within_stdev_pct, 100.0);

        // `-d 1s`: the window is just under or over one second.
        let rates = thread_rates(&[window(900, 1_002, &[898, 2]), window(1_000, 999, &[1_000])]);
        assert_eq!(rates.len(), 2);
        assert!(rates.iter().all(|r| *r > 800.0), "{rates:?}");
    }

    #[test]
    fn longer_runs_take_one_sample_per_thread_and_whole_second() {
        let rates = thread_rates(&[
            window(3_050, 3_010, &[1_000, 1_010, 990, 50]),
            window(2_000, 2_500, &[1_000, 1_000, 0]),
        ]);
        assert_eq!(rates, vec![1_000.0, 1_010.0, 990.0, 1_000.0, 1_000.0]);
        let t = thread_rps(&rates);
        assert!((t.mean - 1_000.0).abs() < 1e-9);
        assert_eq!(t.max, 1_010.0);
        // 1000 ×3 are within one stdev (≈7), 1010 and 990 are not.
        assert!((t.within_stdev_pct - 60.0).abs() < 1e-9, "{t:?}");
    }

    #[test]
    fn each_second_merges_the_threads_buckets() {
        // Thread A answered 99 fast requests in second 0, thread B one slow one; second 1 is
        // empty; second 2 has one answer of 2 ms.
        let buckets = vec![vec![(100, 99), (10_000, 1)], vec![], vec![(2_000, 1)]];
        let p = second_percentiles(&buckets, 4);
        assert_eq!(p.len(), 4);
        let (p50, p99) = p[0].expect("second 0 has answers");
        assert_eq!(p50, 100);
        assert_eq!(p99, 100, "the 99th of 100 answers is still a fast one");
        assert_eq!(p[1], None);
        let (p50, p99) = p[2].unwrap();
        assert!((1_999..=2_001).contains(&p50) && p99 == p50, "{p:?}");
        assert_eq!(p[3], None, "a second past the buckets has none");
    }

    #[test]
    fn no_answers_is_zero_not_nan() {
        assert_eq!(thread_rps(&thread_rates(&[])), ThreadRps::default());
        let t = thread_rps(&thread_rates(&[window(0, 0, &[])]));
        assert_eq!(t, ThreadRps::default());
        let t = thread_rps(&[7.0]);
        assert_eq!((t.mean, t.stdev, t.within_stdev_pct), (7.0, 0.0, 100.0));
    }
}
