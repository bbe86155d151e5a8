//! A group's cells (same workload, scenario, protocol) measured in rounds: every server of the
//! group is up, each is warmed up once, and in each round the generator's ceiling is measured and
//! then every cell that still needs it is measured, in a fresh seeded order, after a short
//! re-warm slice. How depends on the group's [`Design`]: beside a reference (`run`, `study`: each
//! cell in a duet with the group's reference at the same instant, and alone for its own
//! figures), all at once (`ab`), or one after another (`--interleaved`, remote hosts, one-cpu).
//! A slice that no side is shown to bound, or where something else took either side's CPUs, is
//! contended and does not count; it is listed with its cause and measured again in a later
//! round. Rounds are added until every paired ratio is within the target or the cap is reached.

use std::ops::ControlFlow;
use std::time::Duration;

use restbench_model::statistics::rounds::{self, Series};
use restbench_model::{
    Cell, CellStatus, Finding, GroupRounds, PairRatio, Protocol, Round, RoundsPolicy, Saturation,
    Scenario, Workload,
};

use restbench_loadgen::{LoadOutcome, LoadSpec, StopAt};

use super::calibrate::Calibration;
use super::cell::CellRun;
use super::measure::{self, Measurement, Slice};
use super::plan::RunPlan;
use super::verdict::{self, is_client_bound};
use crate::HarnessError;
use crate::events::{Events, RunEvent, Step};
use crate::serve::ServerLocation;
use crate::serve::location::Loaded;
use crate::serve::start::{RunningSubject, StartOptions, restart_subject};
use restbench_host::contention::{Watch, is_restbench};
use restbench_host::error::chain;
use restbench_host::sample::ServerSample;
use restbench_subject::Subject;

/// A subject started for a scenario, with the findings common to the scenario per protocol.
pub struct Started<'p> {
    pub subject: &'p Subject,
    pub server: RunningSubject,
    pub common: Vec<(Protocol, Vec<Finding>)>,
}

/// One cell of a group as its rounds go.
pub struct Member {
    /// Index into the scenario's started servers.
    pub started: usize,
    /// The subject's id, with its settings when the group holds the subject twice.
    pub label: String,
    pub cell: Cell,
    slices: Vec<Slice>,
    processes: Vec<u32>,
    generators: Vec<Vec<restbench_model::ShardSummary>>,
    warmup: Duration,
    warmup_settled: bool,
    /// The rate of its warm-up's last slice (how the reference is chosen).
    warm_rate: f64,
    /// Its duets beside the group's reference, when the group has one.
    duets: Vec<DuetSide>,
    failed: Option<String>,
}

/// One duet of a cell beside the group's reference: both sides' slices, measured at once.
struct DuetSide {
    round: u32,
    own: Slice,
    reference: Slice,
}

impl DuetSide {
    fn counts(&self) -> bool {
        self.own.counts() && self.reference.counts()
    }
}

/// How a group's cells are measured in each round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Design {
    /// One after another, in a seeded order (`--interleaved`; a remote host; one-cpu).
    Interleaved,
    /// Every cell at once (`ab`): the figures are the duet's.
    AllAtOnce,
    /// Every other cell in a duet beside the member at this index, and every cell alone for its
    /// own figures; the verdicts come from the duets.
    Reference(usize),
}

impl Member {
    pub fn new(started: usize, label: String, cell: Cell) -> Self {
        Self {
            started,
            label,
            cell,
            slices: Vec::new(),
            processes: Vec::new(),
            generators: Vec::new(),
            warmup: Duration::ZERO,
            warmup_settled: true,
            warm_rate: 0.0,
            duets: Vec::new(),
            failed: None,
        }
    }

    /// Duets beside the reference that count.
    fn valid_duets(&self) -> usize {
        self.duets.iter().filter(|d| d.counts()).count()
    }

    fn active(&self) -> bool {
        self.failed.is_none()
    }

    /// Slices that count.
    fn valid(&self) -> usize {
        self.slices.iter().filter(|s| s.counts()).count()
    }

    /// The slice of `round` that counted, as a figure (`None`: not measured then, or it did not
    /// count).
    fn per_round(&self, rounds: u32, figure: &dyn Fn(&Slice) -> f64) -> Vec<Option<f64>> {
        (0..rounds)
            .map(|r| {
                self.slices
                    .iter()
                    .find(|s| s.round == Some(r) && s.counts())
                    .map(figure)
            })
            .collect()
    }
}

/// Where a group runs and who watches: what every slice of it needs.
pub struct Group<'a> {
    pub plan: &'a RunPlan,
    pub scenario: Scenario,
    pub workload: Workload,
    pub protocol: Protocol,
    /// The group's number in the run, so each group gets its own orders from the seed.
    pub index: u32,
    pub options: &'a StartOptions<'a>,
    pub location: &'a dyn ServerLocation,
    pub stop: &'a std::sync::atomic::AtomicBool,
    pub observer: &'a Events<'a>,
}

/// The run's estimate of work, in slices, for the ETA.
#[derive(Debug, Default, Clone, Copy)]
pub struct Work {
    pub planned: f64,
    pub done: f64,
}

impl Work {
    pub fn fraction(&self) -> f64 {
        if self.planned <= 0.0 {
            0.0
        } else {
            (self.done / self.planned).min(1.0)
        }
    }
}

