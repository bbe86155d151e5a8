//! The run loop: for each subject and scenario, prepare → start → ready → verify → warm up →
//! measure N repeats → stop, reported as [`RunEvent`]s. The run's `results.json`
//! ([`results::ResultsFile`]) is one consumer of those events, the caller's [`Observer`] the
//! other.
//!
//! By job: [`plan`] (what a run is asked to do), [`cell`] (one cell's verify and measures),
//! [`measure`] (warm-up and repeats), [`open_loop`] (capacity and equal-load steps),
//! [`verdict`] (figures and flags), [`profiling`] (a cell's `--profile` slice), [`calibrate`] (the generator's ceiling), [`results`] (the
//! document on disk); this module is the loop over the cells and the one place that decides
//! which cell comes next. Where servers run is a [`ServerLocation`], chosen once from the plan.

pub mod calibrate;
pub mod cell;
pub mod measure;
pub mod open_loop;
pub mod plan;
pub mod profiling;
pub mod results;
pub mod verdict;

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use restbench_model::{Cell, CellStatus, Flag, RunResults, Scenario, SubjectConformance};

pub use crate::events::{At, Observer, RunEvent, Step};
pub use crate::host::sample::ServerSample;
pub use cell::CellRun;
pub use measure::{Measurement, warmup_settled};
pub use plan::{LoadShape, Mode, OpenLoop, RunEntry, RunPlan};
pub use verdict::is_client_bound;

use crate::db::Database;
use crate::error::chain;
use crate::serve::ServerLocation;
use crate::serve::start::{StartOptions, start_subject};
use crate::subject::Subject;
use crate::subject::prepare::Prepared;
use crate::verify::conformance::{self, session as conformance_cache};
use crate::{HarnessError, verify};
use calibrate::Calibration;
use results::ResultsFile;

/// The reason of the cells an interrupt kept from being measured: a build or a start that
/// fails once the stop flag is up failed because of the signal (the terminal sends it to the
/// build's commands too), not because of the subject.
const INTERRUPTED: &str = "interrupted before it was measured";

/// Runs the plan; returns the results (also written to `out_dir/results.json`).
pub fn run(
    plan: &RunPlan,
    stop: &AtomicBool,
    observer: &dyn Observer,
) -> Result<RunResults, HarnessError> {
    let reporters = Reporters {
        results: RefCell::new(ResultsFile::create(plan)?),
        failed: RefCell::new(None),
        observer,
    };
    let db = connect_database(plan, &reporters);
    let location = plan.server_location();
    let options = location.start_options(plan.start_options());
    let mut run = Run {
        plan,
        stop,
        events: &reporters,
        location: location.as_ref(),
        options: &options,
        db: db.as_ref(),
        calibration: Calibration::of(plan),
        done: 0,
        total: plan.cells(),
        nonconformant: Vec::new(),
    };
    for entry in &plan.entries {
        if run.subject(&entry.subject, &entry.scenarios)?.is_break() {
            break;
        }
    }
    let calibration = run.calibration;
    let interrupted = stop.load(Ordering::Relaxed);
    let drift = (!interrupted)
        .then(|| calibration.drift(stop, &reporters))
        .flatten();
    reporters.check()?;
    let mut file = reporters.results.into_inner();
    let results = file.results_mut();
    results.interrupted = interrupted;
    if let Some(drift) = drift {
        results.environment.loadgen_ceiling_end_rps = Some(drift.end_rps);
        results.environment.loadgen_ceiling_rps = drift.ceiling_rps;
        results.noisy_machine = drift.noisy_machine;
    }
    file.finish()
}

/// The run's database, seeded; without one (none asked for, or unreachable) users cells fail.
fn connect_database(plan: &RunPlan, events: &dyn Observer) -> Option<Database> {
    let url = plan.database_url.as_ref()?;
    match Database::connect(url).and_then(|db| db.seed().map(|_| db)) {
        Ok(db) => Some(db),
        Err(e) => {
            events.note(&format!("users cells will fail: {}", chain(&e)));
            None
        }
    }
}

/// The consumers of a run's events: its results file, then the caller's observer. A failed
/// write is kept and ends the run at the next cell.
struct Reporters<'a> {
    results: RefCell<ResultsFile>,
    failed: RefCell<Option<HarnessError>>,
    observer: &'a dyn Observer,
}

