//! `restbench compare --markdown`: two runs, or two load results, as Markdown tables.

use std::fmt::Write;

use restbench_model::documents::comparison::{Comparison, LoadComparison, Verdict};

use super::escape;
use crate::cells::key_label;
use crate::lines::{
    any_interval, comparison_heading, comparison_rows, comparison_summary, load_label,
    load_verdict_line, metric_value,
};
use crate::units::ratio;

/// A table of ratios (B ÷ A) with verdicts, then the open-loop lines and the cells found in
/// only one run.
pub fn comparison(c: &Comparison) -> String {
    let mut o = String::from("# restbench compare\n\n");
    for line in comparison_heading(c) {
        let _ = writeln!(o, "- {}", escape(&line));
    }
    let _ = writeln!(o, "\n{}\n", comparison_summary(c));
    // The interval column only when some cell has one (runs with repeats per round).
    let intervals = any_interval(c);
    let (head, rule) = if intervals {
        (" 95 % interval |", "---:|")
    } else {
        ("", "")
    };
    let _ = writeln!(
        o,
        "| subject | workload | scenario | A req/s | B req/s | req/s B÷A |{head} p99 B÷A | CPU µs/req B÷A | verdict | note |"
    );
    let _ = writeln!(o, "|---|---|---|---:|---:|---:|{rule}---:|---:|---|---|");
    for (row, cell) in comparison_rows(c).iter().zip(&c.cells) {
        let verdict = match cell.verdict {
            Verdict::Faster | Verdict::Slower => format!("**{}**", row[9]),
            _ => row[9].clone(),
        };
        let interval = if intervals {
            format!(" {} |", if row[6].is_empty() { "–" } else { &row[6] })
        } else {
            String::new()
        };
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} |{interval} {} | {} | {verdict} | {} |",
            escape(&row[0]),
            escape(&row[1]),
            escape(&row[2]),
            row[3],
            row[4],
            row[5],
            row[7],
            row[8],
            escape(cell.note.as_deref().unwrap_or(""))
        );
    }
    let open = crate::capacity_text::comparison_open_loop_lines(c);
    if !open.is_empty() {
        o.push_str("\n## Open loop\n\n");
        for l in open {
            let _ = writeln!(o, "- {}", escape(&l));
        }
    }
    for (title, list) in [("Only in A", &c.only_in_a), ("Only in B", &c.only_in_b)] {
        if !list.is_empty() {
            let _ = writeln!(o, "\n## {title}\n");
            for k in list {
                let _ = writeln!(
                    o,
                    "- {} / {} / {}",
                    escape(&key_label(k)),
                    escape(&k.workload),
                    escape(&k.scenario)
                );
            }
        }
    }
    o.push_str(
        "\nVerdicts: *faster*/*slower* when the 95 % interval of req/s B ÷ A, from the two runs' \
        per-round figures, clears 1 by more than the noise of both runs (each run's spread of \
        its generator ceiling per round, or its drift from start to end); with one repeat on a \
        side, *no interval* and no verdict; otherwise *same*. Documents without per-round \
        figures: the 95 % intervals of the medians must not overlap (without them, the change \
        must exceed twice either run's coefficient of variation and 5 %). p99 and CPU µs/req \
        ratios below 1 are improvements. See docs/verdicts.md.\n",
    );
    o
}

/// The two loads, a table of figures with B ÷ A, the verdict on req/s.
pub fn load_comparison(c: &LoadComparison) -> String {
    let mut o = String::from("# restbench compare (load results)\n\n");
    let _ = writeln!(o, "- A: {}", escape(&load_label(&c.a)));
    let _ = writeln!(o, "- B: {}", escape(&load_label(&c.b)));
    if !c.differences.is_empty() {
        let _ = writeln!(
            o,
            "- The loads differ ({}): the ratios mix the server's change with the load's.",
            escape(&c.differences.join(", "))
        );
    }
    o.push_str("\n| metric | A | B | B÷A |\n|---|---:|---:|---:|\n");
    for m in &c.metrics {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} |",
            m.metric,
            metric_value(m, m.a),
            metric_value(m, m.b),
            m.ratio.map_or("–".into(), ratio)
        );
    }
    let _ = writeln!(o, "\n{}", escape(&load_verdict_line(c)));
    o
}
