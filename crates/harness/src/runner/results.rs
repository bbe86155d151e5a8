//! The run's `results.json`, written as one observer of the run's events (made by the caller
//! and handed to the run with the others): every finished cell is written at once, so an
//! interrupted run keeps what it finished, and [`RunEvent::RunFinished`] writes it whole.

use std::cell::RefCell;
use std::path::PathBuf;

use restbench_loadgen::{HttpVersion, StopAt};
use restbench_model::vocabulary::time::{rfc3339, utc_now};
use restbench_model::{RunProtocol, RunResults, Unserved, write_results};

use super::plan::RunPlan;
use crate::HarnessError;
use crate::events::{Event, Observer, RunEvent};
use restbench_host::environment;

/// What the plan's subjects state they do not serve of the plan's workloads, once per subject.
fn unserved(plan: &RunPlan) -> Vec<Unserved> {
    let mut out: Vec<Unserved> = Vec::new();
    for entry in &plan.entries {
        for w in &plan.workloads {
            let Some(reason) = entry.subject.unserved.get(w) else {
                continue;
            };
            let seen = |u: &Unserved| u.subject == entry.subject.id && u.workload == w.name();
            if !out.iter().any(seen) {
                out.push(Unserved {
                    subject: entry.subject.id.clone(),
                    workload: w.name().to_string(),
                    reason: reason.clone(),
                });
            }
        }
    }
    out
}

/// The document of a run, kept on disk as it grows.
pub struct ResultsFile {
    dir: PathBuf,
    results: RefCell<RunResults>,
    /// Cells in the last results.json that was written whole.
    saved: std::cell::Cell<usize>,
    /// The first write that failed, until the run takes it ([`Observer::failure`]).
    failed: RefCell<Option<HarnessError>>,
}

impl ResultsFile {
    /// Creates the run's folder and writes the document with no cells yet: the machine, the
    /// toolchains of the subjects available here and the protocol the plan measures with.
    pub fn create(plan: &RunPlan) -> Result<Self, HarnessError> {
        std::fs::create_dir_all(&plan.out_dir).map_err(|source| {
            HarnessError::io(format!("cannot create {}", plan.out_dir.display()), source)
        })?;
        let results = RunResults {
            schema_version: <RunResults as restbench_model::Document>::SCHEMA_VERSION,
            kind: plan.kind.clone(),
            started_at: utc_now(),
            finished_at: None,
            interrupted: false,
            environment: run_environment(plan),
            protocol: run_protocol(plan),
            cells: Vec::new(),
            study: plan.study.clone(),
            noisy_machine: None,
            conformance: Vec::new(),
            groups: Vec::new(),
            unserved: unserved(plan),
        };
        let file = Self {
            dir: plan.out_dir.clone(),
            results: RefCell::new(results),
            saved: std::cell::Cell::new(0),
            failed: RefCell::new(None),
        };
        file.write()?;
        Ok(file)
    }

