//! The run loop: every subject prepared (built, conformance), then per scenario every server
//! started and each group of cells (workload × protocol) verified and measured together in
//! interleaved rounds, then the servers stopped — reported as [`RunEvent`]s. The run's
//! `results.json` ([`results::ResultsFile`]) is one consumer of those events, the caller's
//! [`Observer`] the other.
//!
//! By job: [`plan`] (what a run is asked to do), [`cell`] (one cell's verify and open-loop
//! measures), [`rounds`] (a group's rounds: order, re-warm, saturation, the stop rule),
//! [`measure`] (warm-up and slices), [`open_loop`] (capacity and equal-load steps), [`verdict`]
//! (figures, intervals and flags), [`profiling`] (a cell's `--profile` slice), [`calibrate`] (the generator's ceiling), [`costs`] (what
//! builds, starts and warm-ups took, for the next estimate), [`results`] (the document on
//! disk); this module is the loop and the one place that decides what comes next. Where
//! servers run is a [`ServerLocation`], chosen once from the plan.

pub mod calibrate;
pub mod cell;
pub mod costs;
pub mod measure;
pub mod open_loop;
pub mod plan;
pub mod profiling;
pub mod results;
pub mod rounds;
pub mod verdict;

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use restbench_model::{Cell, CellStatus, Flag, Protocol, Scenario, SubjectConformance, Workload};

pub use crate::events::{At, Event, Events, Observer, RunEvent, Step};
pub use cell::CellRun;
pub use measure::{Measurement, Slice, warmup_settled};
pub use plan::{LoadShape, Mode, OpenLoop, RunEntry, RunPlan};
pub use restbench_host::sample::ServerSample;
pub use verdict::is_client_bound;

use crate::HarnessError;
use crate::serve::ServerLocation;
use crate::serve::start::{StartOptions, start_subject};
use crate::sessions::conformance as conformance_cache;
use calibrate::Calibration;
use costs::Costs;
use restbench_db::Database;
use restbench_host::error::chain;
use restbench_subject::Subject;
use restbench_subject::prepare::Prepared;
use restbench_verify::conformance;
pub use results::ResultsFile;
use rounds::{Group, Member, Started};

/// The reason of the cells an interrupt kept from being measured: a build or a start that
/// fails once the stop flag is up failed because of the signal (the terminal sends it to the
/// build's commands too), not because of the subject.
const INTERRUPTED: &str = "interrupted before it was measured";

/// Runs the plan, telling `events`' observers everything that happens, from
/// [`RunEvent::RunStarted`] to [`RunEvent::RunFinished`]; the results document is one of those
/// observers ([`ResultsFile`], made by the caller). An observer's failure (a results file that
/// cannot be written) ends the run at the next cell with that error.
pub fn run(plan: &RunPlan, stop: &AtomicBool, events: &Events) -> Result<(), HarnessError> {
    events.emit(RunEvent::RunStarted {
        cells: plan.cells(),
    });
    let db = connect_database(plan, events);
    let location = plan.server_location();
    let options = location.start_options(plan.start_options());
    let min_rounds = plan.rounds.as_ref().map_or(0, |r| r.min_rounds);
    let mut run = Run {
        plan,
        stop,
        events,
        location: location.as_ref(),
        options: &options,
        db: db.as_ref(),
        calibration: Calibration::of(plan),
        done: 0,
        total: plan.cells(),
        nonconformant: Vec::new(),
        groups: 0,
        work: rounds::Work {
            planned: (plan.cells() as u32 * min_rounds) as f64,
            done: 0.0,
        },
        costs: Costs::load(&plan.cache),
    };
    let mut cleanups = Vec::new();
    if let ControlFlow::Continue(ready) = run.prepare_all(&mut cleanups)? {
        for scenario in scenarios_of(plan) {
            if stop.load(Ordering::Relaxed) || run.scenario(scenario, &ready)?.is_break() {
                break;
            }
        }
    }
    run.costs.store(&plan.cache);
    drop(cleanups);
    let calibration = run.calibration;
    let interrupted = stop.load(Ordering::Relaxed);
    let drift = (!interrupted)
        .then(|| calibration.drift(stop, events))
        .flatten();
    if let Some(e) = events.failure() {
        return Err(e);
    }
    events.emit(RunEvent::RunFinished {
        interrupted,
        drift: drift.as_ref(),
    });
    events.failure().map_or(Ok(()), Err)
}

/// The scenarios of the plan's entries, each once, in the order they first appear.
fn scenarios_of(plan: &RunPlan) -> Vec<Scenario> {
    let mut out: Vec<Scenario> = Vec::new();
    for s in plan.entries.iter().flat_map(|e| e.scenarios.iter()) {
        if !out.contains(s) {
            out.push(*s);
        }
    }
    out
}

