//! `restbench compare` for a terminal: two runs, or two load results, as aligned columns.

use std::fmt::Write;

use restbench_model::comparison::{Comparison, LoadComparison};

use super::table::{Column, TextTable};
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

/// Two load results: the loads, one aligned line per figure with B ÷ A, the verdict.
pub fn load_comparison(c: &LoadComparison) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "A: {}", load_label(&c.a));
    let _ = writeln!(o, "B: {}", load_label(&c.b));
    if !c.differences.is_empty() {
        let _ = writeln!(
            o,
            "The loads differ ({}): the ratios mix the server's change with the load's.",
            terminal(&c.differences.join(", "))
        );
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
    let _ = writeln!(o, "\n{}", load_verdict_line(c));
    o
}

const RUN_COLUMNS: [Column; 9] = [
    Column::left("subject"),
    Column::left("workload"),
    Column::left("scenario"),
    Column::right("A req/s"),
    Column::right("B req/s"),
    Column::right("req/s B÷A"),
    Column::right("p99 B÷A"),
    Column::right("CPU/req B÷A"),
    Column::left("verdict"),
];

/// Two runs: where each came from, the verdict counts, one aligned line per cell (with its note
/// after it), the open-loop lines and the cells found in only one run.
pub fn comparison(c: &Comparison) -> String {
    let mut o = String::new();
    for line in comparison_heading(c) {
        let _ = writeln!(o, "{line}");
    }
    let _ = writeln!(o, "{}\n", comparison_summary(c));
    let rows = comparison_rows(c).into_iter().map(Vec::from).collect();
    let lines = TextTable::new(&RUN_COLUMNS, rows).lines();
    let _ = writeln!(o, "{}", lines[0]);
    for (l, cell) in lines[1..].iter().zip(&c.cells) {
        let _ = match &cell.note {
            Some(n) => writeln!(o, "{l}  ({})", terminal(n)),
            None => writeln!(o, "{l}"),
        };
    }
    let open = crate::capacity_text::comparison_open_loop_lines(c);
    if !open.is_empty() {
        let _ = writeln!(o, "\nopen loop:");
        for l in open {
            let _ = writeln!(o, "  {l}");
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
    o.push_str(
        "\nratios are B ÷ A; for p99 and CPU µs/req below 1 is better; \
         verdicts weigh req/s against the noise of both runs\n",
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