impl Group<'_> {
    fn cell_run<'x>(&'x self, started: &'x mut Started<'_>) -> CellRun<'x> {
        CellRun {
            plan: self.plan,
            subject: started.subject,
            scenario: self.scenario,
            workload: self.workload,
            protocol: self.protocol,
            server: &mut started.server,
            options: self.options,
            location: self.location,
            stop: self.stop,
            observer: self.observer,
        }
    }

    /// The re-warm slice before each measured one (none without rounds).
    fn rewarm(&self) -> Duration {
        self.plan
            .rounds
            .as_ref()
            .map_or(Duration::ZERO, |p| Duration::from_secs_f64(p.rewarm_s))
    }

    fn stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// How this group is measured, and why when not as the policy says: beside a reference
    /// ([`REFERENCE_RULE`](restbench_model::statistics::rounds::REFERENCE_RULE)) when the
    /// policy asks for it and the group has two cells or more, except in one-cpu and on a
    /// workload that queries PostgreSQL.
    pub fn design(&self, policy: &RoundsPolicy, members: &[Member]) -> (Design, Option<String>) {
        if policy.duet {
            return (Design::AllAtOnce, None);
        }
        let active: Vec<usize> = (0..members.len())
            .filter(|&k| members[k].active())
            .collect();
        if !policy.beside_reference || active.len() < 2 {
            return (Design::Interleaved, None);
        }
        if self.scenario == Scenario::OneCpu {
            return (Design::Interleaved, Some(ONE_CPU_INTERLEAVED.to_string()));
        }
        if queries_per_request(self.workload) {
            return (Design::Interleaved, Some(DATABASE_INTERLEAVED.to_string()));
        }
        let rates: Vec<(String, f64)> = active
            .iter()
            .map(|&k| (members[k].label.clone(), members[k].warm_rate))
            .collect();
        match rounds::reference_of(&rates) {
            Some(i) => (Design::Reference(active[i]), None),
            None => (Design::Interleaved, None),
        }
    }

    /// Measures `members` in rounds and fills their cells; the group's record, or `Break` when
    /// the run was interrupted.
    pub fn measure(
        &self,
        policy: &RoundsPolicy,
        started: &mut [Started],
        members: &mut [Member],
        calibration: &mut Calibration,
        work: &mut Work,
    ) -> ControlFlow<(), GroupRounds> {
        for m in members.iter_mut() {
            self.warm(&mut started[m.started], m)?;
        }
        let (design, note) = self.design(policy, members);
        if let Some(note) = &note {
            self.observer
                .note(&format!("{} · {}: {note}", self.workload, self.scenario));
        }
        let solo_rounds = policy
            .solo_rounds
            .unwrap_or(policy.max_rounds)
            .min(policy.max_rounds);
        let processes = self.plan.restarts.clamp(1, policy.min_rounds.max(1));
        let mut process = 0;
        let mut rounds: Vec<Round> = Vec::new();
        let mut pairs = Vec::new();
        for r in 0..policy.max_rounds {
            if self.stopped() {
                return ControlFlow::Break(());
            }
            let p = measure::process_of_repeat(
                r.min(policy.min_rounds.saturating_sub(1)),
                policy.min_rounds,
                processes,
            );
            if p != process {
                process = p;
                self.restart_all(started, members, p, processes)?;
            }
            let (ceiling_rps, ceiling_contended) = match calibration.round(self.stop) {
                Some((c, contended)) => (Some(c), contended),
                None => (None, None),
            };
            let standing = standings(members, design, policy, solo_rounds);
            let mut chosen = needed(&standing, &pairs, r, policy);
            match design {
                // A duet measures every cell in every round: a slice alone is not comparable.
                Design::AllAtOnce if !chosen.is_empty() => {
                    chosen = (0..members.len())
                        .filter(|&k| members[k].active())
                        .collect();
                }
                // The reference is in every duet.
                Design::Reference(k) => chosen.retain(|&i| i != k),
                _ => {}
            }
            let order = rounds::round_order(policy.seed, self.index, r, chosen.len());
            let mut round = Round {
                order: Vec::new(),
                ceiling_rps,
                contended: Vec::new(),
                ceiling_contended,
            };
            let n = if r < policy.min_rounds {
                policy.min_rounds
            } else {
                policy.max_rounds
            };
            let ordered: Vec<usize> = order.into_iter().map(|k| chosen[k]).collect();
            let mut measured = ordered.len();
            match design {
                Design::AllAtOnce if ordered.len() > 1 => {
                    if let Some(slices) =
                        self.duet(started, members, &ordered, (r, n), calibration)?
                    {
                        for (&k, slice) in ordered.iter().zip(slices) {
                            members[k].slices.push(slice);
                            members[k].processes.push(process);
                        }
                    }
                }
                Design::Reference(reference) => {
                    // Alone, for each cell's own figures: in the first solo rounds, and again
                    // for a solo slice that did not count.
                    let want = (r + 1).min(solo_rounds) as usize;
                    let alone: Vec<usize> = (0..members.len())
                        .filter(|&k| members[k].active() && members[k].valid() < want)
                        .collect();
                    let alone_order =
                        rounds::round_order(policy.seed ^ 0x5010, self.index, r, alone.len());
                    for k in alone_order.into_iter().map(|i| alone[i]) {
                        let m = &mut members[k];
                        self.slice(&mut started[m.started], m, r, process, n, calibration)?;
                        round.order.push(m.label.clone());
                    }
                    measured += alone.len();
                    if members[reference].active() {
                        for &k in &ordered {
                            self.beside(started, members, reference, k, (r, n), calibration)?;
                            round.order.push(format!(
                                "{} + {}",
                                members[k].label, members[reference].label
                            ));
                        }
                    }
                }
                _ => {
                    for &k in &ordered {
                        let m = &mut members[k];
                        self.slice(&mut started[m.started], m, r, process, n, calibration)?;
                    }
                }
            }
            if !matches!(design, Design::Reference(_)) {
                round.order = ordered.iter().map(|&k| members[k].label.clone()).collect();
            }
            for m in members.iter() {
                let solo_missed = m.slices.iter().any(|s| s.round == Some(r) && !s.counts());
                let duet_missed = m.duets.iter().any(|d| d.round == r && !d.counts());
                if solo_missed || duet_missed {
                    round.contended.push(m.label.clone());
                }
            }
            rounds.push(round);
            pairs = self.pairs(members, design, r + 1, policy);
            work.done += measured as f64;
            let standing = standings(members, design, policy, solo_rounds);
            let stopping = may_stop(&standing, &pairs, r + 1, policy);
            if !stopping && r + 1 >= policy.min_rounds {
                // Another round is coming: the ETA counts it (and no more, as it may settle).
                let next = needed(&standing, &pairs, r + 1, policy);
                work.planned += next.len() as f64;
            }
            let unsettled = pairs.iter().filter(|p| !p.settled).count();
            let widest = pairs
                .iter()
                .map(|p| p.rps.relative_half_width())
                .fold(None, |w: Option<f64>, x| Some(w.map_or(x, |w| w.max(x))));
            self.observer.emit(RunEvent::RoundDone {
                workload: self.workload,
                scenario: self.scenario,
                protocol: self.protocol,
                round: r + 1,
                min_rounds: policy.min_rounds,
                max_rounds: policy.max_rounds,
                measured,
                pairs: pairs.len(),
                unsettled,
                targeted: policy.target_ci.is_some(),
                widest,
                done: work.fraction(),
            });
            if stopping {
                break;
            }
        }
        ControlFlow::Continue(self.finish(
            started,
            members,
            rounds,
            calibration,
            policy,
            design,
            note,
        ))
    }

    /// The member's one full warm-up in this group.
    fn warm(&self, started: &mut Started, m: &mut Member) -> ControlFlow<()> {
        if self.stopped() {
            return ControlFlow::Break(());
        }
        let mut cell = self.cell_run(started);
        cell.step(Step::WarmingUp);
        match measure::cell_spec(&cell).and_then(|spec| measure::warm_up_at(&cell, &spec)) {
            Ok((spent, settled, rate)) => {
                m.warmup += spent;
                m.warmup_settled &= settled;
                m.warm_rate = rate;
            }
            Err(e) => m.failed = Some(measure::load_failure(&mut cell, &e)),
        }
        ControlFlow::Continue(())
    }

    /// Every active member's server started afresh (`--restarts`) and warmed up again.
    fn restart_all(
        &self,
        started: &mut [Started],
        members: &mut [Member],
        process: u32,
        processes: u32,
    ) -> ControlFlow<()> {
        for m in members.iter_mut().filter(|m| m.active()) {
            let s = &mut started[m.started];
            let cell = self.cell_run(s);
            cell.step(Step::Restarting {
                process: process + 1,
                processes,
            });
            let subject = s.subject;
            if let Err(e) = restart_subject(&mut s.server, subject, self.scenario, self.options) {
                m.failed = Some(chain(&e));
                continue;
            }
            self.warm(s, m)?;
        }
        ControlFlow::Continue(())
    }

    /// One re-warm and one measured slice of `m` in round `r`, judged for saturation.
    fn slice(
        &self,
        started: &mut Started,
        m: &mut Member,
        r: u32,
        process: u32,
        n: u32,
        calibration: &Calibration,
    ) -> ControlFlow<()> {
        if self.stopped() {
            return ControlFlow::Break(());
        }
        let policy_rewarm = self.rewarm();
        let warm_rate = m.warm_rate;
        let mut cell = self.cell_run(started);
        let measured = (|| -> Result<Option<Slice>, HarnessError> {
            let mut spec = measure::cell_spec(&cell)?;
            spec.stop = slice_stop(
                self.plan.shape.stop,
                timed_warmup(self.plan),
                &[(&spec, warm_rate)],
            );
            cell.step(Step::Rewarming);
            measure::rewarm(&cell, &spec, policy_rewarm)?;
            measure::check_alive(&mut cell)?;
            cell.step(Step::Measuring { i: r + 1, n });
            let watch = Watch::take(&self.plan.placement);
            let Some((outcome, sample, hosts)) = measure::measured_load(&cell, &spec)? else {
                return Ok(None);
            };
            // A server that exits during the slice fails the cell, with why.
            measure::check_alive(&mut cell)?;
            if !hosts.is_empty() {
                m.generators.push(hosts);
            }
            let limits = limits_itself(cell.subject, self.scenario, self.workload);
            let together = Together::alone(&outcome, &sample, cell.server, limits);
            Ok(Some(self.judge(
                outcome,
                sample,
                r,
                &watch,
                &together,
                calibration,
            )))
        })();
        match measured {
            Ok(Some(slice)) => {
                m.slices.push(slice);
                m.processes.push(process);
            }
            Ok(None) => return ControlFlow::Break(()),
            Err(_) if self.stopped() => return ControlFlow::Break(()),
            // A server that exited or stopped says so, rather than "cannot connect".
            Err(e) => m.failed = Some(measure::load_failure(&mut cell, &e)),
        }
        ControlFlow::Continue(())
    }

    /// What limited a slice: the server (at least 90 % of its allowance), the generator (at
    /// least 90 % of its CPUs, or near a ceiling calibrated with nobody else on the CPUs), or
    /// the server's own declared limit; otherwise, or when steal time or another process took
    /// either side's CPUs, it is contended and does not count. `together` is what the slices
    /// measured at once used: the slice alone, or every side of a duet, whose servers share the
    /// allowance and whose generator runs share the generator's CPUs.
    fn judge(
        &self,
        outcome: restbench_loadgen::LoadOutcome,
        sample: restbench_host::sample::ServerSample,
        r: u32,
        watch: &Watch,
        together: &Together,
        calibration: &Calibration,
    ) -> Slice {
        let plan = self.plan;
        let secs = outcome.duration.as_secs_f64().max(1e-9);
        let server_cpu = together.server_cpu_s;
        let loadgen_cpu = together.loadgen_cpu_s;
        let allowed = together.allowed_cores;
        let placement = &plan.placement;
        let here = plan.server_host.is_none();
        let unix = |t: std::time::SystemTime| {
            t.duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64())
        };
        let mut slice = Slice {
            outcome,
            sample,
            round: Some(r),
            saturation: None,
            contention: None,
            window: Some((unix(watch.began), unix(std::time::SystemTime::now()))),
        };
        if !here || placement.shared {
            return slice;
        }
        let local_generator = plan.remote.is_none();
        let loadgen_cpus = if local_generator {
            placement.loadgen.len() as f64
        } else {
            0.0
        };
        // Steal, or another process on either side's CPUs: the slice measured something else too.
        let taken = watch.finish(
            server_cpu,
            if local_generator { loadgen_cpu } else { 0.0 },
            &|comm, _| comm == "postgres",
            &|pid, pgrp| is_restbench(pid) || together.server_pgids.contains(&pgrp),
        );
        if let Some(taken) = taken {
            slice.saturation = Some(Saturation::Contended);
            slice.contention = Some(taken.describe());
            return slice;
        }
        let client_bound = local_generator
            && is_client_bound(
                together.rps,
                loadgen_cpu / secs,
                placement,
                calibration.ceiling(),
            );
        let mut saturation = Saturation::of(
            server_cpu / secs,
            allowed,
            loadgen_cpu / secs,
            loadgen_cpus,
            client_bound,
        );
        if saturation == Saturation::Contended {
            // Neither side was the bound, and nothing seen took the CPU. A server of one core
            // under a closed loop uses that core unless it limits itself (and says so).
            let one_core = allowed > 0.0 && allowed <= 1.0 + 1e-9;
            if one_core && together.limits_itself.is_none() {
                slice.contention = Some(format!(
                    "neither side was the bound: the server used {:.2} of its {:.2} core and the \
                     generator {:.2} of its {} CPUs; a one-core server under a closed loop uses \
                     its core unless it limits itself, so something unseen took the CPU",
                    server_cpu / secs,
                    allowed,
                    loadgen_cpu / secs,
                    loadgen_cpus
                ));
            } else {
                saturation = Saturation::Unsaturated;
            }
        }
        slice.saturation = Some(saturation);
        slice
    }

    /// One duet of `members[k]` beside the reference `members[reference]` in round `r`: both
    /// slices kept with `k`, for the ratio to the reference.
    fn beside(
        &self,
        started: &mut [Started],
        members: &mut [Member],
        reference: usize,
        k: usize,
        (r, n): (u32, u32),
        calibration: &Calibration,
    ) -> ControlFlow<()> {
        let pair = [k, reference];
        if let Some(mut slices) = self.duet(started, members, &pair, (r, n), calibration)? {
            let reference_side = slices.pop();
            let own = slices.pop();
            if let (Some(own), Some(reference_side)) = (own, reference_side) {
                members[k].duets.push(DuetSide {
                    round: r,
                    own,
                    reference: reference_side,
                });
            }
        }
        ControlFlow::Continue(())
    }

    /// One duet: the `ordered` members re-warmed at once, then measured at once, each with its
    /// own generator run and its server's usage read over the same window, so that whatever
    /// the machine does during the slice lands on every side alike. `(r, n)`: the round, the
    /// rounds shown in progress. The judged slices in the order of `ordered`; `None` when a
    /// side failed (its cell says why).
    fn duet(
        &self,
        started: &mut [Started],
        members: &mut [Member],
        ordered: &[usize],
        (r, n): (u32, u32),
        calibration: &Calibration,
    ) -> ControlFlow<(), Option<Vec<Slice>>> {
        if self.stopped() {
            return ControlFlow::Break(());
        }
        let rewarm = self.rewarm();
        let mut specs = Vec::new();
        for &k in ordered {
            let cell = self.cell_run(&mut started[members[k].started]);
            match measure::cell_spec(&cell) {
                Ok(spec) => specs.push(spec),
                Err(e) => {
                    members[k].failed = Some(chain(&e));
                    return ControlFlow::Continue(None);
                }
            }
            cell.step(Step::Measuring { i: r + 1, n });
        }
        // Every side's slice as long as the one that needs the longest.
        let rates: Vec<f64> = ordered.iter().map(|&k| members[k].warm_rate).collect();
        let stop = slice_stop(
            self.plan.shape.stop,
            timed_warmup(self.plan),
            &specs.iter().zip(rates).collect::<Vec<_>>(),
        );
        specs.iter_mut().for_each(|s| s.stop = stop);
        let placement = &self.plan.placement;
        type Measured = (Watch, Vec<LoadOutcome>, Vec<ServerSample>);
        let together = (|| -> Result<Option<Measured>, HarnessError> {
            if !rewarm.is_zero() {
                let warm: Vec<_> = specs
                    .iter()
                    .map(|s| LoadSpec {
                        stop: StopAt::Duration(rewarm),
                        ..s.clone()
                    })
                    .collect();
                measure::run_loads_together(&warm, placement, self.stop, self.observer)?;
            }
            let servers: Vec<&RunningSubject> = ordered
                .iter()
                .map(|&k| &started[members[k].started].server)
                .collect();
            let watch = Watch::take(placement);
            let mut load =
                || measure::run_loads_together(&specs, placement, self.stop, self.observer);
            let sampled = sampled_together(
                self.location,
                &servers,
                specs[0].warmup,
                self.stop,
                &mut load,
            )?;
            Ok(sampled.map(|(outcomes, samples)| (watch, outcomes, samples)))
        })();
        let (watch, outcomes, samples) = match together {
            Ok(Some(m)) => m,
            Ok(None) => return ControlFlow::Break(()),
            Err(_) if self.stopped() => return ControlFlow::Break(()),
            Err(e) => {
                // A server that exited fails its own cell, with why; otherwise the load failed
                // for every side alike.
                let why = chain(&e);
                let mut exited = false;
                let deadline = std::time::Instant::now() + measure::EXIT_GRACE;
                while !exited {
                    for &k in ordered {
                        let m = &mut members[k];
                        if let Some(gone) =
                            measure::server_gone(&mut self.cell_run(&mut started[m.started]))
                        {
                            m.failed = Some(gone);
                            exited = true;
                        }
                    }
                    if std::time::Instant::now() >= deadline {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                if !exited {
                    ordered
                        .iter()
                        .for_each(|&k| members[k].failed = Some(why.clone()));
                }
                return ControlFlow::Continue(None);
            }
        };
        let pgids: Vec<i32> = ordered
            .iter()
            .map(|&k| started[members[k].started].server.child.pgid())
            .collect();
        let allowed = ordered
            .iter()
            .map(|&k| started[members[k].started].server.limit.allowed_cores)
            .fold(0.0, f64::max);
        let limits = ordered.iter().find_map(|&k| {
            limits_itself(
                started[members[k].started].subject,
                self.scenario,
                self.workload,
            )
        });
        let shared = Together::of(&outcomes, &samples, pgids, allowed, limits);
        let mut slices = Vec::new();
        for (&k, (outcome, sample)) in ordered.iter().zip(outcomes.into_iter().zip(samples)) {
            let m = &mut members[k];
            let mut cell = self.cell_run(&mut started[m.started]);
            if let Err(e) = measure::check_alive(&mut cell) {
                m.failed = Some(chain(&e));
                continue;
            }
            slices.push(self.judge(outcome, sample, r, &watch, &shared, calibration));
        }
        ControlFlow::Continue((slices.len() == ordered.len()).then_some(slices))
    }

    /// The paired ratios of the members still in the running, after `rounds` rounds.
    fn pairs(
        &self,
        members: &[Member],
        design: Design,
        rounds: u32,
        policy: &RoundsPolicy,
    ) -> Vec<PairRatio> {
        let active: Vec<&Member> = members.iter().filter(|m| m.active()).collect();
        let (rps, cpu) = match design {
            Design::Reference(k) => beside_series(&active, &members[k].label, rounds),
            _ => series(&active, rounds),
        };
        rounds::pair_ratios(&rps, &cpu, policy.target_ci)
    }

    /// Every member's cell filled from its slices, and the group's record.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        started: &[Started],
        members: &mut [Member],
        rounds_done: Vec<Round>,
        calibration: &Calibration,
        policy: &RoundsPolicy,
        design: Design,
        note: Option<String>,
    ) -> GroupRounds {
        let reference = match design {
            Design::Reference(k) => Some(members[k].label.clone()),
            _ => None,
        };
        let (excluded, counted) = slice_windows(members, reference.as_deref());
        for m in members.iter_mut() {
            // A server the OOM killer ended at its memory limit fails its cell with that, the
            // cause of whatever the load then saw; the run goes on.
            let killed = measure::killed_at_memory_limit(&started[m.started].server);
            if let Some(why) = m.failed.take() {
                m.cell.status = CellStatus::Failed;
                m.cell.reason = Some(killed.unwrap_or(why));
                // What the server ran under (its CPUs, its memory limit) stands beside why.
                m.cell.placement = started[m.started].server.limit.clone();
                continue;
            }
            let contention: Vec<String> = m
                .slices
                .iter()
                .filter(|s| !s.counts())
                // A duet's two sides share its verdict: counted once, by the side that failed.
                .chain(
                    m.duets
                        .iter()
                        .filter(|d| !d.counts())
                        .map(|d| if d.own.counts() { &d.reference } else { &d.own }),
                )
                .filter_map(|s| s.contention.clone())
                .collect();
            let counted_duets = m.valid_duets();
            let missed_duets = m.duets.len() - counted_duets;
            let measurement = Measurement {
                repeats: std::mem::take(&mut m.slices),
                warmup: m.warmup,
                warmup_settled: m.warmup_settled,
                generators: std::mem::take(&mut m.generators),
                processes: std::mem::take(&mut m.processes),
            };
            let limit = started[m.started].server.limit.clone();
            verdict::fill_cell(
                &mut m.cell,
                measurement,
                &self.plan.placement,
                &limit,
                calibration.ceiling(),
            );
            // Beside a reference, a cell whose duets mostly did not count is not ranked either.
            if missed_duets > 0 && (missed_duets > counted_duets || counted_duets < 2) {
                m.cell.raise(restbench_model::Flag::Contended);
            }
            // A server that stopped answering, or a database that went away, fails the cell
            // with why; the run goes on.
            let database = self
                .plan
                .database_pid
                .filter(|_| self.workload.needs_database())
                .and_then(restbench_host::process::exit_of_child);
            if let Some(why) =
                killed.or_else(|| verdict::not_answering(&m.cell, database.as_deref()))
            {
                m.cell.status = CellStatus::Failed;
                m.cell.reason = Some(why);
            }
            if let Some(first) = contention.first() {
                self.observer.note(&format!(
                    "{} {}: {} of its slices contended ({first})",
                    m.label,
                    self.workload,
                    contention.len()
                ));
            }
        }
        let mut record = group_record(self, members, rounds_done, policy, design);
        record.reference = reference;
        record.method_note = note;
        record.excluded = excluded;
        record.counted = counted;
        record
    }
}