    /// Takes in what an event changes in the document (a finished cell, a new ceiling, the
    /// end of the run).
    fn report(&self, event: &Event) -> Result<(), HarnessError> {
        let mut results = self.results.borrow_mut();
        match &event.kind {
            RunEvent::CellDone { cell, .. } => results.cells.push((*cell).clone()),
            RunEvent::Conformed { conformance, .. } => {
                results.conformance.push((*conformance).clone())
            }
            RunEvent::GroupDone(group) => {
                results.groups.push((*group).clone());
                // The run's verdicts are one family: each group's pairs corrected with the
                // others' (Holm), and every ranking drawn again from the corrected pairs.
                restbench_model::statistics::rounds::correct_groups(&mut results.groups);
            }
            RunEvent::Calibrated { ceiling_rps } => {
                results.environment.loadgen_ceiling_rps = Some(*ceiling_rps);
                return Ok(());
            }
            RunEvent::RunFinished { interrupted, drift } => {
                results.interrupted = *interrupted;
                if let Some(drift) = drift {
                    results.environment.loadgen_ceiling_end_rps = Some(drift.end_rps);
                    results.environment.loadgen_ceiling_rps = drift.ceiling_rps;
                    results.noisy_machine = drift.noisy_machine.clone();
                }
                let secs = event
                    .at
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs() as i64);
                results.finished_at = Some(rfc3339(secs));
            }
            _ => return Ok(()),
        }
        drop(results);
        self.write()
    }

    /// The document as it stands (whole once the run has finished), or the write that failed.
    pub fn into_results(self) -> Result<RunResults, HarnessError> {
        match self.failed.into_inner() {
            Some(e) => Err(e),
            None => Ok(self.results.into_inner()),
        }
    }

    /// Replaces results.json atomically: when that fails (a full disk), the last good one is
    /// kept whole and the error names the cells it does not hold.
    fn write(&self) -> Result<(), HarnessError> {
        let results = self.results.borrow();
        match write_results(&self.dir, &results) {
            Ok(()) => {
                self.saved.set(results.cells.len());
                Ok(())
            }
            Err(e) => {
                let unsaved: Vec<String> = (results.cells.get(self.saved.get()..))
                    .unwrap_or_default()
                    .iter()
                    .map(|c| format!("{} {} {} {}", c.subject, c.workload, c.scenario, c.protocol))
                    .collect();
                let what = if unsaved.is_empty() {
                    String::new()
                } else {
                    format!("; not saved: {}", unsaved.join(", "))
                };
                let kept = format!(
                    "{what} (the last results.json written whole, with {} cells, is kept)",
                    self.saved.get()
                );
                Err(match e {
                    restbench_model::DocumentError::Write { path, source } => HarnessError::io(
                        format!("cannot write results to {}{kept}", path.display()),
                        source,
                    ),
                    other => other.into(),
                })
            }
        }
    }
}

/// The machine, the calibrated ceiling and the versions of the toolchains of the subjects
/// available here.
fn run_environment(plan: &RunPlan) -> restbench_model::Environment {
    let mut env = environment::describe(&plan.placement, &plan.backend);
    env.loadgen_ceiling_rps = plan.loadgen_ceiling_rps;
    env.loadgen_ceiling_start_rps = plan.loadgen_ceiling_rps;
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
    env
}

/// The load shape and repeats every cell of the plan is measured with.
fn run_protocol(plan: &RunPlan) -> RunProtocol {
    RunProtocol {
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
        rounds: plan.rounds.clone(),
        explain: plan.explain,
    }
}

impl Observer for ResultsFile {
    fn event(&self, event: &Event) {
        if let Err(e) = self.report(event) {
            self.failed.borrow_mut().get_or_insert(e);
        }
    }

    fn failure(&self) -> Option<HarnessError> {
        self.failed.borrow_mut().take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_testkit::fixtures::{cell, run_results};

    /// A results file in `dir` holding `cells`, as if written before.
    fn file(dir: &std::path::Path) -> ResultsFile {
        ResultsFile {
            dir: dir.to_path_buf(),
            results: RefCell::new(run_results(Vec::new())),
            saved: std::cell::Cell::new(0),
            failed: RefCell::new(None),
        }
    }

    #[test]
    fn a_failed_write_keeps_the_last_good_document_and_names_the_unsaved_cell() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = file(dir.path());
        f.results
            .borrow_mut()
            .cells
            .push(cell("kept-subject", 100.0));
        f.write().unwrap();
        // A folder that cannot take the temporary file (here: not a folder at all) fails every
        // write, as a full disk does; the model's tests inject the failing writer itself.
        let not_a_folder = dir.path().join("results.json");
        f.dir = not_a_folder.clone();
        f.results
            .borrow_mut()
            .cells
            .push(cell("lost-subject", 200.0));
        let e = f.write().unwrap_err().to_string();
        assert!(e.contains("not saved: lost-subject "), "{e}");
        assert!(!e.contains("kept-subject"), "{e}");
        assert!(e.contains("with 1 cells, is kept"), "{e}");
        // The last good document is untouched.
        let kept = restbench_model::read_results(&not_a_folder).unwrap();
        assert_eq!(kept.cells.len(), 1);
    }
}
