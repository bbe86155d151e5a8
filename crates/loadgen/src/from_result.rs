//! A [`LoadOutcome`] read back from a result document: how the harness treats a load measured
//! elsewhere (remote generators, merged) like one it ran itself.

use std::time::Duration;

use restbench_model::LoadResult;
use restbench_model::documents::histogram;

use crate::{LoadError, LoadOutcome};

impl LoadOutcome {
    /// The outcome a result document describes. Per-thread rates are not in the document: the
    /// outcome carries the pooled mean once per thread instead.
    pub fn from_result(r: &LoadResult) -> Result<Self, LoadError> {
        let decode = |text: &str| {
            histogram::decode(text).map_err(|e| LoadError::Io(std::io::Error::other(e)))
        };
        Ok(Self {
            duration: Duration::try_from_secs_f64(r.duration_s).unwrap_or_default(),
            sent: r.sent,
            answered: r.requests,
            in_flight: r.in_flight,
            errors: r.errors,
            status_counts: r
                .status_counts
                .iter()
                .filter_map(|(k, v)| k.parse::<u16>().ok().map(|k| (k, *v)))
                .collect(),
            bytes: r.bytes,
            connections_opened: r.connections_opened,
            latency: decode(&r.histogram)?,
            uncorrected: r.uncorrected_histogram.as_deref().map(decode).transpose()?,
            series: r
                .timeseries
                .iter()
                .map(|s| (s.requests, s.errors))
                .collect(),
            second_percentiles: r
                .timeseries
                .iter()
                .map(|s| s.p50_us.zip(s.p99_us))
                .collect(),
            thread_rates: vec![r.thread_rps.mean; r.settings.threads as usize],
            cpu_user: Duration::try_from_secs_f64(r.loadgen_cpu.user_s).unwrap_or_default(),
            cpu_system: Duration::try_from_secs_f64(r.loadgen_cpu.system_s).unwrap_or_default(),
            max_lag: r.max_schedule_lag_us.map(Duration::from_micros),
            gave_up: false,
            measure_started_unix_ms: r.started_at_unix_ms,
            // Only the handshakes' summary travels in a document, not their histogram.
            handshake: restbench_model::documents::histogram::new_latency_histogram(),
            connect: restbench_model::documents::histogram::new_latency_histogram(),
            tls_error: r.tls_error.clone(),
            goaways: r.goaways,
            peak_write_queue: 0,
            waiting_at_end: restbench_model::documents::histogram::new_latency_histogram(),
            answers_per_connection: Vec::new(),
            script: None,
            wake_error: None,
            shed: r.pacing.map_or(0, |p| p.shed),
        })
    }
}