/// Why groups of a workload that queries PostgreSQL are measured one after another: the two
/// servers of a duet would share one database, so each side's rate would be partly the other's
/// doing (said in the plan, the run's notes and results.json).
pub const DATABASE_INTERLEAVED: &str = "measured interleaved, not in duets: the two servers of \
     a duet would share one PostgreSQL, its CPU and, for updates, its row locks, so each side's \
     rate would depend on the other's queries (in study tfb's first run here, rust-axum, the \
     updates group's reference, answered nothing for 2 s beside another server's updates)";

/// Why one-cpu groups are measured one after another even when the run measures beside a
/// reference (said in the plan, the run's notes and results.json).
pub const ONE_CPU_INTERLEAVED: &str = "measured interleaved, not in duets: one-cpu is a CFS \
     quota of one core, and two servers time-sharing the server CPUs would each get less than \
     the quota, so it would never throttle and the scenario would not be measured";

/// The fewest closed-loop waves a timed slice holds. Under a closed loop every connection's
/// requests can come back together, one wave per `in flight ÷ rate` seconds (512 connections of
/// 20-query requests at 400 req/s: 1.3 s), so a slice of one or two waves counts 0, 1 or 2 of
/// them: a figure of the slice's phase, not the server's rate.
pub const MIN_WAVES: f64 = 8.0;