impl Reporters<'_> {
    fn check(&self) -> Result<(), HarnessError> {
        match self.failed.borrow_mut().take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Observer for Reporters<'_> {
    fn event(&self, event: &RunEvent) {
        if let Err(e) = self.results.borrow_mut().report(event) {
            self.failed.borrow_mut().get_or_insert(e);
        }
        self.observer.event(event);
    }
}

/// A run in progress: what every cell shares.
struct Run<'a> {
    plan: &'a RunPlan,
    stop: &'a AtomicBool,
    events: &'a Reporters<'a>,
    location: &'a dyn ServerLocation,
    options: &'a StartOptions<'a>,
    db: Option<&'a Database>,
    calibration: Calibration<'a>,
    done: usize,
    total: usize,
    /// Subjects that failed a fail-level conformance case: their cells are flagged.
    nonconformant: Vec<String>,
}

type Flow = Result<ControlFlow<()>, HarnessError>;

impl Run<'_> {
    /// One subject: built where it is served, then each of its scenarios in turn.
    fn subject(&mut self, subject: &Subject, scenarios: &[Scenario]) -> Flow {
        if self.plan.cells_of(subject).is_empty() {
            return Ok(ControlFlow::Continue(()));
        }
        if let Some(reason) = self.location.unavailable(subject) {
            return self.settle(subject, scenarios, CellStatus::Skipped, &reason);
        }
        self.step(At::subject(&subject.id), Step::Building);
        let prepared = self.location.prepare(subject, self.options);
        // What the subject left where it was served goes when it is done, however it ends.
        let _cleanup = CleansUp(self.location, subject);
        match prepared {
            Ok(Prepared::Built { seconds }) => self
                .events
                .note(&format!("built {} in {seconds:.0}s", subject.id)),
            Ok(_) => {}
            Err(_) if self.stop.load(Ordering::Relaxed) => {
                return self
                    .settle(subject, scenarios, CellStatus::Interrupted, INTERRUPTED)
                    .map(|_| ControlFlow::Break(()));
            }
            Err(e) => return self.settle(subject, scenarios, CellStatus::Failed, &chain(&e)),
        }
        if self.plan.conformance
            && let Some(c) = self.conformance(subject, scenarios)
            && !c.conformant()
        {
            self.nonconformant.push(subject.id.clone());
        }
        for &scenario in scenarios {
            if self.stop.load(Ordering::Relaxed) {
                return Ok(ControlFlow::Break(()));
            }
            if self.scenario(subject, scenario)?.is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// One scenario: the server started once, then every cell of it against that server.
    fn scenario(&mut self, subject: &Subject, scenario: Scenario) -> Flow {
        if !subject.scenarios.contains_key(&scenario) {
            let reason = format!("{} declares no {scenario} scenario", subject.id);
            return self.settle(subject, &[scenario], CellStatus::Skipped, &reason);
        }
        self.step(At::scenario(&subject.id, scenario), Step::Starting);
        let mut server = match start_subject(subject, scenario, self.options, None) {
            Ok(s) => s,
            Err(_) if self.stop.load(Ordering::Relaxed) => {
                return self
                    .settle(subject, &[scenario], CellStatus::Interrupted, INTERRUPTED)
                    .map(|_| ControlFlow::Break(()));
            }
            Err(e) => return self.settle(subject, &[scenario], CellStatus::Failed, &chain(&e)),
        };
        self.step(At::scenario(&subject.id, scenario), Step::Verifying(None));
        let protocols = self.plan.protocols_of(subject);
        let common: Vec<_> = protocols
            .iter()
            .map(|p| (*p, verify::common_over(server.addr, *p)))
            .collect();
        // One start serves every protocol: the subjects that declare h2c serve it on the
        // same port as HTTP/1.1 (prior knowledge is told apart by the connection preface).
        for (workload, protocol) in self.plan.cells_of(subject) {
            if self.stop.load(Ordering::Relaxed) {
                return Ok(ControlFlow::Break(()));
            }
            let common: Vec<_> = common
                .iter()
                .filter(|(p, _)| *p == protocol)
                .flat_map(|(_, f)| f.clone())
                .collect();
            let cell = CellRun {
                plan: self.plan,
                subject,
                scenario,
                workload,
                protocol,
                server: &mut server,
                options: self.options,
                location: self.location,
                stop: self.stop,
                observer: self.events,
            };
            let ControlFlow::Continue(cell) = cell.run(&common, self.db, &mut self.calibration)
            else {
                return Ok(ControlFlow::Break(()));
            };
            self.record(cell)?;
        }
        server.child.stop(Duration::from_secs(5));
        Ok(ControlFlow::Continue(()))
    }

    /// The subject's conformance: cached for this build, else its cases against it started in
    /// its first scenario (single-thread when it is run). `None` when the subject could not
    /// be started (its cells will say why).
    fn conformance(&self, subject: &Subject, scenarios: &[Scenario]) -> Option<SubjectConformance> {
        let at = At::subject(&subject.id);
        self.step(at, Step::Conformance);
        let workloads = conformance_cache::served(subject, &self.plan.workloads);
        let build = match conformance_cache::build_key(subject, &workloads) {
            Ok(b) => b,
            Err(e) => {
                self.events.note(&format!(
                    "{}: conformance not checked: {}",
                    subject.id,
                    chain(&e)
                ));
                return None;
            }
        };
        if let Some(hit) = conformance_cache::cached(&self.plan.cache, subject, &build) {
            self.conformed(&hit, true);
            return Some(hit);
        }
        let scenario = scenarios
            .iter()
            .copied()
            .find(|s| *s == Scenario::SingleThread)
            .or_else(|| scenarios.first().copied())
            .filter(|s| subject.scenarios.contains_key(s))?;
        let mut server = match start_subject(subject, scenario, self.options, None) {
            Ok(server) => server,
            Err(e) => {
                self.events.note(&format!(
                    "{}: conformance not checked: {}",
                    subject.id,
                    chain(&e)
                ));
                return None;
            }
        };
        let result = SubjectConformance {
            subject: subject.id.clone(),
            build,
            cases: conformance::check(server.addr, &workloads),
            error: None,
        };
        server.child.stop(Duration::from_secs(5));
        conformance_cache::store(&self.plan.cache, &result);
        self.conformed(&result, false);
        Some(result)
    }

    fn conformed(&self, conformance: &SubjectConformance, cached: bool) {
        self.events.event(&RunEvent::Conformed {
            conformance,
            cached,
        });
    }

    /// Every cell of `subject` in `scenarios`, ended with `status` before it started.
    fn settle(
        &mut self,
        subject: &Subject,
        scenarios: &[Scenario],
        status: CellStatus,
        reason: &str,
    ) -> Flow {
        for &scenario in scenarios {
            for (workload, protocol) in self.plan.cells_of(subject) {
                let mut cell = Cell::new(&subject.cell_subject(), workload, scenario)
                    .with_status(status, reason);
                cell.protocol = protocol.name().into();
                self.record(cell)?;
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// A finished cell, with where the run's database and server ran, to every consumer.
    fn record(&mut self, mut cell: Cell) -> Result<(), HarnessError> {
        record_database(self.plan, self.location, &mut cell);
        if self.nonconformant.contains(&cell.subject) {
            cell.raise(Flag::Nonconformant);
        }
        self.done += 1;
        self.events.event(&RunEvent::CellDone {
            cell: &cell,
            done: self.done,
            total: self.total,
        });
        self.events.check()
    }

    fn step(&self, at: At, step: Step) {
        self.events.event(&RunEvent::Step { at, step });
    }
}

/// States in the cell where the run's database ran (every cell: PostgreSQL took CPU from
/// whichever side it shared, users workload or not), and the server's host when it ran on
/// another one (failed cells too).
fn record_database(plan: &RunPlan, location: &dyn ServerLocation, cell: &mut Cell) {
    cell.placement.db_cpus = plan.db_cpus.iter().map(|&c| c as u32).collect();
    cell.placement.database = plan.database.clone();
    if let Some(host) = location.host_name() {
        cell.placement.server_host = host;
    }
}

/// Cleans up where a subject was served when dropped.
struct CleansUp<'a>(&'a dyn ServerLocation, &'a Subject);

impl Drop for CleansUp<'_> {
    fn drop(&mut self) {
        self.0.cleanup(self.1);
    }
}

/// How many cells a plan has.
pub fn plan_cells(plan: &RunPlan) -> usize {
    plan.cells()
}
