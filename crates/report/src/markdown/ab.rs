//! `restbench ab --markdown`, and the gate's summary for a CI job's page
//! (`$GITHUB_STEP_SUMMARY`).

use std::fmt::Write;

use restbench_model::{AbReport, Check, GateReport, MeasureRatio, RatioRow};

use super::escape;

/// The A/B as Markdown: the two sides, the mode, a table per workload, the gate.
pub fn ab(report: &AbReport) -> String {
    let mut o = String::from("## A/B\n\n");
    for (name, s) in [("A", &report.a), ("B", &report.b)] {
        let from = match (&s.revision, &s.commit) {
            (Some(rev), Some(commit)) => format!("revision `{}` ({commit})", escape(rev)),
            _ => format!("folder `{}`", escape(&s.folder)),
        };
        let _ = writeln!(o, "- **{name}**: `{}`, {from}", escape(&s.id));
    }
    let _ = writeln!(
        o,
        "- **{}**: {}\n",
        report.mode,
        escape(&report.mode_reason)
    );
    for row in &report.rows {
        o.push_str(&ratio_table(row, false));
        o.push('\n');
    }
    if let Some(gate) = &report.gate {
        o.push_str(&gate_summary(gate));
    }
    o
}

/// One row as a table: measure, B ÷ A, interval, verdict.
pub fn ratio_table(row: &RatioRow, with_subject: bool) -> String {
    let mut o = format!("### {}\n\n", escape(&row.label(with_subject)));
    o.push_str("| measure | B ÷ A | 95 % interval | verdict |\n|---|--:|---|---|\n");
    for r in &row.ratios {
        let _ = writeln!(o, "{}", cells(r));
    }
    o
}

fn cells(r: &MeasureRatio) -> String {
    let (estimate, interval) = match (r.estimate, r.interval) {
        (_, Some(i)) => (
            format!("{:.3}×", i.estimate),
            format!(
                "[{:.3}, {:.3}] ({} {})",
                i.low,
                i.high,
                i.n,
                if r.paired { "rounds" } else { "repeats" }
            ),
        ),
        (Some(e), None) => (format!("{e:.3}×"), "none".into()),
        (None, None) => ("–".into(), "none".into()),
    };
    format!(
        "| {} | {estimate} | {interval} | {} |",
        r.measure.label(),
        r.verdict_word()
    )
}

/// The gate as Markdown: the summary, then its checks in a table.
pub fn gate_summary(gate: &GateReport) -> String {
    let mut o = format!("### restbench gate\n\n**{}**\n\n", escape(&gate.summary()));
    if !gate.machine_differences.is_empty() {
        let _ = writeln!(
            o,
            "Compared across machines: {}\n",
            escape(&gate.machine_differences.join("; "))
        );
    }
    o.push_str("| | threshold | cell | what was seen |\n|---|---|---|---|\n");
    for c in &gate.checks {
        let mark = match c.check {
            Check::Fail => "❌ fail",
            Check::Noise => "⚠️ noise",
            Check::Pass => "✅ pass",
            Check::NoInterval => "– n/a",
        };
        let _ = writeln!(
            o,
            "| {mark} | `{}` | {} | {} |",
            escape(&c.threshold),
            escape(&c.cell),
            escape(&c.sentence)
        );
    }
    o
}