/// The longest a timed slice is stretched to hold [`MIN_WAVES`] waves: beyond it the slice
/// keeps this length and a server slower than that is measured over fewer waves.
pub const MAX_STRETCHED_SLICE: Duration = Duration::from_secs(10);

/// How long the slices of `sides` (`(spec, warm-up rate)`, measured at once) run: the shape's
/// `stop`, or, when it is a duration too short to hold [`MIN_WAVES`] of a side's waves at the
/// rate its warm-up reached, that long, up to [`MAX_STRETCHED_SLICE`]. A side whose timed
/// warm-up (`timed_warmup`) answered nothing gets the longest; without one the rate is unknown
/// and the side keeps `stop`. Counts and open loops keep `stop`.
fn slice_stop(stop: StopAt, timed_warmup: bool, sides: &[(&LoadSpec, f64)]) -> StopAt {
    let StopAt::Duration(d) = stop else {
        return stop;
    };
    let cap = MAX_STRETCHED_SLICE.max(d);
    let needed = sides
        .iter()
        .filter(|(spec, _)| spec.rate.is_none())
        .map(|(spec, rate)| {
            let in_flight =
                f64::from(spec.connections) * f64::from(spec.pipeline.max(spec.max_streams).max(1));
            if *rate > 0.0 {
                Duration::from_secs_f64((MIN_WAVES * in_flight / rate).min(cap.as_secs_f64()))
            } else if timed_warmup {
                cap
            } else {
                d
            }
        })
        .max()
        .unwrap_or(d);
    StopAt::Duration(d.max(needed))
}

