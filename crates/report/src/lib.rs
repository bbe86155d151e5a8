//! restbench's exporters: the same results as terminal text, Markdown and HTML.
//!
//! Everything here is a pure function of the model's documents, so a report can be rendered again
//! from `results.json` at any time (`restbench report DIR`).
//!
//! The modules form layers, each using only those above it:
//! - leaves: [`escape`], [`units`], [`noise`], [`cells`], [`vocabulary`];
//! - computing (data in, data out, no markup): [`mod@compare`], [`ratios`], [`open_loop`];
//! - rendering: [`text`], [`capacity_text`], [`markdown`], [`html`].

pub mod capacity_text;
pub mod cells;
pub mod compare;
pub mod escape;
pub mod html;
pub mod markdown;
pub mod noise;
pub mod open_loop;
pub mod ratios;
pub mod text;
pub mod units;
pub mod vocabulary;

pub use cells::{CellLabel, cell_labels, first_line, per_cpu_second, per_mb};
pub use compare::{Comparison, compare};

#[cfg(test)]
pub(crate) mod test_support {
    use restbench_model::{Cell, CellSubject, RpsStats};

    /// A measured cell with a tight confidence interval (±0.5 %).
    pub fn cell(subject: &str, workload: &str, scenario: &str, rps: f64) -> Cell {
        let who = CellSubject {
            id: subject.into(),
            language: "x".into(),
            framework: subject.into(),
            framework_version: "1".into(),
        };
        let workload = workload.parse().expect("a workload name");
        let scenario = scenario.parse().expect("a scenario name");
        Cell {
            rps: RpsStats {
                median: rps,
                min: rps * 0.99,
                max: rps * 1.01,
                cv: 0.005,
                ci95: Some([rps * 0.995, rps * 1.005]),
            },
            requests: 1000,
            ..Cell::new(&who, workload, scenario)
        }
    }
}
