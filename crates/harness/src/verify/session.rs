//! `restbench verify` as one function: for each subject, prepare → start → check every workload
//! it serves → stop, with a database provided once for the users workload.

use std::path::Path;
use std::time::Duration;

use restbench_model::{Finding, SCHEMA_VERSION, Scenario, VerifyOutcome, VerifyReport, Workload};

use crate::db;
use crate::error::chain;
use crate::events::{Observer, RunEvent};
use crate::host::cgroup::Backend;
use crate::host::placement::{Placement, available_cpus};
use crate::serve::{StartOptions, start_subject};
use crate::subject::Subject;
use crate::subject::prepare;
use crate::verify;

/// What to verify, and how.
pub struct VerifyOptions<'a> {
    pub subjects: &'a [Subject],
    pub workloads: &'a [Workload],
    pub scenario: Scenario,
    /// The subjects folder's build cache (`prepare::cache_dir`).
    pub cache: &'a Path,
    /// A database to use instead of a throwaway cluster.
    pub database_url: Option<&'a str>,
    pub db_pool_total: u32,
}

/// Verifies every subject in `options` in turn, telling `observer` as it goes, and returns the
/// report (`restbench verify --json`).
pub fn verify_subjects(options: &VerifyOptions, observer: &dyn Observer) -> VerifyReport {
    let placement = Placement::split(&available_cpus());
    let backend = Backend::affinity_only("not requested");
    let needs_db = options.subjects.iter().any(|s| {
        s.unavailable_reason().is_none()
            && options
                .workloads
                .iter()
                .any(|w| w.needs_database() && s.supports(*w))
    });
    let provision = match db::provide(
        needs_db,
        options.database_url,
        &options.cache.join("logs"),
        None,
    ) {
        Ok(p) => p,
        Err(e) => db::Provision {
            problem: Some(e),
            ..db::Provision::default()
        },
    };
    let db_problem = provision.problem.as_ref().map(|e| chain(e));
    let start = StartOptions {
        placement: &placement,
        backend: &backend,
        cache: options.cache,
        database_url: provision.url.as_deref(),
        db_pool_total: options.db_pool_total,
        address: None,
        remote: None,
    };
    let mut results = Vec::new();
    for s in options.subjects {
        let mine: Vec<Workload> = options
            .workloads
            .iter()
            .copied()
            .filter(|w| s.supports(*w))
            .collect();
        if mine.is_empty() {
            continue;
        }
        if let Some(reason) = s.unavailable_reason() {
            observer.event(&RunEvent::SubjectSkipped {
                subject: &s.id,
                reason: &reason,
            });
            continue;
        }
        let started = prepare::prepare(s, options.cache)
            .and_then(|_| start_subject(s, options.scenario, &start, None));
        let mut running = match started {
            Ok(r) => r,
            Err(e) => {
                let reason = chain(&e);
                observer.event(&RunEvent::SubjectFailed {
                    subject: &s.id,
                    reason: &reason,
                });
                results.extend(mine.iter().map(|&w| VerifyOutcome {
                    subject: s.id.clone(),
                    workload: w,
                    passed: false,
                    findings: vec![Finding::fail("start", reason.clone())],
                }));
                continue;
            }
        };
        let common = verify::common(running.addr);
        for w in mine {
            let mut findings = common.clone();
            if w.needs_database() && provision.database.is_none() {
                findings.push(Finding::fail(
                    "database",
                    db_problem.clone().unwrap_or_else(|| "no database".into()),
                ));
            } else {
                findings.extend(verify::workload(
                    running.addr,
                    w,
                    provision.database.as_ref(),
                ));
            }
            let outcome = VerifyOutcome {
                subject: s.id.clone(),
                workload: w,
                passed: verify::passed(&findings),
                findings,
            };
            observer.event(&RunEvent::Verified(&outcome));
            results.push(outcome);
        }
        running.child.stop(Duration::from_secs(5));
    }
    VerifyReport {
        schema_version: SCHEMA_VERSION,
        results,
    }
}