/// The run's database, seeded; without one (none asked for, or unreachable) users cells fail.
fn connect_database(plan: &RunPlan, events: &Events) -> Option<Database> {
    let url = plan.database_url.as_ref()?;
    match Database::connect(url).and_then(|db| db.seed().map(|_| db)) {
        Ok(db) => Some(db),
        Err(e) => {
            events.note(&format!("users cells will fail: {}", chain(&e)));
            None
        }
    }
}

/// A run in progress: what every cell shares.
struct Run<'a> {
    plan: &'a RunPlan,
    stop: &'a AtomicBool,
    events: &'a Events<'a>,
    location: &'a dyn ServerLocation,
    options: &'a StartOptions<'a>,
    db: Option<&'a Database>,
    calibration: Calibration<'a>,
    done: usize,
    total: usize,
    /// Subjects that failed a fail-level conformance case: their cells are flagged.
    nonconformant: Vec<String>,
    /// Groups measured so far: each gets its own orders from the seed.
    groups: u32,
    /// Slices planned and done, for the ETA.
    work: rounds::Work,
    /// What builds, starts and warm-ups cost here, for the next run's estimate.
    costs: Costs,
}

type Flow = Result<ControlFlow<()>, HarnessError>;

impl<'a> Run<'a> {
    /// Every subject built where it is served (and its conformance checked) before any is
    /// measured, so the servers of a group can be up together; the entries ready to start.
    fn prepare_all(
        &mut self,
        cleanups: &mut Vec<CleansUp<'a>>,
    ) -> Result<ControlFlow<(), Vec<usize>>, HarnessError> {
        let mut ready = Vec::new();
        for (i, entry) in self.plan.entries.iter().enumerate() {
            if self.stop.load(Ordering::Relaxed) {
                return Ok(ControlFlow::Break(()));
            }
            let (subject, scenarios) = (&entry.subject, &entry.scenarios);
            if self.plan.cells_of(subject).is_empty() {
                continue;
            }
            if let Some(reason) = self.location.unavailable(subject) {
                self.settle(subject, scenarios, CellStatus::Skipped, &reason)?;
                continue;
            }
            self.step(At::subject(&subject.id), Step::Building);
            let prepared = self.location.prepare(subject, self.options);
            // What the subject left where it was served goes when the run is done.
            cleanups.push(CleansUp(self.location, subject));
            match prepared {
                Ok(Prepared::Built { seconds }) => {
                    self.costs.built(&subject.id, seconds);
                    self.events
                        .note(&format!("built {} in {seconds:.0}s", subject.id))
                }
                Ok(_) => {}
                Err(_) if self.stop.load(Ordering::Relaxed) => {
                    self.settle(subject, scenarios, CellStatus::Interrupted, INTERRUPTED)?;
                    return Ok(ControlFlow::Break(()));
                }
                Err(e) => {
                    self.settle(subject, scenarios, CellStatus::Failed, &chain(&e))?;
                    continue;
                }
            }
            if self.plan.conformance
                && let Some(c) = self.conformance(subject, scenarios)
                && !c.conformant()
            {
                self.nonconformant.push(subject.id.clone());
            }
            ready.push(i);
        }
        Ok(ControlFlow::Continue(ready))
    }

    /// One scenario: every ready subject's server started, then each group of cells (workload
    /// × protocol) measured in rounds against those servers, then every server stopped.
    fn scenario(&mut self, scenario: Scenario, ready: &[usize]) -> Flow {
        let plan = self.plan;
        let mut started: Vec<Started> = Vec::new();
        for &i in ready {
            let entry = &plan.entries[i];
            if !entry.scenarios.contains(&scenario) {
                continue;
            }
            if self
                .start(&entry.subject, scenario, &mut started)?
                .is_break()
            {
                stop_all(&mut started);
                return Ok(ControlFlow::Break(()));
            }
        }
        let flow = self.groups_of(scenario, &mut started);
        stop_all(&mut started);
        flow
    }

