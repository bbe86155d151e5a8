//! Starts the threads, hands each its connections, and merges what they measured.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::{Duration, Instant};

use crate::h2::H2Request;
use crate::live::LiveLatency;
use crate::outcome::LoadOutcome;
use crate::transport::tls;
use crate::transport::{Endpoint, Socket};
use crate::worker::Rotation;
use crate::worker::{Ramp, Schedule, ScriptConfig, ThreadReport, TlsClient, Worker, WorkerConfig};
use crate::{HttpVersion, LoadError, LoadSpec, StopAt, request};

/// In count mode a thread gives up after this many `--timeout`s without any answer: one
/// timeout is a slow request, several in a row with nothing answered is a server that is gone...
const STALL_TIMEOUTS: u32 = 5;
/// ...and never sooner than this: well above the reconnect backoff's 1 s ceiling, so that a short
/// `--timeout` does not give up while connections are still being retried.
const MIN_STALL_LIMIT: Duration = Duration::from_secs(10);

/// Live counters a caller may read while a run goes on (for a progress bar).
#[derive(Debug, Default)]
pub struct Progress {
    /// Answered requests in the measured period, updated about once per event-loop turn.
    pub answered: AtomicU64,
    /// Errors in the measured period (every class), updated as `answered` is.
    pub errors: AtomicU64,
    /// Latencies of the measured period, coarse, added by each thread when a second ends.
    pub latency: LiveLatency,
    /// Requests sent in the measured period, updated as `answered` is.
    pub sent: AtomicU64,
    /// Requests `--deadline` shed, updated as `answered` is.
    pub shed: AtomicU64,
    /// Answers by status class: 1xx, 2xx, 3xx, 4xx, 5xx, and any other code.
    pub status_classes: [AtomicU64; STATUS_CLASSES],
}

/// The status classes of [`Progress::status_classes`].
pub const STATUS_CLASSES: usize = 6;

/// How long the first connection may take: a server whose accept queue is still full of the
/// previous load's connections (10,000 of them, for `delay`) drops SYNs, and the kernel
/// retransmits one after 1 s and again after 3 s.
const FIRST_CONNECT_PATIENCE: Duration = Duration::from_secs(5);

