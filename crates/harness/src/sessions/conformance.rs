//! `restbench conformance` as one function (prepare → start single-thread → cases → stop, per
//! subject), and the per-build cache the run's conformance step shares: a subject's result is
//! kept in `{cache}/conformance/<id>.json` with the build's hash and the suite's version, so an
//! unchanged build skips the cases.

use std::path::{Path, PathBuf};
use std::time::Duration;

use restbench_model::{ConformanceReport, Scenario, SubjectConformance, Workload};

use crate::events::{At, Events, Observer, RunEvent, Step};
use crate::serve::{StartOptions, start_subject};
use restbench_db as db;
use restbench_host::cgroup::Backend;
use restbench_host::error::chain;
use restbench_host::placement::{Placement, available_cpus};
use restbench_subject::Subject;
use restbench_subject::prepare;
use restbench_verify::conformance::{SUITE_VERSION, check};

/// What to check, and how.
pub struct ConformanceOptions<'a> {
    pub subjects: &'a [Subject],
    /// The workloads whose requests are split and pipelined (those a subject serves).
    pub workloads: &'a [Workload],
    /// The subjects folder's build cache (`prepare::cache_dir`).
    pub cache: &'a Path,
    /// A database for subjects that serve `users`, instead of a throwaway cluster.
    pub database_url: Option<&'a str>,
    pub db_pool_total: u32,
    /// Run the cases even when the cache holds a result for this build.
    pub fresh: bool,
}

/// Every subject of `options` in turn (skipped when no tool here can run it), told to
/// `observer` as it goes.
pub fn conformance_subjects(
    options: &ConformanceOptions,
    observer: &dyn Observer,
) -> ConformanceReport {
    let events = Events::new(vec![observer]);
    let observer = &events;
    let placement = Placement::split(&available_cpus());
    let backend = Backend::affinity_only("not requested");
    let provision = provide_database(options);
    let start = StartOptions {
        placement: &placement,
        backend: &backend,
        cache: options.cache,
        database_url: provision.url.as_deref(),
        db_pool_total: options.db_pool_total,
        address: None,
        remote: None,
    };
    let mut subjects = Vec::new();
    for s in options.subjects {
        let mine = served(s, options.workloads);
        if mine.is_empty() {
            continue;
        }
        if let Some(reason) = s.unavailable_reason() {
            observer.emit(RunEvent::SubjectSkipped {
                subject: &s.id,
                reason: &reason,
            });
            continue;
        }
        let result = subject_conformance(s, &mine, options, &start, observer);
        subjects.push(result);
    }
    ConformanceReport::new(subjects)
}

/// The workloads of `workloads` that `s` serves.
pub fn served(s: &Subject, workloads: &[Workload]) -> Vec<Workload> {
    workloads
        .iter()
        .copied()
        .filter(|w| s.supports(*w))
        .collect()
}

/// One subject: from the cache for this build, else built, started single-thread and checked.
fn subject_conformance(
    s: &Subject,
    workloads: &[Workload],
    options: &ConformanceOptions,
    start: &StartOptions,
    observer: &Events,
) -> SubjectConformance {
    let at = At::subject(&s.id);
    observer.emit(RunEvent::Step {
        at,
        step: Step::Building,
    });
    if let Err(e) = prepare::prepare(s, options.cache) {
        return told(observer, errored(s, String::new(), chain(&e)), false);
    }
    let build = match build_key(s, workloads) {
        Ok(k) => k,
        Err(e) => return told(observer, errored(s, String::new(), chain(&e)), false),
    };
    if !options.fresh
        && let Some(hit) = cached(options.cache, s, &build)
    {
        return told(observer, hit, true);
    }
    let at = At::scenario(&s.id, Scenario::SingleThread);
    observer.emit(RunEvent::Step {
        at,
        step: Step::Starting,
    });
    let mut running = match start_subject(s, Scenario::SingleThread, start, None) {
        Ok(r) => r,
        Err(e) => return told(observer, errored(s, build, chain(&e)), false),
    };
    observer.emit(RunEvent::Step {
        at,
        step: Step::Conformance,
    });
    let result = SubjectConformance {
        subject: s.id.clone(),
        build,
        cases: check(running.addr, workloads),
        error: None,
    };
    running.child.stop(Duration::from_secs(5));
    store(options.cache, &result);
    told(observer, result, false)
}

fn told(observer: &Events, c: SubjectConformance, cached: bool) -> SubjectConformance {
    observer.emit(RunEvent::Conformed {
        conformance: &c,
        cached,
    });
    c
}

fn errored(s: &Subject, build: String, error: String) -> SubjectConformance {
    SubjectConformance {
        subject: s.id.clone(),
        build,
        cases: Vec::new(),
        error: Some(error),
    }
}

/// What a result is kept for: the build's hash, the suite's version and the workloads whose
/// requests were checked (a run of one workload checks fewer than `restbench conformance`).
pub fn build_key(s: &Subject, workloads: &[Workload]) -> Result<String, crate::HarnessError> {
    let names: Vec<&str> = workloads.iter().map(|w| w.name()).collect();
    Ok(format!(
        "{}-suite{SUITE_VERSION}-{}",
        prepare::build_hash(s)?,
        names.join(",")
    ))
}

fn cache_file(cache: &Path, s: &Subject) -> PathBuf {
    cache.join("conformance").join(format!("{}.json", s.id))
}

/// The cached result of this build of `s`, if the cache holds one (results that did not run,
/// such as a failed start, are never kept).
pub fn cached(cache: &Path, s: &Subject, build: &str) -> Option<SubjectConformance> {
    // Ours, but in a cache anyone may have touched: a size limit as on every file read.
    let bytes = restbench_model::documents::io::read_limited(
        &cache_file(cache, s),
        restbench_model::documents::io::DOCUMENT_LIMIT,
        "the conformance cache",
    )
    .ok()?;
    let c: SubjectConformance = serde_json::from_slice(&bytes).ok()?;
    (c.build == build && c.subject == s.id && c.error.is_none()).then_some(c)
}

/// Keeps `c` for its build; a cache that cannot be written only costs the next run the cases.
pub fn store(cache: &Path, c: &SubjectConformance) {
    if c.error.is_some() {
        return;
    }
    let file = cache
        .join("conformance")
        .join(format!("{}.json", c.subject));
    if let Ok(json) = serde_json::to_vec_pretty(c) {
        let _ = std::fs::create_dir_all(cache.join("conformance"));
        let _ = restbench_host::process::write_afresh(&file, &json);
    }
}

/// A database when a subject available here serves `users` (the given one, else a throwaway
/// cluster); subjects that need one and get none start without it and fail their users case.
fn provide_database(options: &ConformanceOptions) -> db::Provision {
    let needs_db = options.subjects.iter().any(|s| {
        s.unavailable_reason().is_none()
            && options
                .workloads
                .iter()
                .any(|w| w.needs_database() && s.supports(*w))
    });
    db::provide(
        needs_db,
        options.database_url,
        &options.cache.join("logs"),
        None,
    )
    .unwrap_or_default()
}
