//! The summary of a run for a terminal: one aligned row per cell, fitted into the terminal's
//! width.

use std::fmt::Write;

use restbench_model::{Cell, CellStatus};

use super::table::{Column, Sacrifice, TextTable, wrap};
use crate::cells::{cell_labels, cv_text, first_line, per_cpu_second, per_mb, status_word};
use crate::conformance::{conformant_first, nonconformant_subjects, ranked_apart};
use crate::units::{bytes_short, compact, micros_short, thousands};

/// The width a table gets when the terminal's is unknown (output to a file or a pipe): a
/// terminal's usual width, so that a log read later in one still fits.
pub const DEFAULT_WIDTH: usize = 80;

/// The width to fit a table into: `COLUMNS` when it holds a positive number, else the terminal's
/// (`tty_columns`, from the ioctl, when stdout is a terminal), else [`DEFAULT_WIDTH`].
pub fn table_width(columns_env: Option<&str>, tty_columns: Option<u16>) -> usize {
    columns_env
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|c| *c > 0)
        .or_else(|| tty_columns.filter(|c| *c > 0).map(usize::from))
        .unwrap_or(DEFAULT_WIDTH)
}

/// The cell table in display order; the drop ranks say what goes first when space runs out:
/// efficiency ratios, then µs/req and memory, p50, cv, CPU, errors (the `errors` flag stays in
/// the notes), then the ±95 % over the rounds (shown only for runs measured in rounds; the
/// rankings under the table repeat it). Name, workload, scenario, req/s (or the status of a cell not measured), p99 and
/// notes always stay; notes and names are cut instead, and a notes column nobody fills is left
/// out.
const CELL_COLUMNS: [Column; N] = [
    Column::left("subject").min_width(12),
    Column::left("workload"),
    Column::left("scenario"),
    Column::right("req/s"),
    Column::right("cv").drop_rank(6),
    Column::right("±95%").drop_rank(3).omitted_when_empty(),
    Column::right("p50").drop_rank(7),
    Column::right("p99"),
    Column::right("errors").drop_rank(4),
    Column::right("CPU").drop_rank(5),
    Column::right("µs/req").drop_rank(8),
    Column::right("RSS peak").drop_rank(8),
    Column::right("req/CPU-s").drop_rank(9),
    Column::right("req/s/MB").drop_rank(10),
    Column::left("notes").min_width(12).omitted_when_empty(),
];

const N: usize = 15;
/// The ±95 % column: the half-width of a cell's interval over its rounds.
const INTERVAL: usize = 5;
const NOTES: usize = N - 1;

/// Widest the notes column starts at before anything is dropped: a failure's first line can be
/// long, and report.md has it in full.
const NOTES_START: usize = 40;
/// Notes are cut to this before the figures of the second rank go (two flags fit).
const NOTES_MIDDLE: usize = 24;

/// In order until the table fits: long notes are cut to [`NOTES_START`], the least important
/// columns go, notes are cut further, the next columns go; last notes and names are cut to their
/// minimum.
const SACRIFICES: [Sacrifice; 10] = [
    Sacrifice::Narrow {
        column: NOTES,
        width: NOTES_START,
    },
    Sacrifice::Drop(10),
    Sacrifice::Drop(9),
    Sacrifice::Drop(8),
    Sacrifice::Narrow {
        column: NOTES,
        width: NOTES_MIDDLE,
    },
    Sacrifice::Drop(7),
    Sacrifice::Drop(6),
    Sacrifice::Drop(5),
    Sacrifice::Drop(4),
    Sacrifice::Drop(3),
];

/// A cell not measured: its name, its status in the req/s column and its reason in the notes.
fn unmeasured_values(c: &Cell, label: &str, intervals: bool) -> Vec<String> {
    let mut v = vec!["–".to_string(); N];
    if !intervals {
        v[INTERVAL] = String::new();
    }
    v[0] = label.to_string();
    v[1] = c.workload.clone();
    v[2] = c.scenario.clone();
    v[3] = status_word(c.status).to_string();
    v[NOTES] = first_line(c.reason.as_deref().unwrap_or(""));
    v
}

/// A server figure, or a dash when it was not measured (0).
fn positive(v: f64, show: impl Fn(f64) -> String) -> String {
    if v > 0.0 { show(v) } else { "–".to_string() }
}

/// A cell's ±95 % over its rounds; `–` without one in a run that has some, "" in a run without
/// any (the column is then left out, as before rounds).
fn interval_value(c: &Cell, intervals: bool) -> String {
    match &c.intervals {
        Some(i) => format!("±{:.1}%", i.rps.relative_half_width() * 100.0),
        None if intervals => "–".into(),
        None => String::new(),
    }
}

