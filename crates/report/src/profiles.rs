//! The cells that carry a profile (`--profile`), grouped by workload in the report's order:
//! what the split tables, the stacked bars and the flame graphs are drawn from.

use restbench_model::{Cell, CellProfile, RunResults};

use crate::cells::subject_label;
use crate::vocabulary::workload_rank;

/// One profiled cell.
pub struct ProfiledCell<'a> {
    /// Subject (and protocol when not h1) and scenario, as a row label.
    pub label: String,
    pub cell: &'a Cell,
    pub profile: &'a CellProfile,
}

/// The profiled cells of `r` by workload (known order first), in each by subject then scenario.
pub fn by_workload(r: &RunResults) -> Vec<(String, Vec<ProfiledCell<'_>>)> {
    let mut workloads: Vec<&str> = r.cells.iter().map(|c| c.workload.as_str()).collect();
    workloads.sort_by_key(|w| (workload_rank(w), w.to_string()));
    workloads.dedup();
    workloads
        .into_iter()
        .filter_map(|w| {
            let mut cells: Vec<ProfiledCell<'_>> = r
                .cells
                .iter()
                .filter(|c| c.workload == w)
                .filter_map(|cell| {
                    Some(ProfiledCell {
                        label: format!(
                            "{} · {}",
                            subject_label(&cell.subject, &cell.protocol),
                            cell.scenario
                        ),
                        cell,
                        profile: cell.profile.as_ref()?,
                    })
                })
                .collect();
            cells.sort_by(|a, b| a.label.cmp(&b.label));
            (!cells.is_empty()).then(|| (w.to_string(), cells))
        })
        .collect()
}

/// The slice's rate against the measured median: how much the profiler cost (1.0 = nothing).
pub fn slice_ratio(cell: &Cell, profile: &CellProfile) -> Option<f64> {
    (cell.rps.median > 0.0).then(|| profile.rps / cell.rps.median)
}
