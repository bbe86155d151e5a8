//! Flags made library requests: `load`'s flags a [`LoadSpec`], and the flags of `run`, `bench`
//! and `study` a [`RunRequest`] or [`StudyRequest`] for the planner (`restbench_harness::planner`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use restbench_harness::planner::study::StudyRequest;
use restbench_harness::planner::{
    ConformanceStep, DEFAULT_DB_POOL, DatabaseRequest, Length, Machine, OpenLoopRequest,
    RoundsRequest, RunRequest, Selection, ShapeOverrides,
};
use restbench_harness::runner::Mode;
use restbench_loadgen::{HttpVersion, LoadSpec, MAX_BODY, StopAt, Target, TlsSettings};
use restbench_model::Workload;
use restbench_subject::{self as subject, prepare};

use crate::cli::{BadArgument, CellArgs, LoadArgs, MeasureArgs, ModeArg, OpenLoopArgs, StudyArgs};

/// What a `run` or `bench` is called and how its results folder is named.
pub struct Measured {
    /// `kind` of the results document (`run`, `bench`).
    pub kind: &'static str,
    /// The results folder's name under `results/` when `--out` is not given.
    pub out_name: String,
    /// A sentence for the report about what was measured.
    pub note: Option<String>,
}

/// `--out`, else `results/<name>` in the current folder.
pub fn out_dir(cells: &CellArgs, what: &Measured) -> PathBuf {
    cells
        .out
        .clone()
        .unwrap_or_else(|| crate::common::results_folder().join(&what.out_name))
}

/// The request of a `run` or `bench` over `subjects` and `workloads`; `root` is the subjects
/// folder (the build cache is keyed by it). Remote hosts are named, not connected: the run
/// connects them once its plan is resolved.
pub fn run_request(
    subjects: Vec<subject::Subject>,
    workloads: Vec<Workload>,
    cells: &CellArgs,
    root: &Path,
    what: Measured,
    conformance: ConformanceStep,
) -> anyhow::Result<RunRequest> {
    let m = &cells.measure;
    let remote = crate::remote::for_run(&m.remote, m.loadgen_cpus.as_deref())?;
    Ok(RunRequest {
        kind: what.kind.into(),
        out_dir: out_dir(cells, &what),
        selection: Selection {
            subjects,
            workloads: unique(workloads),
            scenarios: unique(cells.scenarios.clone()),
            protocols: unique(m.protocols.clone()),
        },
        length: Length::from_flags(cells.quick, false),
        shape: ShapeOverrides {
            connections: Some(cells.connections),
            pipeline: cells.pipeline,
            threads: cells.threads,
            duration: cells.duration,
            warmup: cells.warmup,
            repeats: m.repeats,
            restarts: m.restarts,
            rounds: rounds_request(m),
        },
        machine: machine(m),
        database: DatabaseRequest {
            url: m.database_url.clone(),
            pool: cells.db_pool,
        },
        open_loop: open_loop(&m.open_loop),
        remote,
        calibrate: !cells.no_calibrate,
        cache: prepare::cache_dir(root),
        note: what.note,
        conformance,
        profile: m.profile,
        explain: m.explain,
    })
}

/// The request of `restbench study` over the subjects of `root` (remote hosts named, not
/// connected).
pub fn study_request(args: &StudyArgs, root: &Path) -> anyhow::Result<StudyRequest> {
    let m = &args.measure;
    let subjects = subject::discover(root)?;
    let remote = crate::remote::for_run(&m.remote, m.loadgen_cpus.as_deref())?;
    Ok(StudyRequest {
        length: Length::from_flags(args.quick, args.faithful),
        only: args.subjects.clone(),
        subjects,
        protocols: unique(m.protocols.clone()),
        duration: args.duration,
        repeats: m.repeats,
        restarts: m.restarts,
        rounds: rounds_request(m),
        machine: machine(m),
        database: DatabaseRequest {
            url: m.database_url.clone(),
            pool: DEFAULT_DB_POOL,
        },
        open_loop: open_loop(&m.open_loop),
        remote,
        cache: prepare::cache_dir(root),
        conformance: ConformanceStep::unless_skipped(args.no_conformance),
        // A study's report compares the profiles beside its reversals whenever they exist.
        profile: m.profile || m.explain,
    })
}

/// `--target-ci`, `--max-rounds`, `--seed`.
fn rounds_request(m: &MeasureArgs) -> RoundsRequest {
    RoundsRequest {
        target_ci: m.target_ci,
        max_rounds: m.max_rounds,
        seed: m.seed,
        duet: false,
        interleaved: m.interleaved,
    }
}

