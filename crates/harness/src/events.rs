//! The interface between a run (or a verify session) and whoever watches it: the runner says what
//! happens as [`RunEvent`]s and never how it is shown. The terminal display, `restbench
//! verify`'s printer and the run's `results.json` writer are consumers of the same events, each
//! an [`Observer`] handed to the run in one [`Events`].
//!
//! Every event reaches every observer as an [`Event`], stamped once where it is emitted with the
//! wall-clock time and the time since the run began (as nextest stamps its test events), so a
//! progress line, a log and the results file agree on when something happened.

use std::fmt;
use std::time::{Duration, Instant, SystemTime};

use crate::HarnessError;

use restbench_model::{
    Cell, GroupRounds, Protocol, Scenario, SubjectConformance, VerifyOutcome, Workload,
};

/// One event, with when it happened.
#[derive(Debug, Clone, Copy)]
pub struct Event<'a> {
    /// The wall-clock time it was emitted.
    pub at: SystemTime,
    /// Since the run (or session) began: since its [`Events`] was made.
    pub elapsed: Duration,
    pub kind: RunEvent<'a>,
}

/// What happens during a run or a verify session, as it happens.
#[derive(Debug, Clone, Copy)]
pub enum RunEvent<'a> {
    /// The run begins: `cells` cells are planned.
    RunStarted { cells: usize },
    /// The run is over: every cell finished, or the stop flag ended it (`interrupted`); the
    /// generator's ceiling measured again at the end, when it was.
    RunFinished {
        interrupted: bool,
        drift: Option<&'a Drift>,
    },
    /// A subject, a scenario of it or one of its cells entered a new step.
    Step { at: At<'a>, step: Step },
    /// Progress of the current load, as a fraction 0..1.
    LoadProgress(f64),
    /// The generator was calibrated again during the run: its best ceiling so far.
    Calibrated { ceiling_rps: f64 },
    /// A cell is finished (measured, failed or skipped): `done` of the run's `total`.
    CellDone {
        cell: &'a Cell,
        done: usize,
        total: usize,
    },
    /// A round of a group ended: `round` (from 1) of at least `min_rounds` and at most
    /// `max_rounds`, with `unsettled` of its `pairs` still beyond the target; `done` is the
    /// run's estimated share of work finished (0..1), for an ETA.
    RoundDone {
        workload: Workload,
        scenario: Scenario,
        protocol: Protocol,
        round: u32,
        min_rounds: u32,
        max_rounds: u32,
        measured: usize,
        pairs: usize,
        unsettled: usize,
        /// The run has a target (`--target-ci`): without one nothing is "settled".
        targeted: bool,
        /// The widest paired req/s interval, as a fraction (`0.03`), once there are pairs.
        widest: Option<f64>,
        done: f64,
    },
    /// A group's rounds are over: the order of every round, the paired ratios, the rankings.
    GroupDone(&'a GroupRounds),
    /// Something worth a line of its own.
    Note(&'a str),
    /// Verify: a tool the subject needs is missing here.
    SubjectSkipped { subject: &'a str, reason: &'a str },
    /// Verify: the subject could not be built or started; every workload it serves failed.
    SubjectFailed { subject: &'a str, reason: &'a str },
    /// Verify: one workload of a subject was checked.
    Verified(&'a VerifyOutcome),
    /// A subject's conformance cases, run or taken from the cache (`cached`: when they were
    /// checked).
    Conformed {
        conformance: &'a SubjectConformance,
        cached: Option<&'a str>,
    },
}

/// Where a step happens: a subject (while building), one of its scenarios (starting), or a cell.
#[derive(Debug, Clone, Copy)]
pub struct At<'a> {
    pub subject: &'a str,
    pub scenario: Option<Scenario>,
    pub workload: Option<Workload>,
}

impl<'a> At<'a> {
    pub fn subject(subject: &'a str) -> Self {
        Self {
            subject,
            scenario: None,
            workload: None,
        }
    }
    pub fn scenario(subject: &'a str, scenario: Scenario) -> Self {
        Self {
            scenario: Some(scenario),
            ..Self::subject(subject)
        }
    }
    pub fn cell(subject: &'a str, scenario: Scenario, workload: Workload) -> Self {
        Self {
            workload: Some(workload),
            ..Self::scenario(subject, scenario)
        }
    }
}

/// The steps of a cell, in the order they come.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    Building,
    Starting,
    /// The conformance cases (how the server reads HTTP), once per build of a subject.
    Conformance,
    /// A scenario's common checks (no protocol), or one cell's over its protocol.
    Verifying(Option<Protocol>),
    /// The server started afresh for the next group of repeats (`--restarts`).
    Restarting {
        process: u32,
        processes: u32,
    },
    WarmingUp,
    /// Repeat `i` (from 1) of `n`.
    Measuring {
        i: u32,
        n: u32,
    },
    /// The short discarded slice before a round's measured one.
    Rewarming,
    CapacityProbe,
    /// Capacity search step `n` (from 1), loading at `rate` req/s.
    CapacityStep {
        n: u32,
        rate: f64,
    },
    EqualLoad {
        rate: f64,
    },
    /// The profiling slice after the measured repeats (`--profile`).
    Profiling,
}

impl fmt::Display for Step {
    /// The step as the terminal shows it (`verifying h2c`, `measuring 2/3`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Step::Building => f.write_str("building"),
            Step::Starting => f.write_str("starting"),
            Step::Conformance => f.write_str("conformance"),
            Step::Verifying(None | Some(Protocol::H1)) => f.write_str("verifying"),
            Step::Verifying(Some(protocol)) => write!(f, "verifying {protocol}"),
            Step::Restarting { process, processes } => {
                write!(f, "restarting ({process}/{processes})")
            }
            Step::WarmingUp => f.write_str("warming up"),
            Step::Measuring { i, n } => write!(f, "measuring {i}/{n}"),
            Step::Rewarming => f.write_str("re-warming"),
            Step::CapacityProbe => f.write_str("capacity: closed-loop probe"),
            Step::CapacityStep { n, rate } => write!(f, "capacity step {n} at {rate:.0}/s"),
            Step::EqualLoad { rate } => write!(f, "equal load at {rate:.0}/s"),
            Step::Profiling => f.write_str("profiling"),
        }
    }
}

