//! Per-thread counters and histograms; no locks, merged once at the end.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use restbench_model::ErrorCounts;
use restbench_model::documents::histogram::{HIGHEST_US, new_latency_histogram};

use crate::Progress;

/// Status slots counted one by one: every code from 0 to 599; a larger (invalid) code is counted
/// in the last slot.
const STATUS_SLOTS: usize = 600;
/// The statuses that are answers, not failures: 2xx and 3xx (a redirect is the server's answer;
/// the generator does not follow it).
const SUCCESS_STATUSES: std::ops::Range<u16> = 200..400;

/// A class of failure, for [`Recorder::error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    Connect,
    Read,
    Write,
    Timeout,
    Parse,
    /// A response no request asked for.
    Protocol,
    /// A TLS handshake or record failure (counted per connection).
    Tls,
    /// An HTTP/2 stream reset by the server.
    Reset,
}

/// What one thread measured. Nothing is recorded until [`Recorder::start_measuring`].
pub struct Recorder {
    pub measuring: bool,
    pub t0: Instant,
    pub latency: Histogram<u64>,
    pub uncorrected: Option<Histogram<u64>>,
    pub sent: u64,
    pub answered: u64,
    pub errors: ErrorCounts,
    pub status: Vec<u64>,
    pub bytes: u64,
    pub connections_opened: u64,
    /// Per second since `t0`: (answered, errors).
    pub series: Vec<(u64, u64)>,
    /// Per second since `t0`: the non-empty buckets `(value, count)` of that second's latency
    /// histogram, taken when the second ended; all threads' are merged at the end for the
    /// second's p50/p99. Empty for a second without answers.
    pub second_latencies: Vec<Vec<(u64, u64)>>,
    pub max_lag: Duration,
    /// The latencies of the current second only, cleared when it ends: one histogram reused,
    /// so a request costs one more record and no allocation.
    second_latency: Histogram<u64>,
    /// The second (since `t0`) that `second_latency` holds.
    current_second: usize,
    /// Where each finished second's latencies are published for the progress line.
    live: Arc<Progress>,
    /// TLS handshakes of new connections, in microseconds; empty without TLS.
    pub handshake: Histogram<u64>,
    /// TCP connects (from `connect` to the socket writable), in microseconds: what a new
    /// connection costs before its first request, kept apart from request latency.
    pub connect: Histogram<u64>,
    /// The first TLS failure's one-line reason, kept even before measuring starts.
    pub tls_reason: Option<String>,
    /// HTTP/2 GOAWAY frames received.
    pub goaways: u64,
    /// The most bytes one HTTP/2 connection's write queue held (bounded by
    /// [`crate::h2::CONTROL_QUEUE_BYTES`] beyond its requests), measuring or not.
    pub peak_write_queue: usize,
    /// With a rate: each measured request's wake-up error (actual send against intended), in
    /// nanoseconds.
    pub wake_error: Option<Histogram<u64>>,
    /// Requests `--deadline` shed in the measured period.
    pub shed: u64,
    /// Answers by status class, for the live view ([`crate::Progress::status_classes`]).
    pub status_classes: [u64; crate::STATUS_CLASSES],
}

/// The wake-up error histogram's bounds: 1 ns to 60 s, 3 significant digits.
pub const WAKE_ERROR_MAX_NS: u64 = 60_000_000_000;

pub fn new_wake_error_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, WAKE_ERROR_MAX_NS, 3).expect("constant bounds are valid")
}

impl Recorder {
    pub fn new(corrected: bool, now: Instant, live: Arc<Progress>) -> Self {
        Self {
            measuring: false,
            t0: now,
            latency: new_latency_histogram(),
            uncorrected: corrected.then(new_latency_histogram),
            sent: 0,
            answered: 0,
            errors: ErrorCounts::default(),
            status: vec![0; STATUS_SLOTS],
            bytes: 0,
            connections_opened: 0,
            series: Vec::new(),
            second_latencies: Vec::new(),
            max_lag: Duration::ZERO,
            second_latency: new_latency_histogram(),
            current_second: 0,
            live,
            handshake: new_latency_histogram(),
            connect: new_latency_histogram(),
            tls_reason: None,
            goaways: 0,
            peak_write_queue: 0,
            wake_error: corrected.then(new_wake_error_histogram),
            shed: 0,
            status_classes: [0; crate::STATUS_CLASSES],
        }
    }

    /// The length of an HTTP/2 write queue, for its high-water mark.
    #[inline]
    pub fn write_queue(&mut self, len: usize) {
        self.peak_write_queue = self.peak_write_queue.max(len);
    }

    /// Starts the measured period; requests already in flight count as sent in it.
    pub fn start_measuring(&mut self, now: Instant, in_flight: u64) {
        self.measuring = true;
        self.t0 = now;
        self.sent = in_flight;
        self.current_second = 0;
        self.second_latency.reset();
    }

    #[inline]
    fn second(&mut self, now: Instant) -> &mut (u64, u64) {
        let s = now.saturating_duration_since(self.t0).as_secs() as usize;
        if s >= self.series.len() {
            self.series.resize(s + 1, (0, 0));
        }
        if s > self.current_second {
            self.close_second(s);
        }
        &mut self.series[s]
    }