/// Whether the plan warms up in timed slices, whose last rate each member keeps (a warm-up by
/// request count, or none, leaves the rate at 0: unknown, not "no answer").
fn timed_warmup(plan: &RunPlan) -> bool {
    plan.shape.warmup_requests.is_none() && !plan.shape.warmup.is_zero()
}

/// Why the server may stay below its allowance in `scenario`: its declared limit
/// (`limits_itself` in subject.toml), else, on a workload that queries PostgreSQL, the time it
/// waits for the database's answers, which no declaration is needed to explain (the database's
/// own CPU is seen, and excluded from what was taken, by the contention check).
fn limits_itself(subject: &Subject, scenario: Scenario, workload: Workload) -> Option<String> {
    subject
        .scenarios
        .get(&scenario)
        .and_then(|s| s.limits_itself.clone())
        .or_else(|| {
            queries_per_request(workload)
                .then(|| format!("{workload} waits on the database's queries"))
        })
}

/// A workload whose every request queries PostgreSQL (cached-queries reads its cache once warm).
fn queries_per_request(workload: Workload) -> bool {
    workload.needs_database() && workload != Workload::CachedQueries
}

/// Every slice of the group that did not count, with its cause, and every one that did, each
/// with its window, in the order measured.
fn slice_windows(
    members: &[Member],
    reference: Option<&str>,
) -> (
    Vec<restbench_model::ExcludedSlice>,
    Vec<restbench_model::SliceWindow>,
) {
    let window = |subject: &str, beside: Option<&str>, s: &Slice| {
        let (from, to) = s.window.unwrap_or((0.0, 0.0));
        restbench_model::SliceWindow {
            subject: subject.to_string(),
            round: s.round.unwrap_or(0),
            beside: beside.map(str::to_string),
            from_unix_s: from,
            to_unix_s: to,
        }
    };
    let mut counted = Vec::new();
    for m in members {
        for s in m.slices.iter().filter(|s| s.counts()) {
            counted.push(window(&m.label, None, s));
        }
        for d in m.duets.iter().filter(|d| d.counts()) {
            counted.push(window(&m.label, reference, &d.own));
        }
    }
    counted.sort_by(|a, b| a.from_unix_s.total_cmp(&b.from_unix_s));
    let entry = |subject: &str, beside: Option<&str>, s: &Slice| {
        let (from, to) = s.window.unwrap_or((0.0, 0.0));
        restbench_model::ExcludedSlice {
            subject: subject.to_string(),
            round: s.round.unwrap_or(0),
            beside: beside.map(str::to_string),
            cause: s
                .contention
                .clone()
                .unwrap_or_else(|| "contended".to_string()),
            from_unix_s: from,
            to_unix_s: to,
        }
    };
    let mut out = Vec::new();
    for m in members {
        for s in m.slices.iter().filter(|s| !s.counts()) {
            out.push(entry(&m.label, None, s));
        }
        for d in m.duets.iter().filter(|d| !d.counts()) {
            // One entry per duet: both sides share its cause.
            let s = if d.own.counts() { &d.reference } else { &d.own };
            out.push(entry(&m.label, reference, s));
        }
    }
    out.sort_by(|a, b| a.from_unix_s.total_cmp(&b.from_unix_s));
    (out, counted)
}

