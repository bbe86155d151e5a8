//! The result document of one load run (`restbench load --json`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Document;
use super::validate::{Invalid, duration, error_total, histogram_text, series, shard, start, sum};

use crate::{Capacity, LatencySummary};

/// What was asked of the load generator, echoed into its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadSettings {
    pub url: String,
    pub method: String,
    pub connections: u32,
    pub threads: u32,
    /// Planned measuring time, when the run was bounded by time.
    pub duration_s: Option<f64>,
    /// Total requests, when the run was bounded by count.
    pub requests: Option<u64>,
    /// Constant total rate (open loop), when set.
    pub rate: Option<f64>,
    pub pipeline: u32,
    pub keepalive: bool,
    pub http_version: String,
    pub timeout_s: f64,
    pub warmup_s: f64,
    pub body_bytes: u64,
    /// HTTP/2 (`http_version` "2"): concurrent streams per connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_streams: Option<u32>,
    /// The Unix domain socket the connections went to, instead of the URL's address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unix_socket: Option<String>,
    /// A ramp (`-R A:B`): the rate at the end of the measured period, `rate` being the start's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_end: Option<f64>,
    /// `--deadline`: a request later than this at its send time was shed, not sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_s: Option<f64>,
    /// `--requests-per-connection`: each connection was closed and replaced after this many
    /// answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests_per_connection: Option<u32>,
    /// `-s/--script`: the wrk script's file, as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
}

/// What a wrk script cost the generator.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ScriptCost {
    /// False: the script only set the request, evaluated once into the pre-encoded request (no
    /// cost per request). True: `request()` or `response()` ran per request.
    pub per_request: bool,
    /// Calls of `request()` and `response()`, warm-up included.
    pub calls: u64,
    /// Microseconds spent in Lua per call.
    pub us_per_call: f64,
    /// The share of the generator's CPU time spent in Lua, 0 to 1.
    pub cpu_share: f64,
}

/// How closely the open loop kept its schedule: each request's actual send against its
/// intended send time, and what `--deadline` shed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Pacing {
    /// Wake-up error per request sent in the measured period, in nanoseconds.
    pub wake_error_ns: WakeError,
    /// Requests shed by `--deadline`: already too late at their send time, never sent (not a
    /// part of `sent`).
    #[serde(default)]
    pub shed: u64,
}

/// Percentiles of the wake-up error, in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WakeError {
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
    /// Requests measured.
    pub count: u64,
}

/// Failures by class. `status` counts answered requests whose status was not 2xx/3xx; `protocol`
/// counts responses no request asked for (sent before the request, or one too many); the other
/// classes count requests that got no complete answer (and `connect`, connection attempts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorCounts {
    pub connect: u64,
    pub read: u64,
    pub write: u64,
    pub timeout: u64,
    pub status: u64,
    pub parse: u64,
    /// Responses that answered no request; not a part of `sent`, so outside [`Self::unanswered`].
    #[serde(default)]
    pub protocol: u64,
    /// Connections whose TLS handshake or records failed (like `connect`, attempts, not requests;
    /// requests lost on such a connection count as `read`).
    #[serde(default)]
    pub tls: u64,
    /// HTTP/2 streams the server reset (RST_STREAM): sent requests with no answer.
    #[serde(default)]
    pub reset: u64,
}

impl std::ops::AddAssign for ErrorCounts {
    /// Field by field: the errors of two repeats, or of two threads, together.
    fn add_assign(&mut self, other: Self) {
        let Self {
            connect,
            read,
            write,
            timeout,
            status,
            parse,
            protocol,
            tls,
            reset,
        } = other;
        self.connect += connect;
        self.read += read;
        self.write += write;
        self.timeout += timeout;
        self.status += status;
        self.parse += parse;
        self.protocol += protocol;
        self.tls += tls;
        self.reset += reset;
    }
}

