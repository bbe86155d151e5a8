//! What every report says about a cell, whatever the format: its name in tables and charts, its
//! status word, its efficiency figures, the first line of its failure. A leaf over the model.

use restbench_model::documents::comparison::CellKey;
use restbench_model::{Cell, CellStatus};

/// Workloads whose answers' size is a figure of its own: HttpArena scores compressed JSON by its
/// bytes per answer, and a static or download cell's rate means little without what it moved.
const SIZED_WORKLOADS: [&str; 3] = ["json-gzip", "static", "download"];

/// The sentence under a sized workload's table: each ok cell's bytes per answer, smallest first
/// (`None` for other workloads, or when no cell has the figure).
pub fn bytes_per_answer_line(workload: &str, cells: &[&Cell]) -> Option<String> {
    if !SIZED_WORKLOADS.contains(&workload) {
        return None;
    }
    let labels = cell_labels(cells);
    let mut sized: Vec<(f64, String)> = cells
        .iter()
        .zip(labels)
        .filter(|(c, _)| c.status == CellStatus::Ok)
        .filter_map(|(c, l)| {
            let scenario = if cells.iter().any(|o| o.scenario != c.scenario) {
                format!(" {}", c.scenario)
            } else {
                String::new()
            };
            c.bytes_per_answer
                .map(|b| (b, format!("{}{scenario}", l.label)))
        })
        .collect();
    if sized.is_empty() {
        return None;
    }
    sized.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let list: Vec<String> = sized
        .iter()
        .map(|(b, l)| format!("{l} {}", crate::units::thousands(b.round())))
        .collect();
    Some(format!(
        "Bytes per answer, head and body as read, smallest first: {}.",
        list.join(", ")
    ))
}

/// How a cell is named in tables and charts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellLabel {
    /// The subject, with the variant in brackets when needed: `go-nethttp [GOMAXPROCS=1]`.
    pub label: String,
    /// Set when another cell of the list has the same subject, workload and scenario: the
    /// settings that tell them apart (`GOMAXPROCS=1`).
    pub variant: Option<String>,
}

/// The subject as tables name it: with the protocol when it is not the default h1, so h1 and
/// h2c cells of one subject stand apart (`rust-hyper (h2c)`).
pub fn subject_label(subject: &str, protocol: &str) -> String {
    if protocol.is_empty() || protocol == "h1" {
        subject.to_string()
    } else {
        format!("{subject} ({protocol})")
    }
}

/// A compared cell's subject (with the protocol when not h1), with the variant in brackets when
/// there is one.
pub fn key_label(key: &CellKey) -> String {
    let subject = subject_label(&key.subject, &key.protocol);
    match &key.variant {
        Some(v) => format!("{subject} [{v}]"),
        None => subject,
    }
}

