//! What the history keeps of a cell (`restbench history`): its figures with their intervals,
//! the machine it ran on and the revision it measured, as read back for a timeline or a gate.

use serde::{Deserialize, Serialize};

use crate::Environment;
use crate::statistics::ab_ratios::Measure;

/// The machine facts that move figures: a change of any is marked on a timeline, and the gate
/// compares only points that share them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineFacts {
    pub cpu_model: String,
    pub cores: u32,
    pub kernel: String,
    pub backend: String,
}

impl MachineFacts {
    pub fn of(e: &Environment) -> Self {
        Self {
            cpu_model: e.cpu_model.clone(),
            cores: e.cores,
            kernel: e.kernel.clone(),
            backend: e.backend.clone(),
        }
    }

    /// `Test CPU, 2 cores, kernel 6.1, cgroup-v2`.
    pub fn describe(&self) -> String {
        format!(
            "{}, {} cores, kernel {}, {}",
            self.cpu_model, self.cores, self.kernel, self.backend
        )
    }
}

/// One measure of a stored cell: its figure and, when it had rounds or repeats, its interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredFigure {
    pub measure: Measure,
    pub value: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
}

/// A stored cell, as read back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryPoint {
    /// The run's content hash (its key).
    pub run: String,
    pub started_at: String,
    /// The subject without a revision suffix (`rust-hyper` of `rust-hyper@1a2b3c4`).
    pub subject: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source_hash: String,
    pub workload: String,
    pub scenario: String,
    pub protocol: String,
    pub machine: MachineFacts,
    pub restbench_version: String,
    /// Measured as a duet (`restbench ab`): its servers shared the server CPUs, so its figures
    /// compare only with other duets.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub duet: bool,
    pub figures: Vec<StoredFigure>,
}

impl HistoryPoint {
    pub fn figure(&self, measure: Measure) -> Option<&StoredFigure> {
        self.figures.iter().find(|f| f.measure == measure)
    }
}

/// `rust-hyper@1a2b3c4` → (`rust-hyper`, `Some("1a2b3c4")`); an id without `@` has no revision.
pub fn split_revision(id: &str) -> (&str, Option<&str>) {
    match id.split_once('@') {
        Some((base, rev)) if !rev.is_empty() => (base, Some(rev)),
        _ => (id, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_revision_suffix_is_split_off() {
        assert_eq!(
            split_revision("rust-hyper@1a2b"),
            ("rust-hyper", Some("1a2b"))
        );
        assert_eq!(split_revision("rust-hyper"), ("rust-hyper", None));
        assert_eq!(split_revision("x@"), ("x@", None));
    }
}
