//! `restbench ab` and the gate as terminal text, at most 80 columns: per workload the ratio
//! B ÷ A of every measure with its interval and verdict, then the gate's checks.

use std::fmt::Write;

use restbench_model::{AbReport, Check, GateReport, MeasureRatio, RatioRow};

use super::table::wrap;
use crate::escape::terminal;

const WIDTH: usize = 80;

/// The whole A/B: what was compared, how, each row, and the gate when there is one.
pub fn ab(report: &AbReport) -> String {
    let mut o = String::new();
    let side = |s: &restbench_model::AbSide| {
        terminal(&match &s.revision {
            Some(rev) => format!("{} ({rev})", s.id),
            None => format!("{} ({})", s.id, s.folder),
        })
    };
    for line in wrap(&format!("A: {}", side(&report.a)), WIDTH) {
        let _ = writeln!(o, "{line}");
    }
    for line in wrap(&format!("B: {}", side(&report.b)), WIDTH) {
        let _ = writeln!(o, "{line}");
    }
    let mode = terminal(&format!("{}: {}", report.mode, report.mode_reason));
    for line in wrap(&mode, WIDTH) {
        let _ = writeln!(o, "{line}");
    }
    if report.rows.is_empty() {
        let _ = writeln!(
            o,
            "\nno cell was measured on both sides: nothing to compare"
        );
    }
    for row in &report.rows {
        o.push('\n');
        o.push_str(&ratio_rows(row, false));
    }
    if let Some(gate) = &report.gate {
        o.push('\n');
        o.push_str(&gate_lines(gate));
    }
    o
}

/// One row: its cell, then a line per measure.
pub fn ratio_rows(row: &RatioRow, with_subject: bool) -> String {
    let mut o = format!("{}  (B ÷ A)\n", terminal(&row.label(with_subject)));
    for r in &row.ratios {
        let _ = writeln!(o, "{}", measure_line(r));
    }
    o
}

fn measure_line(r: &MeasureRatio) -> String {
    let figure = match (r.estimate, r.interval) {
        (_, Some(i)) => format!("×{:.3}  [{:.3}, {:.3}]", i.estimate, i.low, i.high),
        (Some(e), None) => format!("×{e:.3}  (no interval)"),
        (None, None) => "not measured".to_string(),
    };
    let how = match r.interval {
        Some(i) if r.paired => format!("{} rounds", i.n),
        Some(i) => format!("{} repeats", i.n),
        None => String::new(),
    };
    format!(
        "  {:<11} {:<28} {:<10} {}",
        r.measure.label(),
        figure,
        how,
        r.verdict_word()
    )
    .trim_end()
    .to_string()
}

/// The gate's checks that need reading (failed, within noise, not judged), then its summary.
pub fn gate_lines(gate: &GateReport) -> String {
    let mut o = String::new();
    if !gate.machine_differences.is_empty() {
        let _ = writeln!(
            o,
            "across machines (--across-machines): {}",
            terminal(&gate.machine_differences.join("; "))
        );
    }
    for c in &gate.checks {
        let mark = match c.check {
            Check::Fail => "FAIL",
            Check::Noise => "noise",
            Check::Pass => "ok",
            Check::NoInterval => "n/a",
        };
        for (i, line) in wrap(&terminal(&c.sentence), WIDTH - 8)
            .into_iter()
            .enumerate()
        {
            let head = if i == 0 { mark } else { "" };
            let _ = writeln!(o, "  {head:<5} {line}");
        }
    }
    for line in wrap(&terminal(&gate.summary()), WIDTH) {
        let _ = writeln!(o, "{line}");
    }
    o
}

/// GitHub Actions workflow commands: an `::error` per failed check, a `::warning` per check
/// beyond its threshold within noise.
pub fn github_annotations(gate: &GateReport) -> Vec<String> {
    let clean = |s: &str| crate::escape::workflow_message(&crate::escape::terminal(s));
    gate.checks
        .iter()
        .filter_map(|c| match c.check {
            Check::Fail => Some(format!(
                "::error title=restbench gate::{}",
                clean(&c.sentence)
            )),
            Check::Noise => Some(format!(
                "::warning title=restbench gate::{}",
                clean(&c.sentence)
            )),
            _ => None,
        })
        .collect()
}