impl ErrorCounts {
    /// Field by field, or `None` when a sum does not fit (counts read from documents).
    pub fn checked_add(self, other: Self) -> Option<Self> {
        Some(Self {
            connect: self.connect.checked_add(other.connect)?,
            read: self.read.checked_add(other.read)?,
            write: self.write.checked_add(other.write)?,
            timeout: self.timeout.checked_add(other.timeout)?,
            status: self.status.checked_add(other.status)?,
            parse: self.parse.checked_add(other.parse)?,
            protocol: self.protocol.checked_add(other.protocol)?,
            tls: self.tls.checked_add(other.tls)?,
            reset: self.reset.checked_add(other.reset)?,
        })
    }

    /// Every error, connection attempts included.
    pub fn total(&self) -> u64 {
        self.connect
            + self.read
            + self.write
            + self.timeout
            + self.status
            + self.parse
            + self.protocol
            + self.tls
            + self.reset
    }

    /// Requests that were sent but got no complete answer.
    pub fn unanswered(&self) -> u64 {
        self.read + self.write + self.timeout + self.parse + self.reset
    }
}

/// One second of the measured run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecondSample {
    pub second: u32,
    pub requests: u64,
    pub errors: u64,
    /// Median latency of the requests answered in this second, in microseconds (all threads'
    /// histograms of the second merged). Absent when nothing was answered in it, and in documents
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50_us: Option<u64>,
    /// 99th percentile latency of this second, in microseconds; absent as `p50_us` is. JIT
    /// warm-up and GC pauses show here, not in the run's overall percentiles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_us: Option<u64>,
}

/// The CPU the load generator itself used while measuring.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadgenCpu {
    pub user_s: f64,
    pub system_s: f64,
    /// CPU cores kept busy on average: (user + system) / duration.
    pub cores: f64,
    /// Generator CPU microseconds per answered request.
    pub us_per_request: f64,
}

/// The whole result of a load run.
///
/// Accounting: `sent = requests + errors.unanswered() + in_flight`; `errors.status` is a part of
/// `requests` (answered, but not 2xx/3xx).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadResult {
    pub schema_version: u32,
    pub restbench_version: String,
    pub settings: LoadSettings,
    pub sent: u64,
    /// Requests answered with a complete response, whatever the status.
    pub requests: u64,
    pub in_flight: u64,
    pub duration_s: f64,
    pub rps: f64,
    /// Response bytes read (headers and bodies).
    pub bytes: u64,
    pub bytes_per_s: f64,
    pub connections_opened: u64,
    /// Latency; with a rate, measured from each request's intended send time.
    pub latency_us: LatencySummary,
    /// With a rate only: latency from the actual send time (not corrected for coordinated omission).
    pub uncorrected_latency_us: Option<LatencySummary>,
    pub errors: ErrorCounts,
    /// Answers by status code ("200": n).
    pub status_counts: BTreeMap<String, u64>,
    /// Base64 of the V2+DEFLATE HdrHistogram of `latency_us`, for merging later.
    pub histogram: String,
    pub uncorrected_histogram: Option<String>,
    pub timeseries: Vec<SecondSample>,
    /// Per thread requests per second (mean, stdev, max), as wrk's "Req/Sec" line.
    pub thread_rps: ThreadRps,
    pub loadgen_cpu: LoadgenCpu,
    /// With a rate: how far the generator fell behind its schedule at worst, in microseconds.
    pub max_schedule_lag_us: Option<u64>,
    /// With `--slo`: the capacity search; the rest of the document is then its closed-loop probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Capacity>,
    /// True when the run was cut short (Ctrl-C) rather than reaching its duration or count: its
    /// figures are those of a shorter run than asked. False in documents written before.
    #[serde(default)]
    pub interrupted: bool,
    /// When interrupted: seconds from the start of the load (warm-up included) to the stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted_after_s: Option<f64>,
    /// Wall-clock start of the measured period (after any warm-up), in Unix milliseconds: second
    /// 0 of `timeseries`. Merges align the seconds of several generators by it. Absent in
    /// documents written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at_unix_ms: Option<u64>,
    /// Which part of a load split over several generators this is (`--shard I/N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Set on a merged result: each generator's part, in the order merged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shards: Vec<ShardSummary>,
    /// Over TLS: the handshake of each new connection, apart from request latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_handshake_us: Option<LatencySummary>,
    /// The TCP connect of each connection opened in the measured period, apart from request
    /// latency (a request's time starts when it is written, on an open connection).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_us: Option<LatencySummary>,
    /// A ramp (`-R A:B`) read as latency against the offered rate, with where it broke.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overload: Option<super::overload::Overload>,
    /// The first TLS failure's reason, in one line (the count is `errors.tls`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_error: Option<String>,
    /// HTTP/2: GOAWAY frames received (each ends its connection once its streams are done).
    #[serde(default)]
    pub goaways: u64,
    /// With a rate: the open loop's wake-up error and what `--deadline` shed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<Pacing>,
    /// With `-s/--script`: what the script cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<ScriptCost>,
}

