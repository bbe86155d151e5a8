//! The run loop: for each subject and scenario, prepare → start → ready → verify → warm up →
//! measure N repeats → stop. Every finished cell is written to `results.json` at once, so an
//! interrupted run keeps what it finished.
//!
//! By job: [`plan`] (what a run is asked to do), [`start`] (a subject for one scenario),
//! [`limits`] (what a scenario allows), [`measure`] (warm-up and repeats), [`verdict`] (figures
//! and flags); this module is the loop over them.

pub mod calibrate;
pub mod measure;
pub mod open_loop;
pub mod plan;
pub mod verdict;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use restbench_loadgen::{HttpVersion, StopAt};
use restbench_model::time::utc_now;
use restbench_model::{
    Cell, CellStatus, FindingLevel, Protocol, RunProtocol, RunResults, SCHEMA_VERSION, Scenario,
    Workload, write_results,
};

pub use measure::{Measurement, ServerSample, warmup_settled};
pub use plan::{LoadShape, Mode, Observer, OpenLoop, RunEntry, RunPlan};
pub use verdict::is_client_bound;

use crate::db::Database;
use crate::error::chain;
use crate::host::environment;
use crate::serve::{StartOptions, start_subject};
use crate::subject::prepare::{self, Prepared};
use crate::{HarnessError, verify};