    /// Ends the current second: keeps its latency buckets, publishes them for the progress line,
    /// and starts `next` with an empty histogram. Once per second, off the per-request path.
    #[cold]
    fn close_second(&mut self, next: usize) {
        let h = &mut self.second_latency;
        if !h.is_empty() {
            let buckets: Vec<(u64, u64)> = h
                .iter_recorded()
                .map(|v| (v.value_iterated_to(), v.count_at_value()))
                .collect();
            for (us, n) in &buckets {
                self.live.latency.add(*us, *n);
            }
            if self.second_latencies.len() <= self.current_second {
                self.second_latencies
                    .resize_with(self.current_second + 1, Vec::new);
            }
            self.second_latencies[self.current_second] = buckets;
            h.reset();
        }
        self.current_second = next;
    }

    /// Ends the last (partial) second; called once when the thread stops.
    pub fn finish(&mut self) {
        if self.measuring {
            let next = self.current_second + 1;
            self.close_second(next);
        }
    }

    #[inline]
    pub fn sent(&mut self, n: u64) {
        if self.measuring {
            self.sent += n;
        }
    }

    /// Requests taken back unprocessed (HTTP/2 GOAWAY): they will be sent again elsewhere.
    #[inline]
    pub fn unsent(&mut self, n: u64) {
        if self.measuring {
            self.sent -= n;
        }
    }

    /// A complete answer: `intended` is when the request should have gone out (its actual send
    /// time in closed loop), `sent` when it did.
    #[inline]
    pub fn answered(&mut self, status: u16, intended: Instant, sent: Instant, now: Instant) {
        if !self.measuring {
            return;
        }
        self.answered += 1;
        let failed = !SUCCESS_STATUSES.contains(&status);
        if failed {
            self.errors.status += 1;
        }
        let slot = (status as usize).min(self.status.len() - 1);
        self.status[slot] += 1;
        let class = match status {
            100..=599 => usize::from(status / 100) - 1,
            _ => crate::STATUS_CLASSES - 1,
        };
        self.status_classes[class] += 1;
        let latency = now.saturating_duration_since(intended);
        record(&mut self.latency, latency);
        if let Some(h) = self.uncorrected.as_mut() {
            record(h, now.saturating_duration_since(sent));
        }
        let second = self.second(now);
        second.0 += 1;
        second.1 += u64::from(failed);
        // After `second`, which may have just started a new one.
        record(&mut self.second_latency, latency);
    }

    #[inline]
    pub fn error(&mut self, class: ErrorClass, count: u64, now: Instant) {
        if !self.measuring || count == 0 {
            return;
        }
        let e = &mut self.errors;
        match class {
            ErrorClass::Connect => e.connect += count,
            ErrorClass::Read => e.read += count,
            ErrorClass::Write => e.write += count,
            ErrorClass::Timeout => e.timeout += count,
            ErrorClass::Parse => e.parse += count,
            ErrorClass::Protocol => e.protocol += count,
            ErrorClass::Tls => e.tls += count,
            ErrorClass::Reset => e.reset += count,
        }
        self.second(now).1 += count;
    }

    #[inline]
    pub fn bytes(&mut self, n: usize) {
        if self.measuring {
            self.bytes += n as u64;
        }
    }

    /// Counted from the start, warm-up included: it is a fact about the server, not a figure.
    pub fn opened(&mut self) {
        self.connections_opened += 1;
    }

    /// A TCP connect that completed in `d`.
    pub fn connected(&mut self, d: Duration) {
        if self.measuring {
            record(&mut self.connect, d);
        }
    }

    /// A TLS handshake that completed in `d`.
    pub fn handshake(&mut self, d: Duration) {
        if self.measuring {
            record(&mut self.handshake, d);
        }
    }

    /// A TLS failure: counted, and its reason kept if it is the first.
    pub fn tls_failed(&mut self, reason: String, now: Instant) {
        self.error(ErrorClass::Tls, 1, now);
        self.tls_reason.get_or_insert(reason);
    }

    pub fn goaway(&mut self) {
        if self.measuring {
            self.goaways += 1;
        }
    }

    /// A scheduled request sent `lag` after its intended time: its wake-up error.
    #[inline]
    pub fn lag(&mut self, lag: Duration) {
        if !self.measuring {
            return;
        }
        if lag > self.max_lag {
            self.max_lag = lag;
        }
        if let Some(h) = self.wake_error.as_mut() {
            let ns = (lag.as_nanos() as u64).clamp(1, WAKE_ERROR_MAX_NS);
            h.saturating_record(ns);
        }
    }

    /// A scheduled request shed by `--deadline`.
    #[inline]
    pub fn shed(&mut self) {
        if self.measuring {
            self.shed += 1;
        }
    }
}

#[inline]
fn record(h: &mut Histogram<u64>, d: Duration) {
    let us = (d.as_micros() as u64).clamp(1, HIGHEST_US);
    h.saturating_record(us);
}
