//! The interface between a run (or a verify session) and whoever watches it: the runner says what
//! happens as [`RunEvent`]s and never how it is shown. The terminal display, `restbench
//! verify`'s printer and the run's `results.json` writer are consumers of the same events.

use std::fmt;

use restbench_model::{
    Cell, GroupRounds, Protocol, Scenario, SubjectConformance, VerifyOutcome, Workload,
};

/// What happens during a run or a verify session, as it happens.
#[derive(Debug, Clone, Copy)]
pub enum RunEvent<'a> {
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
    /// A subject's conformance cases, run or taken from the cache (`cached`).
    Conformed {
        conformance: &'a SubjectConformance,
        cached: bool,
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

/// A consumer of events. Any `Fn(&RunEvent)` is one.
pub trait Observer {
    fn event(&self, event: &RunEvent);

    /// Shorthand for a [`RunEvent::Note`].
    fn note(&self, message: &str) {
        self.event(&RunEvent::Note(message));
    }
}

impl<F: Fn(&RunEvent)> Observer for F {
    fn event(&self, event: &RunEvent) {
        self(event)
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
}