/// The fastest rate a document may claim, as `load -R` takes it.
const MAX_RATE: f64 = 1e8;
/// The largest wake-up error a document may hold: the latency histograms' bound, 60 s.
const MAX_WAKE_ERROR_NS: u64 = 60_000_000_000;

/// A `load --json` document comes from any generator (`merge` takes shards from all of them):
/// its counts, seconds, shards and histograms are checked, a merged one too.
impl Document for LoadResult {
    const SCHEMA_VERSION: u32 = 1;

    fn validate(&self) -> Result<(), Invalid> {
        duration("duration_s", self.duration_s)?;
        if let Some(d) = self.settings.duration_s {
            duration("settings.duration_s", d)?;
        }
        start("started_at_unix_ms", self.started_at_unix_ms)?;
        if let Some(s) = self.shard {
            shard("shard", s)?;
        }
        for (i, s) in self.shards.iter().enumerate() {
            let field = format!("shards[{i}]");
            if let Some(sh) = s.shard {
                shard(&format!("{field}.shard"), sh)?;
            }
            duration(&format!("{field}.duration_s"), s.duration_s)?;
            start(&format!("{field}.started_at_unix_ms"), s.started_at_unix_ms)?;
        }
        error_total("errors", &self.errors)?;
        let accounted = self
            .requests
            .checked_add(self.errors.unanswered())
            .and_then(|n| n.checked_add(self.in_flight));
        if accounted.is_none() {
            return Err(Invalid::new(
                "requests",
                "with the unanswered and in-flight requests adds up to more than 2^64",
            ));
        }
        sum("status_counts", self.status_counts.values().copied())?;
        series("timeseries", &self.timeseries)?;
        histogram_text("histogram", &self.histogram)?;
        if let Some(text) = &self.uncorrected_histogram {
            histogram_text("uncorrected_histogram", text)?;
        }
        for (field, rate) in [
            ("settings.rate", self.settings.rate),
            ("settings.rate_end", self.settings.rate_end),
        ] {
            if let Some(r) = rate
                && !(r.is_finite() && r > 0.0 && r <= MAX_RATE)
            {
                return Err(Invalid::new(
                    field,
                    "is not a rate above 0 and at most 1e8/s",
                ));
            }
        }
        if let Some(d) = self.settings.deadline_s {
            duration("settings.deadline_s", d)?;
        }
        if let Some(s) = &self.script {
            if !(s.us_per_call.is_finite() && s.us_per_call >= 0.0) {
                return Err(Invalid::new(
                    "script.us_per_call",
                    "is not a time of 0 or more",
                ));
            }
            if !(s.cpu_share.is_finite() && (0.0..=1.0).contains(&s.cpu_share)) {
                return Err(Invalid::new(
                    "script.cpu_share",
                    "is not a share from 0 to 1",
                ));
            }
        }
        if let Some(p) = &self.pacing {
            let w = p.wake_error_ns;
            if !(w.p50 <= w.p90 && w.p90 <= w.p99 && w.p99 <= w.p999 && w.p999 <= w.max) {
                return Err(Invalid::new(
                    "pacing.wake_error_ns",
                    "percentiles do not rise from p50 to max",
                ));
            }
            if w.max > MAX_WAKE_ERROR_NS {
                return Err(Invalid::new("pacing.wake_error_ns.max", "is above 60 s"));
            }
        }
        Ok(())
    }
}