/// What the slices measured at once used, to judge each of them: one slice alone, or every
/// side of a duet round, whose servers share one allowance and whose generator runs share the
/// generator's CPUs.
struct Together {
    server_cpu_s: f64,
    loadgen_cpu_s: f64,
    /// Answers per second of all of them: what the generator delivered.
    rps: f64,
    allowed_cores: f64,
    server_pgids: Vec<i32>,
    /// A side's declared limit below its allowance (subject.toml's `limits_itself`).
    limits_itself: Option<String>,
}

impl Together {
    fn alone(
        outcome: &LoadOutcome,
        sample: &ServerSample,
        server: &RunningSubject,
        limits_itself: Option<String>,
    ) -> Self {
        Self::of(
            std::slice::from_ref(outcome),
            std::slice::from_ref(sample),
            vec![server.child.pgid()],
            server.limit.allowed_cores,
            limits_itself,
        )
    }

    fn of(
        outcomes: &[LoadOutcome],
        samples: &[ServerSample],
        server_pgids: Vec<i32>,
        allowed_cores: f64,
        limits_itself: Option<String>,
    ) -> Self {
        Self {
            server_cpu_s: samples.iter().map(|s| s.cpu.as_secs_f64()).sum(),
            loadgen_cpu_s: outcomes
                .iter()
                .map(|o| (o.cpu_user + o.cpu_system).as_secs_f64())
                .sum(),
            rps: outcomes.iter().map(LoadOutcome::rps).sum(),
            allowed_cores,
            server_pgids,
            limits_itself,
        }
    }
}

/// What a duet slice measured: the outcomes and the servers' samples, in the servers' order.
type MeasuredTogether = (Vec<LoadOutcome>, Vec<ServerSample>);

/// `load` (one load per server, at once) with every server's CPU and memory read over the same
/// window: each server's sampling wraps the next one's. The outcomes and samples in the order
/// of `servers`; `None` when interrupted.
fn sampled_together(
    location: &dyn ServerLocation,
    servers: &[&RunningSubject],
    warmup: Duration,
    stop: &std::sync::atomic::AtomicBool,
    load: &mut dyn FnMut() -> Result<Vec<LoadOutcome>, HarnessError>,
) -> Result<Option<MeasuredTogether>, HarnessError> {
    sampled_from(0, location, servers, warmup, stop, load)
}

/// [`sampled_together`] from server `at` on: its sampling around the samplings of the rest.
fn sampled_from(
    at: usize,
    location: &dyn ServerLocation,
    servers: &[&RunningSubject],
    warmup: Duration,
    stop: &std::sync::atomic::AtomicBool,
    load: &mut dyn FnMut() -> Result<Vec<LoadOutcome>, HarnessError>,
) -> Result<Option<MeasuredTogether>, HarnessError> {
    let Some(server) = servers.get(at) else {
        return load().map(|outcomes| Some((outcomes, Vec::new())));
    };
    let mut inner: Option<MeasuredTogether> = None;
    let mut wrapped = || -> Result<Option<Loaded>, HarnessError> {
        let Some((outcomes, samples)) =
            sampled_from(at + 1, location, servers, warmup, stop, load)?
        else {
            return Ok(None);
        };
        // `load` answers one outcome per server: this server's is the one at its place.
        let own = outcomes[at].clone();
        inner = Some((outcomes, samples));
        Ok(Some((own, Vec::new())))
    };
    let Some((_, sample, _)) = location.sampled_load(server, warmup, stop, &mut wrapped)? else {
        return Ok(None);
    };
    let Some((outcomes, mut samples)) = inner else {
        return Ok(None);
    };
    samples.insert(0, sample);
    Ok(Some((outcomes, samples)))
}