/// The first connection, which tells whether the server is there: tried until
/// `timeout` or [`FIRST_CONNECT_PATIENCE`], whichever is longer, since a refused or dropped
/// connect to a busy server is not yet "not running".
fn first_connection(endpoint: &Endpoint, timeout: Duration) -> Result<Socket, LoadError> {
    let give_up = Instant::now() + timeout.max(FIRST_CONNECT_PATIENCE);
    loop {
        let left = give_up.saturating_duration_since(Instant::now());
        match Socket::connect_blocking(endpoint, left.min(timeout).max(Duration::from_millis(1))) {
            Ok(socket) => return Ok(socket),
            Err(source) if Instant::now() + Duration::from_millis(50) >= give_up => {
                return Err(LoadError::Unreachable {
                    addr: endpoint.to_string(),
                    source,
                });
            }
            Err(source) if source.kind() == std::io::ErrorKind::ConnectionRefused => {
                // Nothing listens: a refusal is an answer, so it is given at once.
                return Err(LoadError::Unreachable {
                    addr: endpoint.to_string(),
                    source,
                });
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
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
    let endpoint = match &spec.unix_socket {
        Some(path) => Endpoint::Unix(path.clone()),
        None => Endpoint::Tcp(spec.target.resolve()?),
    };
    let tls = tls_client(spec)?;
    ensure_open_files(spec.connections, spec.effective_threads())?;
    let first = first_connection(&endpoint, spec.timeout)?;

    let h2 = if spec.http_version == HttpVersion::Http2 {
        let req = H2Request::encode(spec).map_err(|e| LoadError::InvalidSpec(e.0))?;
        Some(Arc::new(req))
    } else {
        None
    };
    let one = request::encode(spec);
    let pipeline = spec.in_flight_per_connection() as usize;
    // A path mix's requests lie back to back in one buffer; each connection writes one range.
    let (requests, rotation): (Arc<[u8]>, _) = match &spec.path_mix {
        Some(mix) => {
            let (bytes, ranges) = request::encode_mix(spec, &mix.paths);
            let rotation = Rotation {
                ranges,
                order: mix.order.clone(),
            };
            (bytes.into(), Some(Arc::new(rotation)))
        }
        None => (one.repeat(pipeline).into(), None),
    };
    let threads = spec.effective_threads() as usize;
    let connections = spec.connections as usize;
    let start = Instant::now();
    let wall_start = std::time::SystemTime::now();
    let measure_from = start + spec.warmup;
    let (deadline, total) = match spec.stop {
        StopAt::Duration(d) => (Some(measure_from + d), None),
        StopAt::Requests(n) => (None, Some(n)),
    };
    let schedule = schedule(spec, measure_from)?;
    let mut preconnected = Some(first);
    let script = spec
        .script
        .as_ref()
        .map(|plan| (plan.clone(), Arc::new(spec.clone())));
    let mut configs = Vec::with_capacity(threads);
    let mut first_connection = 0;
    for t in 0..threads {
        let share = connections / threads + usize::from(t < connections % threads);
        let permits =
            total.map(|n| n / threads as u64 + u64::from((t as u64) < n % threads as u64));
        configs.push(WorkerConfig {
            endpoint: endpoint.clone(),
            tls: tls.clone(),
            requests: requests.clone(),
            rotation: rotation.clone(),
            h2: h2.clone(),
            request_len: one.len(),
            pipeline,
            keepalive: spec.keepalive && spec.http_version != HttpVersion::Http10,
            requests_per_connection: spec.requests_per_connection.map(u64::from),
            head_requests: spec.method.eq_ignore_ascii_case("HEAD"),
            timeout: spec.timeout,
            connections: share,
            first_connection,
            schedule,
            permits,
            start,
            measure_from,
            deadline,
            stall_limit: spec
                .timeout
                .saturating_mul(STALL_TIMEOUTS)
                .max(MIN_STALL_LIMIT),
            progress: progress.clone(),
            preconnected: preconnected.take(),
            script: script.as_ref().map(|(plan, spec)| ScriptConfig {
                plan: plan.clone(),
                index: t,
                spec: spec.clone(),
            }),
        });
        first_connection += share;
    }

    let reports = run_threads(configs, stop)?;
    let mut outcome = LoadOutcome::merge(reports, measure_from)?;
    // Merges of several generators' results align their seconds by this wall-clock start.
    outcome.measure_started_unix_ms = (wall_start + spec.warmup)
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_millis() as u64);
    Ok(outcome)
}

/// Over TLS: the client configuration with the ALPN protocol of the spec's HTTP version, and the
/// name the server's certificate must carry.
fn tls_client(spec: &LoadSpec) -> Result<Option<TlsClient>, LoadError> {
    if !spec.target.tls {
        return Ok(None);
    }
    let alpn: &[&[u8]] = if spec.http_version == HttpVersion::Http2 {
        &[b"h2"]
    } else {
        &[b"http/1.1"]
    };
    Ok(Some(TlsClient {
        config: tls::client_config(&spec.tls, alpn)?,
        server_name: tls::server_name(&spec.target.host)?,
    }))
}

/// With a rate: the interval between two requests of one connection, and the gap between the
/// schedules of neighbouring connections.
fn schedule(spec: &LoadSpec, measure_from: Instant) -> Result<Option<Schedule>, LoadError> {
    let Some(rate) = spec.rate else {
        return Ok(None);
    };
    let gap = Duration::try_from_secs_f64(1.0 / rate)
        .ok()
        .filter(|g| !g.is_zero());
    let interval = gap.and_then(|g| g.checked_mul(spec.connections));
    let ramp = match (spec.rate_end, spec.stop) {
        (Some(to), StopAt::Duration(len)) => Some(Ramp {
            from: rate,
            to,
            start: measure_from,
            len,
            connections: spec.connections,
        }),
        _ => None,
    };
    match (interval, gap) {
        (Some(interval), Some(gap)) => Ok(Some(Schedule {
            interval,
            gap,
            ramp,
            deadline: spec.deadline,
        })),
        _ => Err(LoadError::InvalidSpec(format!(
            "--rate {rate} gives no representable interval between requests"
        ))),
    }
}

/// One named thread per worker; what each measured, once all have ended.
fn run_threads(
    configs: Vec<WorkerConfig>,
    stop: &AtomicBool,
) -> Result<Vec<ThreadReport>, LoadError> {
    std::thread::scope(|scope| {
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
            .collect()
    })
}

/// File descriptors a run needs beside its connections: standard streams, the first check's
/// socket, logs, and slack for the caller.
const SPARE_FILES: u64 = 64;
/// File descriptors each thread holds beside its connections: its epoll and its rate timer.
const FILES_PER_THREAD: u64 = 2;

/// Makes room for the run's sockets: lifts the soft open-file limit to the hard one when needed,
/// and refuses, before any load, a run that still would not fit (it would otherwise fail
/// connection by connection with `EMFILE`). Each thread also holds an epoll and a timer fd.
pub fn ensure_open_files(connections: u32, threads: u32) -> Result<(), LoadError> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let wanted = u64::from(connections) + FILES_PER_THREAD * u64::from(threads) + SPARE_FILES;
    let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else {
        return Ok(()); // unknown limit: let the connections tell
    };
    if soft >= wanted {
        return Ok(());
    }
    let limit = match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
        Ok(()) => hard,
        Err(_) => soft,
    };
    if limit >= wanted {
        return Ok(());
    }
    let fits = limit.saturating_sub(FILES_PER_THREAD * u64::from(threads) + SPARE_FILES);
    Err(LoadError::InvalidSpec(format!(
        "--connections {connections} needs about {wanted} open files but this process may open \
         {limit} (its hard limit); use at most -c {fits} or raise the limit (ulimit -Hn)"
    )))
}