/// One part of a load split over `count` generators; `index` counts from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `I/N` with `0 <= I < N`, as `--shard` takes it.
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("{text:?} is not a shard such as 0/2 (index from 0, below the count)");
        let (i, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Self { index, count })
    }
}

/// What one generator contributed to a merged result, so that each host's share and its own
/// CPU stay visible after the merge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardSummary {
    /// Who ran it: a host (`user@host`) or the file it was read from.
    pub generator: String,
    pub shard: Option<Shard>,
    pub requests: u64,
    pub errors: u64,
    pub duration_s: f64,
    pub rps: f64,
    pub started_at_unix_ms: Option<u64>,
    pub loadgen_cpu: LoadgenCpu,
}

/// Per-thread request rates, as wrk's "Req/Sec" line: one sample per thread and whole second
/// when every thread measured at least two seconds, else one per thread over its measuring window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadRps {
    pub mean: f64,
    pub stdev: f64,
    pub max: f64,
    /// Share of the samples within one standard deviation of the mean, in percent (wrk's
    /// `+/- Stdev`); 0 in documents written before it was recorded.
    #[serde(default)]
    pub within_stdev_pct: f64,
}

impl LoadResult {
    /// The overload profile of a ramp (`rate` to `rate_end` over a duration) read from its
    /// seconds; `None` for any other load, or one with no second to read.
    pub fn overload_profile(
        &self,
        p99_limit: std::time::Duration,
    ) -> Option<super::overload::Overload> {
        let s = &self.settings;
        let seconds: Vec<super::overload::Second> = self
            .timeseries
            .iter()
            .map(|t| super::overload::Second {
                second: t.second,
                requests: t.requests,
                errors: t.errors,
                p99_us: t.p99_us,
            })
            .collect();
        super::overload::profile((s.rate?, s.rate_end?, s.duration_s?), &seconds, p99_limit)
    }

    /// True when the accounting identity holds.
    pub fn totals_add_up(&self) -> bool {
        self.sent == self.requests + self.errors.unanswered() + self.in_flight
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_without_latency_and_runs_without_the_interrupt_mark_still_read() {
        let old: SecondSample =
            serde_json::from_str(r#"{"second": 3, "requests": 10, "errors": 1}"#).unwrap();
        assert_eq!((old.p50_us, old.p99_us), (None, None));
        let new = SecondSample {
            p50_us: Some(120),
            p99_us: Some(900),
            ..old
        };
        let json = serde_json::to_value(new).unwrap();
        assert_eq!(
            (json["p50_us"].as_u64(), json["p99_us"].as_u64()),
            (Some(120), Some(900))
        );
        assert!(
            serde_json::to_value(old).unwrap().get("p99_us").is_none(),
            "a second without answers writes no latency"
        );
    }

    #[test]
    fn error_counts_add_field_by_field() {
        let mut a = ErrorCounts {
            connect: 1,
            read: 2,
            write: 3,
            timeout: 4,
            status: 5,
            parse: 6,
            protocol: 7,
            tls: 8,
            reset: 9,
        };
        a += a;
        assert_eq!(
            a,
            ErrorCounts {
                connect: 2,
                read: 4,
                write: 6,
                timeout: 8,
                status: 10,
                parse: 12,
                protocol: 14,
                tls: 16,
                reset: 18,
            }
        );
        assert_eq!(a.total(), 90);
        assert_eq!(
            a.unanswered(),
            2 * (2 + 3 + 4 + 6 + 9),
            "protocol and TLS errors answered nothing sent; resets were sent"
        );
    }
}