/// A slice's server CPU µs per answered request.
fn cpu_per_request(s: &Slice) -> f64 {
    let answered = s.outcome.answered.max(1) as f64;
    s.sample.cpu.as_secs_f64() * 1e6 / answered
}

/// Beside a reference: each member's figure per round divided by the reference's in the same
/// duet (the reference itself is 1 in every round). The ratio of two members' series in a round
/// is then their ratio chained through the reference in that round, so a pair's interval is
/// taken from the chained ratios themselves: both duets' noise is in it, and what the two
/// duets of a round share (the reference, the round's state of the machine) cancels.
fn beside_series(members: &[&Member], reference: &str, rounds: u32) -> (Vec<Series>, Vec<Series>) {
    let relative = |m: &Member, figure: &dyn Fn(&Slice) -> f64| -> Vec<Option<f64>> {
        (0..rounds)
            .map(|r| {
                if m.label == reference {
                    return Some(1.0);
                }
                m.duets
                    .iter()
                    .find(|d| d.round == r && d.counts())
                    .map(|d| (figure(&d.own), figure(&d.reference)))
                    .filter(|(_, theirs)| *theirs > 0.0)
                    .map(|(own, theirs)| own / theirs)
            })
            .collect()
    };
    let rps = members
        .iter()
        .map(|m| Series {
            subject: m.label.clone(),
            values: relative(m, &|s| s.outcome.rps()),
        })
        .collect();
    let cpu = members
        .iter()
        .map(|m| Series {
            subject: m.label.clone(),
            values: relative(m, &cpu_per_request),
        })
        .collect();
    (rps, cpu)
}

/// The figures of the members that may be ranked (measured, not contended), per round.
fn series(members: &[&Member], rounds: u32) -> (Vec<Series>, Vec<Series>) {
    let mut rps = Vec::new();
    let mut cpu = Vec::new();
    for m in members {
        rps.push(Series {
            subject: m.label.clone(),
            values: m.per_round(rounds, &|s| s.outcome.rps()),
        });
        cpu.push(Series {
            subject: m.label.clone(),
            values: m.per_round(rounds, &cpu_per_request),
        });
    }
    (rps, cpu)
}

/// Where a member stands between rounds: what the stop rule and the next round's choice need.
#[derive(Debug, Clone)]
struct Standing {
    label: String,
    active: bool,
    valid: usize,
}

/// Where each member stands. Beside a reference, a member's counted rounds are its counted
/// duets (the reference's are its own), and a missing solo slice counts against it too.
fn standings(
    members: &[Member],
    design: Design,
    policy: &RoundsPolicy,
    solo_rounds: u32,
) -> Vec<Standing> {
    members
        .iter()
        .enumerate()
        .map(|(k, m)| Standing {
            label: m.label.clone(),
            active: m.active(),
            valid: match design {
                Design::Reference(reference) => {
                    let duets = if k == reference {
                        usize::MAX
                    } else {
                        m.valid_duets()
                    };
                    let solos = m.valid() + policy.min_rounds.saturating_sub(solo_rounds) as usize;
                    duets.min(solos)
                }
                _ => m.valid(),
            },
        })
        .collect()
}

/// The members round `r` measures: all in the first `min_rounds`; later, those with fewer
/// counted slices than `min_rounds` (a contended slice is measured again) and those in a pair
/// not yet within the target.
fn needed(members: &[Standing], pairs: &[PairRatio], r: u32, policy: &RoundsPolicy) -> Vec<usize> {
    members
        .iter()
        .enumerate()
        .filter(|(_, m)| m.active)
        .filter(|(_, m)| {
            r < policy.min_rounds
                || m.valid < policy.min_rounds as usize
                || pairs
                    .iter()
                    .any(|p| !p.settled && (p.a == m.label || p.b == m.label))
        })
        .map(|(i, _)| i)
        .collect()
}

/// The group may stop after `rounds`: at the cap; else once every member has its counted
/// slices and the pairs settle ([`rounds::may_stop`]).
fn may_stop(members: &[Standing], pairs: &[PairRatio], rounds: u32, policy: &RoundsPolicy) -> bool {
    if rounds >= policy.max_rounds {
        return true;
    }
    let complete = members
        .iter()
        .filter(|m| m.active)
        .all(|m| m.valid >= policy.min_rounds as usize);
    complete && rounds::may_stop(policy, rounds, pairs)
}

