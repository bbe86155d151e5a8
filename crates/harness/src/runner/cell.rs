//! One cell of a run (subject × scenario × workload × protocol) against a started server: its
//! context and its verification; its open-loop measures (`open_loop`) and closed-loop slices
//! (`measure`, in its group's rounds) take it.

use std::sync::atomic::{AtomicBool, Ordering};

use restbench_model::{Cell, CellStatus, Finding, FindingLevel, Protocol, Scenario, Workload};

use super::plan::RunPlan;
use crate::events::{At, Events, RunEvent, Step};
use crate::serve::ServerLocation;
use crate::serve::start::{RunningSubject, StartOptions};
use restbench_db::Database;
use restbench_subject::Subject;
use restbench_verify as verify;

/// Everything one cell's steps need: the plan, the cell's coordinates, its server, the stop
/// flag and whoever watches.
pub struct CellRun<'a> {
    pub plan: &'a RunPlan,
    pub subject: &'a Subject,
    pub scenario: Scenario,
    pub workload: Workload,
    pub protocol: Protocol,
    /// May be a new process between two slices of the cell's rounds (`--restarts`).
    pub server: &'a mut RunningSubject,
    /// How `server` was started, for a restart.
    pub options: &'a StartOptions<'a>,
    /// Where `server` runs, to read its usage there.
    pub location: &'a dyn ServerLocation,
    pub stop: &'a AtomicBool,
    pub observer: &'a Events<'a>,
}

impl CellRun<'_> {
    /// Says that the cell entered `step`.
    pub fn step(&self, step: Step) {
        let at = At::cell(&self.subject.id, self.scenario, self.workload);
        self.observer.emit(RunEvent::Step { at, step });
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The cell with the scenario's `common` findings over its protocol and the workload's own;
    /// failed when a check failed. A TechEmpower type's Date check is left in `dates`, for
    /// [`date_checked`] once the group's other cells are verified.
    pub fn verify(
        &self,
        common: &[Finding],
        db: Option<&Database>,
        dates: &mut verify::DateChecks,
    ) -> Cell {
        self.step(Step::Verifying(Some(self.protocol)));
        let mut findings = common.to_vec();
        findings.extend(verify::workload_deferring(
            self.server.addr,
            self.workload,
            self.protocol,
            db,
            dates,
        ));
        let mut cell = Cell::new(&self.subject.cell_subject(), self.workload, self.scenario);
        cell.workload = self.workload.cell_label(self.plan.shape.pipeline);
        let run_connections = self.plan.shape.connections;
        let held = self.workload.connections_under(run_connections);
        cell.connections = (held != run_connections).then_some(held);
        cell.protocol = self.protocol.name().into();
        cell.settings = self.server.settings.clone();
        cell.findings = findings;
        judged(&mut cell);
        cell
    }
}

/// `cell` with the findings of its Date checks added; failed when one of them failed.
pub fn date_checked(cell: &mut Cell, findings: Vec<Finding>) {
    cell.findings.extend(findings);
    judged(cell);
}

/// Failed, with the first failure as its reason, when a finding failed.
fn judged(cell: &mut Cell) {
    if cell.status == CellStatus::Failed || verify::passed(&cell.findings) {
        return;
    }
    let first = cell
        .findings
        .iter()
        .find(|f| f.level == FindingLevel::Fail)
        .map(|f| f.message.clone())
        .unwrap_or_default();
    cell.status = CellStatus::Failed;
    cell.reason = Some(format!("verification failed: {first}"));
}
