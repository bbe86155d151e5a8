//! restbench's exporters: the same results as terminal text, Markdown and HTML.
//!
//! Everything here is a pure function of the model's documents, so a report can be rendered again
//! from `results.json` at any time (`restbench report DIR`).

pub mod compare;
pub mod html;
pub mod markdown;
pub mod ratios;
pub mod svg;
pub mod text;
pub mod units;

use restbench_model::Cell;

pub use compare::{Comparison, compare};

/// How a cell is named in tables and charts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellLabel {
    /// The subject, with the variant in brackets when needed: `go-nethttp [GOMAXPROCS=1]`.
    pub label: String,
    /// Set when another cell of the list has the same subject, workload and scenario: the
    /// settings that tell them apart (`GOMAXPROCS=1`).
    pub variant: Option<String>,
}

/// Labels for cells; cells that share subject × workload × scenario get the settings that differ
/// between them as a variant.
pub fn cell_labels(cells: &[&Cell]) -> Vec<CellLabel> {
    let same = |a: &Cell, b: &Cell| {
        a.subject == b.subject && a.workload == b.workload && a.scenario == b.scenario
    };
    cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let group: Vec<(usize, &Cell)> = cells
                .iter()
                .enumerate()
                .filter(|(_, d)| same(c, d))
                .map(|(j, d)| (j, *d))
                .collect();
            if group.len() < 2 {
                return CellLabel {
                    label: c.subject.clone(),
                    variant: None,
                };
            }
            let mut keys: Vec<&String> =
                group.iter().flat_map(|(_, d)| d.settings.keys()).collect();
            keys.sort();
            keys.dedup();
            let differing: Vec<String> = keys
                .into_iter()
                .filter(|k| {
                    let first = group[0].1.settings.get(*k);
                    group.iter().any(|(_, d)| d.settings.get(*k) != first)
                })
                .map(|k| match c.settings.get(k) {
                    Some(v) => format!("{k}={v}"),
                    None => format!("{k} unset"),
                })
                .collect();
            let variant = if differing.is_empty() {
                let n = group.iter().position(|(j, _)| *j == i).unwrap_or(0) + 1;
                format!("#{n}")
            } else {
                differing.join(", ")
            };
            CellLabel {
                label: format!("{} [{variant}]", c.subject),
                variant: Some(variant),
            }
        })
        .collect()
}

/// The first line of a message, cut at 160 characters.
pub fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.chars().count() > 160 {
        format!("{}…", line.chars().take(160).collect::<String>())
    } else {
        line.to_string()
    }
}

/// Requests served per second of server CPU time.
pub fn per_cpu_second(c: &Cell) -> Option<f64> {
    if c.server.cpu_us_per_req > 0.0 {
        Some(1e6 / c.server.cpu_us_per_req)
    } else if c.server.cpu_cores > 0.0 {
        Some(c.rps.median / c.server.cpu_cores)
    } else {
        None
    }
}

/// Requests per second per MB (MiB) of peak resident memory.
pub fn per_mb(c: &Cell) -> Option<f64> {
    (c.server.rss_peak_bytes > 0)
        .then(|| c.rps.median / (c.server.rss_peak_bytes as f64 / (1024.0 * 1024.0)))
}

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
