//! Starts the threads, hands each its connections, and merges what they measured.

use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::{Duration, Instant};

use crate::outcome::LoadOutcome;
use crate::worker::{Worker, WorkerConfig};
use crate::{HttpVersion, LoadError, LoadSpec, StopAt, request};

/// Live counters a caller may read while a run goes on (for a progress bar).
#[derive(Debug, Default)]
pub struct Progress {
    /// Answered requests in the measured period, updated about once per event-loop turn.
    pub answered: AtomicU64,
}

/// Runs one load and returns what it measured.
///
/// Fails before sending anything when the spec is invalid or the server cannot be reached; once
/// running, every failure is counted in the outcome instead. `stop` ends the run early (Ctrl-C):
/// what was measured so far is returned.
pub fn run(
    spec: &LoadSpec,
    stop: &AtomicBool,
    progress: Arc<Progress>,
) -> Result<LoadOutcome, LoadError> {
    spec.validate()?;
    let addr = spec.target.resolve()?;
    raise_open_file_limit(spec.connections);
    let first = TcpStream::connect_timeout(&addr, spec.timeout).map_err(|source| {
        LoadError::Unreachable {
            addr: addr.to_string(),
            source,
        }
    })?;

    let one = request::encode(spec);
    let pipeline = spec.pipeline as usize;
    let requests: Arc<[u8]> = one.repeat(pipeline).into();
    let threads = spec.effective_threads() as usize;
    let connections = spec.connections as usize;
    let start = Instant::now();
    let measure_from = start + spec.warmup;
    let (deadline, total) = match spec.stop {
        StopAt::Duration(d) => (Some(measure_from + d), None),
        StopAt::Requests(n) => (None, Some(n)),
    };
    let schedule = spec.rate.map(|rate| {
        let gap = Duration::from_secs_f64(1.0 / rate);
        (gap * spec.connections, gap)
    });
    let mut preconnected = Some(first);
    let mut configs = Vec::with_capacity(threads);
    let mut first_connection = 0;
    for t in 0..threads {
        let share = connections / threads + usize::from(t < connections % threads);
        let permits =
            total.map(|n| n / threads as u64 + u64::from((t as u64) < n % threads as u64));
        configs.push(WorkerConfig {
            addr,
            requests: requests.clone(),
            request_len: one.len(),
            pipeline,
            keepalive: spec.keepalive && spec.http_version == HttpVersion::Http11,
            head_requests: spec.method.eq_ignore_ascii_case("HEAD"),
            timeout: spec.timeout,
            connections: share,
            first_connection,
            schedule,
            permits,
            start,
            measure_from,
            deadline,
            stall_limit: (spec.timeout * 5).max(Duration::from_secs(10)),
            progress: progress.clone(),
            preconnected: preconnected.take(),
        });
        first_connection += share;
    }

    let reports = std::thread::scope(|scope| {
        let handles: Vec<_> = configs
            .into_iter()
            .enumerate()
            .map(|(i, cfg)| {
                std::thread::Builder::new()
                    .name(format!("load-{i}"))
                    .spawn_scoped(scope, move || Worker::new(cfg)?.run(stop))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h
                    .join()
                    .map_err(|_| LoadError::ThreadPanicked)?
                    .map_err(LoadError::Io),
                Err(e) => Err(LoadError::Io(e)),
            })
            .collect::<Result<Vec<_>, _>>()
    })?;
    LoadOutcome::merge(reports, measure_from)
}

/// Lifts the soft open-file limit to the hard one when many connections are asked for.
fn raise_open_file_limit(connections: u32) {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let wanted = u64::from(connections) + 64;
    if let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE)
        && soft < wanted
    {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard.min(wanted.max(soft)), hard);
    }
}
