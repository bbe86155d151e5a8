//! Flags made library requests: `load`'s flags a [`LoadSpec`], and the flags of `run`, `bench`
//! and `study` a [`RunRequest`] or [`StudyRequest`] for the planner (`restbench_harness::plan`).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use restbench_harness::plan::study::StudyRequest;
use restbench_harness::plan::{
    ConformanceStep, DEFAULT_DB_POOL, DatabaseRequest, Length, Machine, OpenLoopRequest,
    RunRequest, Selection, ShapeOverrides,
};
use restbench_harness::runner::Mode;
use restbench_harness::subject::{self, prepare};
use restbench_loadgen::{HttpVersion, LoadSpec, MAX_BODY, StopAt, Target, TlsSettings};
use restbench_model::Workload;

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
/// folder (the build cache is keyed by it). Connects the remote hosts when asked for.
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
            threads: cells.threads,
            duration: cells.duration,
            warmup: cells.warmup,
            repeats: m.repeats,
            restarts: m.restarts,
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
    })
}

/// The request of `restbench study` over the subjects of `root`. Connects the remote hosts
/// when asked for.
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
        machine: machine(m),
        database: DatabaseRequest {
            url: m.database_url.clone(),
            pool: DEFAULT_DB_POOL,
        },
        open_loop: open_loop(&m.open_loop),
        remote,
        cache: prepare::cache_dir(root),
        conformance: ConformanceStep::unless_skipped(args.no_conformance),
        profile: m.profile,
    })
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

/// `-m`, else POST when there is a body (as curl and ab send it; [`run`] says so), else GET.
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
    spec.rate = args.rate;
    spec.pipeline = args.pipeline;
    spec.keepalive = !args.no_keepalive && !args.http10;
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

/// Reads a body file of at most [`MAX_BODY`] bytes; an endless one (`/dev/zero`, a pipe) is
/// refused after that many bytes instead of filling memory.
fn read_body_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    let cannot = || format!("cannot read the body file {}", path.display());
    let too_large = || {
        anyhow::Error::new(BadArgument(format!(
            "the body file {} is larger than 64 MiB (or endless); restbench sends at most 64 MiB",
            path.display()
        )))
    };
    let file = File::open(path).with_context(cannot)?;
    if file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() > MAX_BODY as u64)
    {
        return Err(too_large());
    }
    let size = file
        .metadata()
        .map_or(0, |m| if m.is_file() { m.len() } else { 0 });
    let mut body = Vec::with_capacity(size as usize + 1);
    file.take(MAX_BODY as u64 + 1)
        .read_to_end(&mut body)
        .with_context(cannot)?;
    if body.len() > MAX_BODY {
        return Err(too_large());
    }
    Ok(body)
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