/// The generator's ceiling measured again at the end of a run, against the run's best.
#[derive(Debug, Clone, PartialEq)]
pub struct Drift {
    pub end_rps: f64,
    /// The best ceiling of the whole run.
    pub ceiling_rps: Option<f64>,
    /// Why the machine looks noisy, when the two differ too much.
    pub noisy_machine: Option<String>,
}

/// A consumer of events. Any `Fn(&Event)` is one.
pub trait Observer {
    fn event(&self, event: &Event);

    /// An observer that can fail (the results file on a full disk) hands its failure over
    /// once; the run ends at its next cell with that error.
    fn failure(&self) -> Option<HarnessError> {
        None
    }
}

impl<F: Fn(&Event)> Observer for F {
    fn event(&self, event: &Event) {
        self(event)
    }
}

/// What a run or session emits through: its observers, and the instant it began.
pub struct Events<'a> {
    began: Instant,
    observers: Vec<&'a dyn Observer>,
}

impl<'a> Events<'a> {
    /// Begins now, with these observers, in the order they are told.
    pub fn new(observers: Vec<&'a dyn Observer>) -> Self {
        Self {
            began: Instant::now(),
            observers,
        }
    }

    /// No observer: for callers that watch nothing.
    pub fn none() -> Self {
        Self::new(Vec::new())
    }

    /// Stamps `kind` with the time and tells every observer.
    pub fn emit(&self, kind: RunEvent) {
        let event = Event {
            at: SystemTime::now(),
            elapsed: self.began.elapsed(),
            kind,
        };
        for o in &self.observers {
            o.event(&event);
        }
    }

    /// Shorthand for a [`RunEvent::Note`].
    pub fn note(&self, message: &str) {
        self.emit(RunEvent::Note(message));
    }

    /// The first failure an observer has handed over, if any.
    pub fn failure(&self) -> Option<HarnessError> {
        self.observers.iter().find_map(|o| o.failure())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_read_as_the_terminal_shows_them() {
        let shown = [
            (Step::Verifying(None), "verifying"),
            (Step::Conformance, "conformance"),
            (Step::Verifying(Some(Protocol::H1)), "verifying"),
            (Step::Verifying(Some(Protocol::H2c)), "verifying h2c"),
            (
                Step::Restarting {
                    process: 2,
                    processes: 3,
                },
                "restarting (2/3)",
            ),
            (Step::Measuring { i: 1, n: 3 }, "measuring 1/3"),
            (
                Step::CapacityStep { n: 4, rate: 1234.4 },
                "capacity step 4 at 1234/s",
            ),
            (Step::EqualLoad { rate: 500.0 }, "equal load at 500/s"),
        ];
        for (step, text) in shown {
            assert_eq!(step.to_string(), text);
        }
    }

    #[test]
    fn every_observer_sees_one_event_with_one_time() {
        use std::cell::RefCell;
        let seen: RefCell<Vec<(SystemTime, Duration, String)>> = RefCell::default();
        let a = |e: &Event| {
            if let RunEvent::Note(n) = e.kind {
                seen.borrow_mut().push((e.at, e.elapsed, format!("a {n}")));
            }
        };
        let b = |e: &Event| {
            if let RunEvent::Note(n) = e.kind {
                seen.borrow_mut().push((e.at, e.elapsed, format!("b {n}")));
            }
        };
        let events = Events::new(vec![&a, &b]);
        std::thread::sleep(Duration::from_millis(5));
        events.note("first");
        events.note("second");
        let seen = seen.into_inner();
        let names: Vec<&str> = seen.iter().map(|s| s.2.as_str()).collect();
        assert_eq!(names, ["a first", "b first", "a second", "b second"]);
        assert_eq!((seen[0].0, seen[0].1), (seen[1].0, seen[1].1));
        assert!(seen[0].1 >= Duration::from_millis(5), "{:?}", seen[0].1);
        assert!(seen[2].1 >= seen[0].1);
    }
}