/// Runs the plan; returns the results (also written to `out_dir/results.json`).
pub fn run(
    plan: &RunPlan,
    stop: &AtomicBool,
    observer: &dyn Observer,
) -> Result<RunResults, HarnessError> {
    std::fs::create_dir_all(&plan.out_dir).map_err(|source| {
        HarnessError::io(format!("cannot create {}", plan.out_dir.display()), source)
    })?;
    let mut env = environment::describe(&plan.placement, &plan.backend);
    env.loadgen_ceiling_rps = plan.loadgen_ceiling_rps;
    env.loadgen_ceiling_start_rps = plan.loadgen_ceiling_rps;
    // The best calibration so far: a cell faster than it proves it wrong (see below).
    let mut ceiling = plan.loadgen_ceiling_rps;
    for s in plan.entries.iter().map(|e| &e.subject) {
        if s.unavailable_reason().is_none() {
            for (name, cmd) in &s.versions {
                let key = if name == "toolchain" {
                    s.language.clone()
                } else {
                    format!("{}/{name}", s.language)
                };
                env.toolchains
                    .entry(key)
                    .or_insert_with(|| environment::command_version(&s.dir, cmd));
            }
        }
    }
    let mut results = RunResults {
        schema_version: SCHEMA_VERSION,
        kind: plan.kind.clone(),
        started_at: utc_now(),
        finished_at: None,
        interrupted: false,
        environment: env,
        protocol: RunProtocol {
            connections: plan.shape.connections,
            threads: plan.shape.threads,
            duration_s: match plan.shape.stop {
                StopAt::Duration(d) => Some(d.as_secs_f64()),
                StopAt::Requests(_) => None,
            },
            requests: match plan.shape.stop {
                StopAt::Requests(n) => Some(n),
                StopAt::Duration(_) => None,
            },
            warmup_s: plan.shape.warmup.as_secs_f64(),
            warmup_requests: plan.shape.warmup_requests,
            repeats: plan.repeats,
            keepalive: plan.shape.keepalive,
            http_version: if plan.shape.http_version == HttpVersion::Http10 {
                "1.0".into()
            } else {
                "1.1".into()
            },
            timeout_s: plan.shape.timeout.as_secs_f64(),
            db_pool_total: plan.db_pool_total,
            note: plan.note.clone(),
            restarts: (plan.restarts > 1).then_some(plan.restarts),
        },
        cells: Vec::new(),
        study: plan.study.clone(),
        noisy_machine: None,
    };
    let total = plan.cells();
    let db = match &plan.database_url {
        Some(url) => match Database::connect(url).and_then(|db| db.seed().map(|_| db)) {
            Ok(db) => Some(db),
            Err(e) => {
                observer.note(&format!("users cells will fail: {}", chain(&e)));
                None
            }
        },
        None => None,
    };
    write_results(&plan.out_dir, &results)?;

    'subjects: for entry in &plan.entries {
        let subject = &entry.subject;
        let workloads: Vec<Workload> = plan
            .workloads
            .iter()
            .copied()
            .filter(|w| subject.supports(*w))
            .collect();
        let protocols = plan.protocols_of(subject);
        if workloads.is_empty() || protocols.is_empty() {
            continue;
        }
        let fail_all = |results: &mut RunResults,
                        status: CellStatus,
                        reason: &str,
                        scenarios: &[Scenario]|
         -> Result<(), HarnessError> {
            for scenario in scenarios {
                for w in &workloads {
                    for p in &protocols {
                        let mut cell = Cell::new(&subject.cell_subject(), *w, *scenario)
                            .with_status(status, reason);
                        cell.protocol = p.name().into();
                        record_database(plan, &mut cell);
                        results.cells.push(cell.clone());
                        observer.cell_done(&cell, results.cells.len(), total);
                    }
                }
            }
            Ok(write_results(&plan.out_dir, results)?)
        };
        // A subject served elsewhere needs its toolchain there: its build step says so.
        if let Some(reason) = subject
            .unavailable_reason()
            .filter(|_| plan.server_host.is_none())
        {
            fail_all(&mut results, CellStatus::Skipped, &reason, &entry.scenarios)?;
            continue;
        }
        observer.step(&subject.id, None, None, "building");
        let prepared = match &plan.server_host {
            Some(host) => host
                .prepare(subject)
                .map(|built| match built {
                    Some(seconds) => Prepared::Built { seconds },
                    None => Prepared::Cached,
                })
                .map_err(HarnessError::from),
            None => prepare::prepare(subject, &plan.cache),
        };
        // The copied folder there goes when the subject is done, however it ends.
        let _copied = plan
            .server_host
            .as_ref()
            .map(|h| RemovesSubject(h, &subject.id));
        match prepared {
            Ok(Prepared::Built { seconds }) => {
                observer.note(&format!("built {} in {seconds:.0}s", subject.id))
            }
            Ok(_) => {}
            Err(e) => {
                fail_all(
                    &mut results,
                    CellStatus::Failed,
                    &chain(&e),
                    &entry.scenarios,
                )?;
                continue;
            }
        }
        for &scenario in &entry.scenarios {
            if stop.load(Ordering::Relaxed) {
                break 'subjects;
            }
            if !subject.scenarios.contains_key(&scenario) {
                fail_all(
                    &mut results,
                    CellStatus::Skipped,
                    &format!("{} declares no {scenario} scenario", subject.id),
                    &[scenario],
                )?;
                continue;
            };
            observer.step(&subject.id, Some(scenario), None, "starting");
            let options = StartOptions {
                placement: &plan.placement,
                backend: &plan.backend,
                cache: &plan.cache,
                database_url: plan.database_url.as_deref(),
                db_pool_total: plan.db_pool_total,
                address: plan.server_address,
                remote: plan.server_host.as_ref(),
            };
            let started = start_subject(subject, scenario, &options, None);
            let mut server = match started {
                Ok(s) => s,
                Err(e) => {
                    fail_all(&mut results, CellStatus::Failed, &chain(&e), &[scenario])?;
                    continue;
                }
            };
            observer.step(&subject.id, Some(scenario), None, "verifying");
            let common: Vec<_> = protocols
                .iter()
                .map(|p| (*p, verify::common_over(server.addr, *p)))
                .collect();
            // One start serves every protocol: the subjects that declare h2c serve it on the
            // same port as HTTP/1.1 (prior knowledge is told apart by the connection preface).
            for (w, protocol) in workloads
                .iter()
                .flat_map(|w| protocols.iter().map(move |p| (w, *p)))
            {
                if stop.load(Ordering::Relaxed) {
                    break 'subjects;
                }
                observer.step(
                    &subject.id,
                    Some(scenario),
                    Some(*w),
                    &step_name("verifying", protocol),
                );
                let mut findings: Vec<_> = common
                    .iter()
                    .filter(|(p, _)| *p == protocol)
                    .flat_map(|(_, f)| f.clone())
                    .collect();
                findings.extend(verify::workload_over(
                    server.addr,
                    *w,
                    protocol,
                    db.as_ref(),
                ));
                let mut cell = Cell::new(&subject.cell_subject(), *w, scenario);
                cell.protocol = protocol.name().into();
                cell.settings = server.settings.clone();
                if !verify::passed(&findings) {
                    let first = findings
                        .iter()
                        .find(|f| f.level == FindingLevel::Fail)
                        .map(|f| f.message.clone())
                        .unwrap_or_default();
                    cell.status = CellStatus::Failed;
                    cell.reason = Some(format!("verification failed: {first}"));
                    cell.findings = findings;
                } else {
                    cell.findings = findings;
                    let mode = plan.open_loop.mode;
                    if mode.throughput() {
                        match measure::measure(
                            plan,
                            &mut server,
                            *w,
                            protocol,
                            subject,
                            scenario,
                            &options,
                            stop,
                            observer,
                        ) {
                            Ok(Some(m)) => {
                                let rates: Vec<f64> =
                                    m.repeats.iter().map(|(o, _)| o.rps()).collect();
                                let median = crate::stats::median(&rates);
                                if let (Some(c), Some(d)) = (ceiling, plan.calibration)
                                    && median > c
                                {
                                    observer.note(&format!(
                                        "{} measured {median:.0} req/s, above the generator's \
                                         ceiling of {c:.0}: calibrating again",
                                        subject.id
                                    ));
                                    if let Ok(again) = crate::runner::calibrate::loadgen_ceiling(
                                        &plan.placement,
                                        &plan.shape,
                                        d,
                                        stop,
                                    ) {
                                        ceiling = Some(c.max(again.rps));
                                        results.environment.loadgen_ceiling_rps = ceiling;
                                    }
                                }
                                verdict::fill_cell(
                                    &mut cell,
                                    m,
                                    &plan.placement,
                                    &server.limit,
                                    ceiling,
                                )
                            }
                            Ok(None) => break 'subjects, // interrupted: the cell in flight is dropped
                            Err(e) => {
                                cell.status = CellStatus::Failed;
                                cell.reason = Some(chain(&e));
                            }
                        }
                    }
                    if cell.status == CellStatus::Ok && plan.open_loop.any() {
                        match open_loop::measure_open_loop(
                            plan,
                            &mut server,
                            *w,
                            protocol,
                            subject,
                            scenario,
                            mode.throughput(),
                            stop,
                            observer,
                        ) {
                            Ok(Some(r)) => verdict::fill_open_loop(&mut cell, r, &server.limit),
                            Ok(None) => break 'subjects,
                            Err(e) => {
                                cell.status = CellStatus::Failed;
                                cell.reason = Some(format!("open-loop measure: {}", chain(&e)));
                            }
                        }
                    }
                }
                record_database(plan, &mut cell);
                results.cells.push(cell.clone());
                observer.cell_done(&cell, results.cells.len(), total);
                write_results(&plan.out_dir, &results)?;
            }
            server.child.stop(Duration::from_secs(5));
        }
    }
    results.interrupted = stop.load(Ordering::Relaxed);
    if let (Some(start), Some(d)) = (plan.loadgen_ceiling_rps, plan.calibration)
        && !results.interrupted
    {
        observer.note("calibrating the generator again, to measure the machine's drift");
        if let Ok(end) =
            crate::runner::calibrate::loadgen_ceiling(&plan.placement, &plan.shape, d, stop)
        {
            results.environment.loadgen_ceiling_end_rps = Some(end.rps);
            results.environment.loadgen_ceiling_rps = ceiling.map(|c| c.max(end.rps));
            results.noisy_machine = restbench_model::run::ceiling_drift(start, end.rps);
            if let Some(why) = &results.noisy_machine {
                observer.note(&format!("noisy machine: {why}"));
            }
        }
    }
    results.finished_at = Some(utc_now());
    write_results(&plan.out_dir, &results)?;
    Ok(results)
}

/// States in the cell where the run's database ran (every cell: PostgreSQL took CPU from
/// whichever side it shared, users workload or not), and the server's host when it ran on
/// another one (failed cells too).
fn record_database(plan: &RunPlan, cell: &mut Cell) {
    cell.placement.db_cpus = plan.db_cpus.iter().map(|&c| c as u32).collect();
    cell.placement.database = plan.database.clone();
    if let Some(host) = &plan.server_host {
        cell.placement.server_host = host.name();
    }
}

/// Removes a subject's copied folder on the server host when dropped.
struct RemovesSubject<'a>(
    &'a std::sync::Arc<crate::serve::remote_server::ServerHost>,
    &'a str,
);

impl Drop for RemovesSubject<'_> {
    fn drop(&mut self) {
        self.0.remove_subject(self.1);
    }
}

/// A step's name, with the protocol when it is not the default (`verifying h2c`).
fn step_name(step: &str, protocol: Protocol) -> String {
    if protocol == Protocol::H1 {
        step.to_string()
    } else {
        format!("{step} {protocol}")
    }
}

/// How many cells a plan has.
pub fn plan_cells(plan: &RunPlan) -> usize {
    plan.cells()
}