/// A list flag's values, each once, in the order first given: the command line's rule for every
/// list of names (`subject.toml` refuses a repeat instead: a file is written once and read often).
pub fn unique<T: PartialEq>(values: Vec<T>) -> Vec<T> {
    let mut out = Vec::with_capacity(values.len());
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

fn machine(m: &MeasureArgs) -> Machine {
    Machine {
        loadgen_cpus: m.loadgen_cpus.clone(),
        db_cpus: m.db_cpus.clone(),
        cgroups: !m.no_cgroups,
        memory_limit: m.memory_limit,
    }
}

fn open_loop(args: &OpenLoopArgs) -> OpenLoopRequest {
    OpenLoopRequest {
        mode: args.mode.map(|m| match m {
            ModeArg::Throughput => Mode::Throughput,
            ModeArg::Capacity => Mode::Capacity,
            ModeArg::Both => Mode::Both,
        }),
        slo: args.slo.clone(),
        at_rates: args.at_rate.clone(),
        step_duration: args.step_duration,
        resolution: args.resolution,
    }
}

/// `-m`, else POST when there is a body (as curl and ab send it; the load command says so), else GET.
fn method(args: &LoadArgs) -> String {
    match (&args.method, &args.body) {
        (Some(m), _) => m.to_ascii_uppercase(),
        (None, Some(_)) => "POST".into(),
        (None, None) => "GET".into(),
    }
}

/// Turns the flags into a spec, reading the body file; every problem is one line naming it.
/// Values refused as such are [`BadArgument`]s (exit 2); an unreadable body file is not.
pub fn spec_from_args(args: &LoadArgs) -> anyhow::Result<LoadSpec> {
    let bad = |e: &dyn std::fmt::Display| anyhow::Error::new(BadArgument(e.to_string()));
    let target = Target::parse(&args.url).map_err(|e| bad(&e))?;
    let mut spec = LoadSpec::get(target);
    spec.method = method(args);
    for h in &args.headers {
        let Some((name, value)) = h.split_once(':') else {
            return Err(bad(&format!(
                "invalid header {h:?}: expected 'Name: value'"
            )));
        };
        spec.headers
            .push((name.trim().to_string(), value.trim().to_string()));
    }
    if let Some(content_type) = &args.content_type {
        spec.headers
            .push(("Content-Type".to_string(), content_type.trim().to_string()));
    }
    if let Some(body) = &args.body {
        spec.body = match body.strip_prefix('@') {
            Some(path) => read_body_file(Path::new(path))?,
            None => body.as_bytes().to_vec(),
        };
    }
    spec.connections = args.connections;
    spec.threads = args.threads;
    spec.stop = match (args.requests, args.duration) {
        (Some(n), _) => StopAt::Requests(n),
        (None, Some(d)) => StopAt::Duration(d),
        (None, None) => StopAt::Duration(Duration::from_secs(10)),
    };
    spec.rate = args.rate.map(|r| r.from);
    spec.rate_end = args.rate.and_then(|r| r.to);
    spec.deadline = args.deadline;
    spec.pipeline = args.pipeline;
    spec.keepalive = !args.no_keepalive && !args.http10;
    spec.requests_per_connection = args.requests_per_connection;
    spec.http_version = if args.http10 {
        HttpVersion::Http10
    } else if args.http2 {
        HttpVersion::Http2
    } else {
        HttpVersion::Http11
    };
    spec.max_streams = args.max_streams;
    spec.unix_socket = args.unix_socket.clone();
    spec.tls = TlsSettings {
        insecure: args.insecure,
        ca_file: args.cacert.clone(),
    };
    spec.timeout = args.timeout;
    spec.warmup = args.warmup.unwrap_or_default();
    spec.validate().map_err(|e| bad(&e))?;
    Ok(spec)
}

/// Refuses a load at a server beyond this machine's loopback unless `--allow-remote`: a typo
/// must not flood someone else's server. A Unix socket is local; a name counts as loopback when
/// every address it resolves to is (one that does not resolve fails later, with its own error).
/// A shard is part of a load the user spread over machines on purpose, so it is not checked.
pub fn refuse_remote_target(args: &LoadArgs, target: &Target) -> anyhow::Result<()> {
    let sharded = args.scaleout.shard.is_some() || args.scaleout.hosts.loadgen_hosts.is_some();
    if args.allow_remote || sharded || args.unix_socket.is_some() {
        return Ok(());
    }
    use std::net::ToSocketAddrs;
    let Ok(addrs) = (target.host.as_str(), target.port).to_socket_addrs() else {
        return Ok(());
    };
    let addrs: Vec<_> = addrs.map(|a| a.ip()).collect();
    match addrs.iter().find(|ip| !ip.is_loopback()) {
        None => Ok(()),
        Some(ip) => {
            let host = if target.host == ip.to_string() {
                target.host.clone()
            } else {
                format!("{} ({ip})", target.host)
            };
            Err(anyhow::Error::new(BadArgument(format!(
                "{host} is not this machine's loopback: pass --allow-remote to load it"
            ))))
        }
    }
}

/// Reads a body file of at most [`MAX_BODY`] bytes; an endless one (`/dev/zero`, a pipe) is
/// refused after that many bytes instead of filling memory.
fn read_body_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    use restbench_model::documents::io::{LimitedReadError, read_limited};
    read_limited(path, MAX_BODY as u64, "the body file").map_err(|e| match e {
        // Too large is a bad argument (exit 2), as any flag restbench cannot take.
        LimitedReadError::TooLarge { .. } => anyhow::Error::new(BadArgument(e.to_string())),
        e => anyhow::Error::new(e),
    })
}

#[cfg(test)]
mod tests {
    use restbench_model::Protocol;

    use super::unique;

    #[test]
    fn list_flags_keep_each_value_once_in_the_order_given() {
        assert_eq!(
            unique(vec![Protocol::H1, Protocol::H2c, Protocol::H1]),
            vec![Protocol::H1, Protocol::H2c]
        );
    }
}