/// Labels for cells; cells that share subject × workload × scenario × protocol get the settings
/// that differ between them as a variant.
///
/// Linear in the cells: each is found in its group through one index, so a grid of 50,000 cells
/// is labelled in one pass (`restbench/tests/it/large_documents.rs`).
pub fn cell_labels(cells: &[&Cell]) -> Vec<CellLabel> {
    let key = |c: &Cell| {
        (
            c.subject.clone(),
            c.workload.clone(),
            c.scenario.clone(),
            c.protocol.clone(),
        )
    };
    let mut groups: std::collections::HashMap<_, Vec<usize>> = std::collections::HashMap::new();
    // Each cell's place in its group, from 1.
    let mut nth = Vec::with_capacity(cells.len());
    for (i, c) in cells.iter().enumerate() {
        let group = groups.entry(key(c)).or_default();
        group.push(i);
        nth.push(group.len());
    }
    // The settings that differ within each group of two or more, computed once per group.
    let mut differing_of: std::collections::HashMap<_, Vec<&String>> =
        std::collections::HashMap::new();
    for (k, group) in &groups {
        if group.len() < 2 {
            continue;
        }
        let mut keys: Vec<&String> = group
            .iter()
            .flat_map(|&j| cells[j].settings.keys())
            .collect();
        keys.sort();
        keys.dedup();
        let first = &cells[group[0]].settings;
        let differing = keys
            .into_iter()
            .filter(|k| {
                group
                    .iter()
                    .any(|&j| cells[j].settings.get(*k) != first.get(*k))
            })
            .collect();
        differing_of.insert(k.clone(), differing);
    }
    cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let k = key(c);
            let subject = subject_label(&c.subject, &c.protocol);
            let Some(differing) = differing_of.get(&k) else {
                return CellLabel {
                    label: subject,
                    variant: None,
                };
            };
            let variant = if differing.is_empty() {
                format!("#{}", nth[i])
            } else {
                differing
                    .iter()
                    .map(|k| match c.settings.get(*k) {
                        Some(v) => format!("{k}={v}"),
                        None => format!("{k} unset"),
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            CellLabel {
                label: format!("{subject} [{variant}]"),
                variant: Some(variant),
            }
        })
        .collect()
}

/// The longest reason a table cell shows, so that one failed build's output cannot widen every
/// row: a longer one is cut there (report.html gives it in full below its table).
pub const FIRST_LINE_CHARS: usize = 160;

/// The first line of a message, cut at [`FIRST_LINE_CHARS`] characters.
pub fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.chars().count() > FIRST_LINE_CHARS {
        format!(
            "{}…",
            line.chars().take(FIRST_LINE_CHARS).collect::<String>()
        )
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

/// The word for a cell's status in tables: `ok`, `failed`, `skipped`, `interrupted`.
pub fn status_word(s: CellStatus) -> &'static str {
    match s {
        CellStatus::Ok => "ok",
        CellStatus::Failed => "failed",
        CellStatus::Skipped => "skipped",
        CellStatus::Interrupted => "interrupted",
    }
}

/// True when a cell's req/s comes from one repeat, so that its spread is unknown (not 0 %):
/// tables show `–` for its cv.
pub fn single_repeat(c: &Cell) -> bool {
    c.repeats.len() == 1 || (c.repeats.is_empty() && c.rps.cv == 0.0)
}

/// A cell's coefficient of variation for tables: `1.2%`, or `–` for a single repeat.
pub fn cv_text(c: &Cell) -> String {
    if single_repeat(c) {
        "–".into()
    } else {
        format!("{:.1}%", c.rps.cv * 100.0)
    }
}

/// The spread between server processes of a cell run with `--restarts 2` or more, for tables:
/// `8.0% over 2 processes`; `None` for a cell measured in one process.
pub fn between_cv_text(c: &Cell) -> Option<String> {
    c.restarts.as_ref().map(|r| {
        format!(
            "{:.1}% over {} processes",
            r.between_cv * 100.0,
            r.processes
        )
    })
}

/// True when some cell was measured over several server processes: tables then show the
/// between-process spread.
pub fn any_restarts(cells: &[&Cell]) -> bool {
    cells.iter().any(|c| c.restarts.is_some())
}

/// Where the run's PostgreSQL ran (`own cluster on CPU 0, the generator's`, `external`), from
/// the first cell that records it; `None` for a run without a database.
pub fn database_place(cells: &[Cell]) -> Option<&str> {
    cells
        .iter()
        .map(|c| c.placement.database.as_str())
        .find(|d| !d.is_empty())
}

/// A cell measured only open loop (`--mode capacity`): no closed-loop figures to show or chart.
pub fn open_loop_only(c: &Cell) -> bool {
    c.repeats.is_empty() && (c.capacity.is_some() || !c.at_rate.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_model::{CellSubject, RestartSpread, Scenario, Workload};

    #[test]
    fn bytes_per_answer_are_listed_for_sized_workloads_only_smallest_first() {
        let mut a = Cell::new(
            &CellSubject::named("a"),
            Workload::JsonGzip,
            Scenario::OneCpu,
        );
        let mut b = Cell::new(
            &CellSubject::named("b"),
            Workload::JsonGzip,
            Scenario::OneCpu,
        );
        let failed = Cell::new(
            &CellSubject::named("c"),
            Workload::JsonGzip,
            Scenario::OneCpu,
        );
        assert_eq!(bytes_per_answer_line("json-gzip", &[&a, &b]), None);
        a.bytes_per_answer = Some(1234.4);
        b.bytes_per_answer = Some(312.0);
        let mut failed = failed;
        failed.status = CellStatus::Failed;
        failed.bytes_per_answer = Some(1.0);
        assert_eq!(
            bytes_per_answer_line("json-gzip", &[&a, &b, &failed]).as_deref(),
            Some("Bytes per answer, head and body as read, smallest first: b 312, a 1,234.")
        );
        assert_eq!(bytes_per_answer_line("todo", &[&a, &b]), None);
    }

    #[test]
    fn restarts_and_database_place_are_read_from_the_cells() {
        let mut a = Cell::new(&CellSubject::named("a"), Workload::Users, Scenario::OneCpu);
        let b = a.clone();
        assert!(between_cv_text(&a).is_none() && !any_restarts(&[&a, &b]));
        assert_eq!(database_place(&[a.clone(), b.clone()]), None);
        a.restarts = RestartSpread::of(&[100.0, 120.0], &[0, 1]);
        assert_eq!(
            between_cv_text(&a).as_deref(),
            Some("12.9% over 2 processes")
        );
        assert!(any_restarts(&[&b, &a]));
        a.placement.database = "external".into();
        assert_eq!(database_place(&[b, a]), Some("external"));
    }
}

#[cfg(test)]
mod protocol_label_tests {
    use super::*;
    use crate::test_support::cell;

    #[test]
    fn h2c_cells_carry_the_protocol_and_are_not_variants_of_h1() {
        let h1 = cell("rust-hyper", "plaintext", "single-thread", 1.0);
        let mut h2c = h1.clone();
        h2c.protocol = "h2c".into();
        let labels = cell_labels(&[&h1, &h2c]);
        assert_eq!(labels[0].label, "rust-hyper");
        assert_eq!(labels[1].label, "rust-hyper (h2c)");
        assert!(labels.iter().all(|l| l.variant.is_none()));
    }
}

/// A cell's p99 as reports show it: `≥ 2.0s` when requests still waiting at the slices' ends
/// reach it (a floor), else the figure.
pub fn p99_text(c: &restbench_model::Cell) -> String {
    let p99 = crate::units::micros_short(c.latency_us.p99 as f64);
    if c.in_flight_at_end.as_ref().is_some_and(|w| w.p99_is_floor) {
        format!("≥ {p99}")
    } else {
        p99
    }
}
