//! `restbench compare` for a terminal: two runs, or two load results, as aligned columns.

use std::fmt::Write;

use restbench_model::documents::comparison::{Comparison, LoadComparison};

use super::DEFAULT_WIDTH;
use super::table::{Column, Sacrifice, TextTable, wrap};
use crate::cells::key_label;
use crate::escape::terminal;
use crate::lines::{
    comparison_heading, comparison_rows, comparison_summary, load_label, load_verdict_line,
    metric_value,
};
use crate::units::ratio;

const LOAD_COLUMNS: [Column; 4] = [
    Column::left("metric"),
    Column::right("A"),
    Column::right("B"),
    Column::right("B÷A"),
];

/// [`load_comparison_at`] for a terminal of the default width.
pub fn load_comparison(c: &LoadComparison) -> String {
    load_comparison_at(c, DEFAULT_WIDTH)
}

/// Two load results, their text broken to `width`: the loads, one aligned line per figure with
/// B ÷ A, the verdict.
pub fn load_comparison_at(c: &LoadComparison, width: usize) -> String {
    let mut o = String::new();
    push_wrapped(&mut o, &format!("A: {}", load_label(&c.a)), width, "   ");
    push_wrapped(&mut o, &format!("B: {}", load_label(&c.b)), width, "   ");
    if !c.differences.is_empty() {
        let line = format!(
            "The loads differ ({}): the ratios mix the server's change with the load's.",
            terminal(&c.differences.join(", "))
        );
        push_wrapped(&mut o, &line, width, "");
    }
    o.push('\n');
    let rows = c
        .metrics
        .iter()
        .map(|m| {
            vec![
                m.metric.clone(),
                metric_value(m, m.a),
                metric_value(m, m.b),
                m.ratio.map_or("–".into(), ratio),
            ]
        })
        .collect();
    for l in TextTable::new(&LOAD_COLUMNS, rows).lines() {
        let _ = writeln!(o, "{l}");
    }
    o.push('\n');
    push_wrapped(&mut o, &load_verdict_line(c), width, "");
    o
}

/// The ratio columns are headed by their figure alone (the values end in `×`; the last line
/// says they are B ÷ A). On a narrow terminal the p99 and CPU ratios go first, then B's req/s
/// (the ratio says it), then A's, then names are cut; the interval of the req/s ratio stays.
const RUN_COLUMNS: [Column; 10] = [
    Column::left("subject").min_width(14),
    Column::left("workload"),
    Column::left("scenario"),
    Column::right("A req/s").drop_rank(3),
    Column::right("B req/s").drop_rank(2),
    Column::right("req/s"),
    Column::right("95 % interval").omitted_when_empty(),
    Column::right("p99").drop_rank(1),
    Column::right("CPU/req").drop_rank(1),
    Column::left("verdict"),
];

const RUN_SACRIFICES: [Sacrifice; 3] = [Sacrifice::Drop(1), Sacrifice::Drop(2), Sacrifice::Drop(3)];

/// `line` broken at spaces to `width`: its own indent kept, continuations indented by `indent`.
fn push_wrapped(o: &mut String, line: &str, width: usize, indent: &str) {
    let text = line.trim_start();
    let lead = &line[..line.len() - text.len()];
    let room = width.saturating_sub(lead.len().max(indent.len()));
    for (i, part) in wrap(text, room).iter().enumerate() {
        let _ = writeln!(o, "{}{part}", if i == 0 { lead } else { indent });
    }
}

/// [`comparison_at`] for a terminal of the default width.
pub fn comparison(c: &Comparison) -> String {
    comparison_at(c, DEFAULT_WIDTH)
}

/// Two runs fitted into `width`: where each came from, the verdict counts, one aligned line per
/// cell (its note under it), the open-loop lines and the cells found in only one run.
pub fn comparison_at(c: &Comparison, width: usize) -> String {
    let mut o = String::new();
    for line in comparison_heading(c) {
        push_wrapped(&mut o, &line, width, "   ");
    }
    push_wrapped(&mut o, &comparison_summary(c), width, "");
    o.push('\n');
    let rows = comparison_rows(c).into_iter().map(Vec::from).collect();
    let fitted = TextTable::new(&RUN_COLUMNS, rows).fit(width, &RUN_SACRIFICES);
    let _ = writeln!(o, "{}", fitted.lines[0]);
    for (l, cell) in fitted.lines[1..].iter().zip(&c.cells) {
        let _ = writeln!(o, "{l}");
        if let Some(n) = &cell.note {
            push_wrapped(&mut o, &format!("  ({})", terminal(n)), width, "   ");
        }
    }
    if !fitted.dropped.is_empty() {
        let note = format!(
            "(not shown at {width} columns: {}; --markdown has every column)",
            fitted.dropped.join(", ")
        );
        push_wrapped(&mut o, &note, width, "");
    }
    let open = crate::capacity_text::comparison_open_loop_lines(c);
    if !open.is_empty() {
        let _ = writeln!(o, "\nopen loop:");
        for l in open {
            push_wrapped(&mut o, &format!("  {l}"), width, "      ");
        }
    }
    for (title, list) in [("only in A", &c.only_in_a), ("only in B", &c.only_in_b)] {
        if !list.is_empty() {
            let _ = writeln!(o, "\n{title}:");
            for k in list {
                let _ = writeln!(
                    o,
                    "  {} / {} / {}",
                    terminal(&key_label(k)),
                    terminal(&k.workload),
                    terminal(&k.scenario)
                );
            }
        }
    }
    o.push('\n');
    push_wrapped(
        &mut o,
        "ratios are B ÷ A; for p99 and CPU µs/req below 1 is better; faster or slower only when \
         the req/s interval clears 1 by more than the noise of both runs (docs/verdicts.md)",
        width,
        "",
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_comparison_aligns_its_figures() {
        let t = load_comparison(&crate::load_compare::tests::sample());
        let p99 = t.lines().find(|l| l.starts_with("p99 ")).unwrap();
        let rps = t.lines().find(|l| l.starts_with("req/s")).unwrap();
        assert_eq!(rps.chars().count(), p99.chars().count(), "{t}");
    }

    #[test]
    fn a_comparison_aligns_its_columns() {
        let text = comparison(&crate::compare::tests::sample());
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("  echo  ") && l.contains('×'))
            .collect();
        assert_eq!(lines.len(), 3, "{text}");
        // Aligned: the ratio column ends at the same character in every row.
        let ends: Vec<usize> = lines
            .iter()
            .map(|l| l[..l.find('×').unwrap_or(0)].chars().count())
            .collect();
        assert!(ends.windows(2).all(|w| w[0] == w[1]), "{text}");
    }
}