fn cell_values(c: &Cell, label: &str, intervals: bool) -> Vec<String> {
    if c.status != CellStatus::Ok {
        return unmeasured_values(c, label, intervals);
    }
    let dash = || "–".to_string();
    let s = &c.server;
    vec![
        label.to_string(),
        c.workload.clone(),
        c.scenario.clone(),
        thousands(c.rps.median),
        cv_text(c),
        interval_value(c, intervals),
        micros_short(c.latency_us.p50 as f64),
        crate::cells::p99_text(c),
        thousands(c.errors.total() as f64),
        positive(s.cpu_cores, |v| format!("{v:.2}")),
        positive(s.cpu_us_per_req, |v| format!("{v:.1}")),
        positive(s.rss_peak_bytes as f64, bytes_short),
        per_cpu_second(c).map_or_else(dash, compact),
        per_mb(c).map_or_else(dash, compact),
        c.flags.join(", "),
    ]
}

/// The summary of a run for a terminal: one aligned row per cell (nonconformant ones last), fitted into `width` characters
/// by cutting long notes and names and dropping the least important columns (named under the
/// table; report.md has them all). A table that cannot fit even so keeps its essential columns.
pub fn cell_table(cells: &[&Cell], width: usize) -> String {
    // The run's order, but nonconformant cells after the others (a stable sort keeps the rest).
    let mut cells = cells.to_vec();
    cells.sort_by(|a, b| conformant_first(a, b));
    let cells = &cells[..];
    let labels = cell_labels(cells);
    let intervals = cells.iter().any(|c| c.intervals.is_some());
    let rows = cells
        .iter()
        .zip(&labels)
        .map(|(c, l)| cell_values(c, &l.label, intervals))
        .collect();
    let fitted = TextTable::new(&CELL_COLUMNS, rows).fit(width, &SACRIFICES);
    let mut o = String::new();
    for l in &fitted.lines {
        let _ = writeln!(o, "{l}");
    }
    if !fitted.dropped.is_empty() {
        let note = format!(
            "(not shown at {width} columns: {}; report.md has every column)",
            fitted.dropped.join(", ")
        );
        for l in wrap(&note, width) {
            let _ = writeln!(o, "{l}");
        }
    }
    if let Some(why) = ranked_apart(&nonconformant_subjects(cells.iter().copied())) {
        for l in wrap(&crate::escape::terminal(&why), width) {
            let _ = writeln!(o, "{l}");
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::cell;

    fn cells() -> Vec<Cell> {
        let mut a = cell("rust-axum", "plaintext", "single-thread", 120_345.0);
        a.latency_us.p50 = 442;
        a.latency_us.p99 = 1_830;
        a.flags = vec!["client_bound".into()];
        let mut c = cell("node-express-cluster", "plaintext", "all-cores", 0.0);
        c.status = CellStatus::Failed;
        c.reason = Some(
            "build failed: npm ci exited with status 1 after fetching 312 packages from the registry"
                .into(),
        );
        vec![
            a,
            cell(
                "java-spring-boot-webflux",
                "plaintext",
                "all-cores",
                40_000.0,
            ),
            c,
        ]
    }

    #[test]
    fn the_cell_table_fits_every_width_it_is_given() {
        let cells = cells();
        let refs: Vec<&Cell> = cells.iter().collect();
        for width in [40, 80, 100, 120, 200] {
            let t = cell_table(&refs, width);
            if width >= 80 {
                for l in t.lines() {
                    assert!(l.chars().count() <= width, "{width}: {l:?}\n{t}");
                }
            }
            // The essentials stay at any width, even one too narrow for them.
            for needed in [
                "req/s",
                "p99",
                "120,345",
                "1.83 ms",
                "failed",
                "java-spring",
            ] {
                assert!(t.contains(needed), "{width}: {needed}\n{t}");
            }
        }
    }

    #[test]
    fn the_cell_table_reads_as_people_write() {
        let cells = cells();
        let refs: Vec<&Cell> = cells.iter().collect();
        let t = cell_table(&refs, 200);
        assert!(!t.contains("442.00us") && !t.contains('|'), "{t}");
        assert!(t.lines().all(|l| l == l.trim_end()), "{t}");
        // Columns are aligned: every row's p99 ends where the header's does.
        let head = t.lines().next().unwrap();
        let axum = t.lines().find(|l| l.contains("rust-axum")).unwrap();
        let end = |l: &str, needle: &str| {
            l.find(needle)
                .map(|i| l[..i].chars().count() + needle.chars().count())
        };
        assert_eq!(end(head, "p99"), end(axum, "1.83 ms"), "{t}");
    }

    #[test]
    fn the_width_comes_from_columns_then_the_terminal_then_a_default() {
        assert_eq!(table_width(Some("132"), Some(80)), 132);
        assert_eq!(table_width(Some("junk"), Some(80)), 80);
        assert_eq!(table_width(Some("0"), None), DEFAULT_WIDTH);
        assert_eq!(table_width(None, None), DEFAULT_WIDTH);
    }
}