    /// Starts `subject` in `scenario` and checks what every cell of it shares; a subject that
    /// cannot start fails (or skips) its cells of the scenario.
    fn start<'p>(
        &mut self,
        subject: &'p Subject,
        scenario: Scenario,
        started: &mut Vec<Started<'p>>,
    ) -> Flow {
        if !subject.scenarios.contains_key(&scenario) {
            let reason = format!("{} declares no {scenario} scenario", subject.id);
            self.settle(subject, &[scenario], CellStatus::Skipped, &reason)?;
            return Ok(ControlFlow::Continue(()));
        }
        self.step(At::scenario(&subject.id, scenario), Step::Starting);
        let server = match start_subject(subject, scenario, self.options, None) {
            Ok(s) => s,
            Err(_) if self.stop.load(Ordering::Relaxed) => {
                return self
                    .settle(subject, &[scenario], CellStatus::Interrupted, INTERRUPTED)
                    .map(|_| ControlFlow::Break(()));
            }
            Err(e) => {
                self.settle(subject, &[scenario], CellStatus::Failed, &chain(&e))?;
                return Ok(ControlFlow::Continue(()));
            }
        };
        self.costs
            .started(&subject.id, server.ready_after.as_secs_f64());
        self.step(At::scenario(&subject.id, scenario), Step::Verifying(None));
        // One start serves every protocol: the subjects that declare h2c serve it on the
        // same port as HTTP/1.1 (prior knowledge is told apart by the connection preface).
        let common = self
            .plan
            .protocols_of(subject)
            .iter()
            .map(|p| (*p, restbench_verify::common_over(server.addr, *p)))
            .collect();
        started.push(Started {
            subject,
            server,
            common,
        });
        Ok(ControlFlow::Continue(()))
    }

    /// Each group of the scenario: its cells verified, measured together in rounds, then each
    /// one's open-loop measures; every cell recorded.
    fn groups_of(&mut self, scenario: Scenario, started: &mut [Started]) -> Flow {
        let plan = self.plan;
        for &workload in &plan.workloads {
            for &protocol in &plan.protocols {
                if self.stop.load(Ordering::Relaxed) {
                    return Ok(ControlFlow::Break(()));
                }
                let mut members = self.verified(scenario, workload, protocol, started)?;
                if members.is_empty() {
                    continue;
                }
                let group = Group {
                    plan,
                    scenario,
                    workload,
                    protocol,
                    index: self.groups,
                    options: self.options,
                    location: self.location,
                    stop: self.stop,
                    observer: self.events,
                };
                self.groups += 1;
                if let Some(policy) = &plan.rounds {
                    let ControlFlow::Continue(record) = group.measure(
                        policy,
                        started,
                        &mut members,
                        &mut self.calibration,
                        &mut self.work,
                    ) else {
                        return Ok(ControlFlow::Break(()));
                    };
                    self.events.emit(RunEvent::GroupDone(&record));
                }
                for mut m in members {
                    let s = &mut started[m.started];
                    let mut cell = group_cell(&group, s);
                    // After the rounds, under the same load: the profiler never touches the
                    // ranked figures.
                    if let Some(slice) = plan.profile.filter(|_| m.cell.status == CellStatus::Ok)
                        && !cell.stopped()
                    {
                        profiling::profile_into(&mut cell, &mut m.cell, slice);
                    }
                    if m.cell.status == CellStatus::Ok
                        && plan.open_loop.any()
                        && open_loop_measures(&mut cell, &mut m.cell).is_break()
                    {
                        return Ok(ControlFlow::Break(()));
                    }
                    self.costs.warmed(&s.subject.id, m.cell.warmup_s);
                    self.record(m.cell)?;
                }
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// The group's cells verified against their servers: the failed ones recorded, the others
    /// returned as members, labelled (a subject twice in a group is told apart by its
    /// settings).
    fn verified(
        &mut self,
        scenario: Scenario,
        workload: Workload,
        protocol: Protocol,
        started: &mut [Started],
    ) -> Result<Vec<Member>, HarnessError> {
        let mut members = Vec::new();
        let mut dates = Vec::new();
        for (k, s) in started.iter_mut().enumerate() {
            if !self
                .plan
                .cells_of(s.subject)
                .contains(&(workload, protocol))
            {
                continue;
            }
            let common: Vec<_> = s
                .common
                .iter()
                .filter(|(p, _)| *p == protocol)
                .flat_map(|(_, f)| f.clone())
                .collect();
            let mut pending = restbench_verify::DateChecks::default();
            let cell = CellRun {
                plan: self.plan,
                subject: s.subject,
                scenario,
                workload,
                protocol,
                server: &mut s.server,
                options: self.options,
                location: self.location,
                stop: self.stop,
                observer: self.events,
            }
            .verify(&common, self.db, &mut pending);
            if cell.status == CellStatus::Failed {
                self.unplan(1);
                self.record(cell)?;
                continue;
            }
            members.push(Member::new(k, s.subject.id.clone(), cell));
            dates.push(pending);
        }
        // The Date checks' second requests, after every cell's own checks (none falls into
        // another cell's count of queries), waiting one gap for the whole group.
        let mut kept = Vec::new();
        for (mut m, pending) in members.into_iter().zip(dates) {
            if !pending.is_empty() {
                cell::date_checked(&mut m.cell, pending.finish());
            }
            if m.cell.status == CellStatus::Failed {
                self.unplan(1);
                self.record(m.cell)?;
                continue;
            }
            kept.push(m);
        }
        let mut members = kept;
        label_twins(&mut members);
        Ok(members)
    }

    /// `cells` planned cells will not be measured: the ETA stops counting them.
    fn unplan(&mut self, cells: usize) {
        let min_rounds = self.plan.rounds.as_ref().map_or(0, |r| r.min_rounds);
        self.work.planned = (self.work.planned - (cells as u32 * min_rounds) as f64).max(0.0);
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
        if let Some((hit, checked_at)) =
            conformance_cache::cached(&self.plan.cache, subject, &build)
        {
            self.conformed(&hit, Some(&checked_at));
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
        self.conformed(&result, None);
        Some(result)
    }

    fn conformed(&self, conformance: &SubjectConformance, cached: Option<&str>) {
        self.events.emit(RunEvent::Conformed {
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
    ) -> Result<(), HarnessError> {
        for &scenario in scenarios {
            for (workload, protocol) in self.plan.cells_of(subject) {
                self.unplan(1);
                let mut cell = Cell::new(&subject.cell_subject(), workload, scenario)
                    .with_status(status, reason);
                cell.workload = workload.cell_label(self.plan.shape.pipeline);
                cell.protocol = protocol.name().into();
                self.record(cell)?;
            }
        }
        Ok(())
    }

    /// A finished cell, with where the run's database and server ran, to every consumer.
    fn record(&mut self, mut cell: Cell) -> Result<(), HarnessError> {
        record_database(self.plan, self.location, &mut cell);
        if self.nonconformant.contains(&cell.subject) {
            cell.raise(Flag::Nonconformant);
        }
        self.done += 1;
        self.events.emit(RunEvent::CellDone {
            cell: &cell,
            done: self.done,
            total: self.total,
        });
        self.events.failure().map_or(Ok(()), Err)
    }

    fn step(&self, at: At, step: Step) {
        self.events.emit(RunEvent::Step { at, step });
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

/// The cell run of a group's member, for its open-loop measures.
fn group_cell<'x>(group: &'x Group, s: &'x mut Started) -> CellRun<'x> {
    CellRun {
        plan: group.plan,
        subject: s.subject,
        scenario: group.scenario,
        workload: group.workload,
        protocol: group.protocol,
        server: &mut s.server,
        options: group.options,
        location: group.location,
        stop: group.stop,
        observer: group.observer,
    }
}

/// Stops every started server.
fn stop_all(started: &mut [Started]) {
    for s in started {
        s.server.child.stop(Duration::from_secs(5));
    }
}

/// Members that share a subject id (a study's variants) get their differing settings in
/// their label, so the rounds and ratios name each one.
fn label_twins(members: &mut [Member]) {
    let ids: Vec<String> = members.iter().map(|m| m.cell.subject.clone()).collect();
    for i in 0..members.len() {
        let twins: Vec<usize> = (0..members.len()).filter(|j| ids[*j] == ids[i]).collect();
        if twins.len() < 2 {
            continue;
        }
        let mine = &members[i].cell.settings;
        let differing: Vec<String> = mine
            .iter()
            .filter(|(k, v)| {
                twins
                    .iter()
                    .any(|j| members[*j].cell.settings.get(*k) != Some(*v))
            })
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let position = twins.iter().position(|j| *j == i).unwrap_or(0) + 1;
        members[i].label = if differing.is_empty() {
            format!("{}#{position}", ids[i])
        } else {
            format!("{} ({})", ids[i], differing.join(" "))
        };
    }
}

/// Cleans up where a subject was served when dropped.
struct CleansUp<'a>(&'a dyn ServerLocation, &'a Subject);

impl Drop for CleansUp<'_> {
    fn drop(&mut self) {
        self.0.cleanup(self.1);
    }
}

/// A cell's capacity search and equal-load steps, judged into the cell.
fn open_loop_measures(run: &mut CellRun, cell: &mut Cell) -> ControlFlow<()> {
    let warm = run.plan.open_loop.mode.throughput();
    match open_loop::measure_open_loop(run, warm) {
        Ok(Some(r)) => verdict::fill_open_loop(cell, r, &run.server.limit),
        Ok(None) => return ControlFlow::Break(()),
        Err(e) => {
            cell.status = CellStatus::Failed;
            cell.reason = Some(format!("open-loop measure: {}", chain(&e)));
        }
    }
    ControlFlow::Continue(())
}
