//! `restbench verify` as one function: for each subject, prepare → start → check every workload
//! it serves → stop, with a database provided once for the users workload.

use std::path::Path;
use std::time::Duration;

use restbench_model::{Finding, Protocol, Scenario, VerifyOutcome, VerifyReport, Workload};

use crate::HarnessError;
use crate::events::{Events, Observer, RunEvent};
use crate::serve::{StartOptions, start_subject};
use restbench_db as db;
use restbench_host::cgroup::Backend;
use restbench_host::error::chain;
use restbench_host::placement::{Placement, available_cpus};
use restbench_subject::Subject;
use restbench_subject::prepare;
use restbench_verify as verify;

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
    let events = Events::new(vec![observer]);
    let observer = &events;
    let placement = Placement::split(&available_cpus());
    let backend = Backend::affinity_only("not requested");
    let provision = provide_database(options);
    let session = Session {
        options,
        start: StartOptions {
            placement: &placement,
            backend: &backend,
            cache: options.cache,
            database_url: provision.url.as_deref(),
            db_pool_total: options.db_pool_total,
            address: None,
            remote: None,
        },
        database: provision.database.as_ref(),
        db_problem: provision.problem.as_ref().map(|e| chain(e)),
        observer,
    };
    let mut results = Vec::new();
    for s in options.subjects {
        session.verify_subject(s, &mut results);
    }
    VerifyReport {
        schema_version: <VerifyReport as restbench_model::Document>::SCHEMA_VERSION,
        results,
    }
}

/// A database when a subject available here serves a workload that needs one (the given one,
/// else a throwaway cluster); what went wrong otherwise.
fn provide_database(options: &VerifyOptions) -> db::Provision {
    let needs_db = options.subjects.iter().any(|s| {
        s.unavailable_reason().is_none()
            && options
                .workloads
                .iter()
                .any(|w| w.needs_database() && s.supports(*w))
    });
    match db::provide(
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
    }
}

/// What every subject of a verify session shares.
struct Session<'a> {
    options: &'a VerifyOptions<'a>,
    start: StartOptions<'a>,
    database: Option<&'a db::Database>,
    /// Why there is no database, when one was needed.
    db_problem: Option<String>,
    observer: &'a Events<'a>,
}

impl Session<'_> {
    /// One subject: prepared, started, each workload it serves checked, stopped.
    fn verify_subject(&self, s: &Subject, results: &mut Vec<VerifyOutcome>) {
        let mine: Vec<Workload> = self
            .options
            .workloads
            .iter()
            .copied()
            .filter(|w| s.supports(*w))
            .collect();
        if mine.is_empty() {
            return;
        }
        if let Some(reason) = s.unavailable_reason() {
            self.observer.emit(RunEvent::SubjectSkipped {
                subject: &s.id,
                reason: &reason,
            });
            return;
        }
        let started = prepare::prepare(s, self.options.cache)
            .map_err(HarnessError::from)
            .and_then(|_| start_subject(s, self.options.scenario, &self.start, None));
        let mut running = match started {
            Ok(r) => r,
            Err(e) => {
                let reason = chain(&e);
                self.observer.emit(RunEvent::SubjectFailed {
                    subject: &s.id,
                    reason: &reason,
                });
                results.extend(mine.iter().map(|&w| VerifyOutcome {
                    subject: s.id.clone(),
                    workload: w,
                    passed: false,
                    findings: vec![Finding::fail("start", reason.clone())],
                }));
                return;
            }
        };
        let common = verify::common(running.addr);
        // The TechEmpower types' Date checks wait their gap once for the subject, after all
        // of its workloads' own checks (none falls into another's count of queries).
        let mut checked = Vec::new();
        for w in mine {
            let mut dates = verify::DateChecks::default();
            let outcome = self.check(s, w, &common, running.addr, &mut dates);
            checked.push((outcome, dates));
        }
        for (mut outcome, dates) in checked {
            if !dates.is_empty() {
                outcome.findings.extend(dates.finish());
                outcome.passed = verify::passed(&outcome.findings);
            }
            self.observer.emit(RunEvent::Verified(&outcome));
            results.push(outcome);
        }
        running.child.stop(Duration::from_secs(5));
    }

    /// One workload of a started subject: the `common` findings and the workload's own.
    fn check(
        &self,
        s: &Subject,
        w: Workload,
        common: &[Finding],
        addr: std::net::SocketAddr,
        dates: &mut verify::DateChecks,
    ) -> VerifyOutcome {
        let mut findings = common.to_vec();
        if w.needs_database() && self.database.is_none() {
            findings.push(Finding::fail(
                "database",
                self.db_problem
                    .clone()
                    .unwrap_or_else(|| "no database".into()),
            ));
        } else {
            findings.extend(verify::workload_deferring(
                addr,
                w,
                Protocol::H1,
                self.database,
                dates,
            ));
        }
        VerifyOutcome {
            subject: s.id.clone(),
            workload: w,
            passed: verify::passed(&findings),
            findings,
        }
    }
}