/// The group's record: its rounds, the paired ratios of the cells that may be ranked, and the
/// two rankings with ties.
fn group_record(
    group: &Group,
    members: &[Member],
    rounds_done: Vec<Round>,
    policy: &RoundsPolicy,
    design: Design,
) -> GroupRounds {
    let n = rounds_done.len() as u32;
    let rankable: Vec<&Member> = members
        .iter()
        .filter(|m| {
            m.cell.status == CellStatus::Ok && !m.cell.has_flag(restbench_model::Flag::Contended)
        })
        .collect();
    let per_round = |m: &Member, f: &dyn Fn(&restbench_model::RepeatResult) -> f64| Series {
        subject: m.label.clone(),
        values: (0..n)
            .map(|r| {
                m.cell
                    .repeats
                    .iter()
                    .find(|x| x.round == Some(r) && x.saturation.is_none_or(Saturation::counts))
                    .map(f)
            })
            .collect(),
    };
    let rps: Vec<Series> = rankable.iter().map(|m| per_round(m, &|x| x.rps)).collect();
    let cpu: Vec<Series> = rankable
        .iter()
        .map(|m| per_round(m, &verdict::cpu_us_per_req))
        .collect();
    let (rps, cpu) = match design {
        // The verdicts come from the duets; the figures ranked are each cell's own.
        Design::Reference(k) => beside_series(&rankable, &members[k].label, n),
        _ => (rps, cpu),
    };
    let pairs = rounds::pair_ratios(&rps, &cpu, policy.target_ci);
    let settled = policy.target_ci.is_some() && pairs.iter().all(|p| p.settled);
    let by_rps: Vec<(String, f64)> = rankable
        .iter()
        .map(|m| (m.label.clone(), m.cell.rps.median))
        .collect();
    let by_cpu: Vec<(String, f64)> = rankable
        .iter()
        .map(|m| (m.label.clone(), m.cell.server.cpu_us_per_req))
        .collect();
    GroupRounds {
        workload: group.workload.cell_label(group.plan.shape.pipeline),
        scenario: group.scenario.name().into(),
        protocol: group.protocol.name().into(),
        ranking: rounds::rank(&by_rps, &pairs, true),
        efficiency: rounds::rank(&by_cpu, &pairs, false),
        rounds: rounds_done,
        settled,
        pairs,
        reference: None,
        method_note: None,
        excluded: Vec::new(),
        counted: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(label: &str, valid: usize) -> Standing {
        Standing {
            label: label.into(),
            active: true,
            valid,
        }
    }

    fn pair(a: &str, b: &str, settled: bool) -> PairRatio {
        PairRatio {
            a: a.into(),
            b: b.into(),
            rps: restbench_model::Interval {
                estimate: 1.0,
                low: 0.9,
                high: 1.1,
                n: 3,
            },
            cpu_us_per_req: None,
            settled,
            rps_distinct: None,
            cpu_distinct: None,
        }
    }

    #[test]
    fn a_timed_slice_stretches_to_hold_its_waves_and_no_further_than_the_cap() {
        let mut spec =
            LoadSpec::get(restbench_loadgen::Target::parse("http://127.0.0.1:1/").unwrap());
        spec.connections = 512;
        let one = StopAt::Duration(Duration::from_secs(1));
        // 512 in flight at 4,096 req/s: a wave is 0.125 s, 8 waves 1 s: the slice stays.
        assert!(
            matches!(slice_stop(one, true, &[(&spec, 4096.0)]), StopAt::Duration(d) if d == Duration::from_secs(1))
        );
        // At 1,024 req/s, 8 waves take 4 s; a duet runs as long as its slowest side needs.
        assert!(matches!(
            slice_stop(one, true, &[(&spec, 4096.0), (&spec, 1024.0)]),
            StopAt::Duration(d) if d == Duration::from_secs(4)
        ));
        // 100 req/s would need 41 s: capped at 10 s; a timed warm-up with no answer gets the cap,
        // an unknown rate (no timed warm-up) keeps the shape's slice.
        assert!(
            matches!(slice_stop(one, true, &[(&spec, 100.0)]), StopAt::Duration(d) if d == MAX_STRETCHED_SLICE)
        );
        assert!(
            matches!(slice_stop(one, true, &[(&spec, 0.0)]), StopAt::Duration(d) if d == MAX_STRETCHED_SLICE)
        );
        assert!(
            matches!(slice_stop(one, false, &[(&spec, 0.0)]), StopAt::Duration(d) if d == Duration::from_secs(1))
        );
        // Pipelining multiplies what is in flight; a count or an open loop is left alone.
        spec.pipeline = 16;
        assert!(
            matches!(slice_stop(one, true, &[(&spec, 16_384.0)]), StopAt::Duration(d) if d == Duration::from_secs(4))
        );
        assert!(matches!(
            slice_stop(StopAt::Requests(10), true, &[(&spec, 1.0)]),
            StopAt::Requests(10)
        ));
        spec.rate = Some(100.0);
        assert!(
            matches!(slice_stop(one, true, &[(&spec, 1.0)]), StopAt::Duration(d) if d == Duration::from_secs(1))
        );
    }

    #[test]
    fn a_database_workload_explains_a_server_below_its_core_and_plaintext_does_not() {
        let subject = restbench_subject::ad_hoc::subject(
            "true",
            "ad-hoc",
            &[Workload::Plaintext, Workload::Queries],
            std::path::PathBuf::from("."),
        )
        .unwrap();
        assert_eq!(
            limits_itself(&subject, Scenario::SingleThread, Workload::Plaintext),
            None
        );
        assert_eq!(
            limits_itself(&subject, Scenario::SingleThread, Workload::Queries).as_deref(),
            Some("queries waits on the database's queries")
        );
        // Once warm, cached-queries answers from its cache: a server below its core there is
        // not explained by the database.
        assert_eq!(
            limits_itself(&subject, Scenario::SingleThread, Workload::CachedQueries),
            None
        );
    }

    #[test]
    fn a_contended_cell_is_measured_again_and_settled_pairs_rest() {
        let p = RoundsPolicy {
            seed: 1,
            min_rounds: 3,
            max_rounds: 6,
            target_ci: Some(0.03),
            rewarm_s: 0.0,
            duet: false,
            beside_reference: false,
            solo_rounds: None,
        };
        // c's third slice was contended: two count.
        let mut members = vec![standing("a", 3), standing("b", 3), standing("c", 2)];
        let settled = vec![
            pair("a", "b", true),
            pair("a", "c", true),
            pair("b", "c", true),
        ];
        assert_eq!(
            needed(&members, &settled, 1, &p),
            vec![0, 1, 2],
            "all in the first rounds"
        );
        assert_eq!(
            needed(&members, &settled, 3, &p),
            vec![2],
            "then the contended one"
        );
        assert!(
            !may_stop(&members, &settled, 3, &p),
            "c lacks a counted slice"
        );
        let unsettled = vec![
            pair("a", "b", false),
            pair("a", "c", true),
            pair("b", "c", true),
        ];
        members[2].valid = 3;
        assert_eq!(
            needed(&members, &unsettled, 3, &p),
            vec![0, 1],
            "the unsettled pair"
        );
        assert!(!may_stop(&members, &unsettled, 4, &p));
        assert!(may_stop(&members, &unsettled, 6, &p), "the cap ends it");
        assert!(may_stop(&members, &settled, 3, &p), "settled and complete");
        members[0].active = false;
        assert_eq!(
            needed(&members, &unsettled, 3, &p),
            vec![1],
            "a failed cell rests"
        );
    }
}
