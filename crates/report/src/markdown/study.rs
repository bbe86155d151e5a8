//! The "Study" section of `report.md`: the seed's published figures beside this run's, as
//! ratios to a baseline, with the pairs whose order reversed.

use std::fmt::Write;

use restbench_model::{PublishedStudy, RunResults, StudyInfo};

use super::escape;
use crate::study_ratios::{self, RatioTable, StudyRow, row_label};
use crate::units::{ratio, thousands};

/// The "Study" section of `report.md`.
pub fn study(info: &StudyInfo, r: &RunResults) -> String {
    let mut o = String::new();
    let Some(st) = study_ratios::for_run(r) else {
        let _ = writeln!(
            o,
            "## Study {}\n\nNo published figures are known for study id `{}`.\n",
            escape(&info.id),
            escape(&info.id)
        );
        return o;
    };
    let s = &st.study;
    heading(&mut o, s, info);
    for t in &st.tables {
        ratio_table(&mut o, &s.workload, t, r);
    }
    if !s.unavailable.is_empty() {
        o.push_str("Not run here:\n\n");
        for u in &s.unavailable {
            let _ = writeln!(o, "- {}: {}", escape(&u.system), escape(&u.reason));
        }
        o.push('\n');
    }
    if !s.notes.is_empty() {
        o.push_str("About the seed:\n\n");
        for n in &s.notes {
            let _ = writeln!(o, "- {}", escape(n));
        }
        o.push('\n');
    }
    o
}

/// The title, where the published figures come from, how this run was shaped, how to read it.
fn heading(o: &mut String, s: &PublishedStudy, info: &StudyInfo) {
    let _ = writeln!(
        o,
        "## Study {}: {} (seed {})\n",
        s.id,
        escape(&s.title),
        s.seed
    );
    let _ = writeln!(o, "- Published: {}", escape(&s.load_shape));
    let _ = writeln!(o, "- Their machine: {}", escape(&s.machine));
    let _ = writeln!(o, "- Source: {}", escape(&s.source));
    let _ = writeln!(
        o,
        "- This run: {}{}\n",
        if info.shortened {
            "**shortened** — "
        } else {
            ""
        },
        escape(if info.note.is_empty() {
            "the seed's load shape"
        } else {
            &info.note
        })
    );
    o.push_str(
        "Ratios are req/s ÷ the baseline's req/s in the same scenario (published on their \
        machine, measured on this one). A measured ratio with an interval is that interval's \
        estimate (paired by round, from the duets beside the group's reference where it ran \
        them), so it can differ from the quotient of the req/s column, the median of a cell \
        alone. ⇅ marks a system whose order against another differs \
        between published and measured.\n\n",
    );
}

/// One scenario's table, then whether the measured order matches the published one.
fn ratio_table(o: &mut String, workload: &str, t: &RatioTable, r: &RunResults) {
    let _ = writeln!(o, "### {} · {}\n", escape(workload), escape(&t.scenario));
    ratio_rows(o, t);
    // Beside the reversals, each pair's two profiles compared, when the study was profiled.
    for rev in &t.reversals {
        if let Some(p) = crate::profile_pairs::reversal_pair(r, workload, t, rev) {
            super::profile::pair(o, &p, "####");
        }
    }
}

/// A ratio table's body: its baseline note, the rows, and whether the orders agree.
pub(super) fn ratio_rows(o: &mut String, t: &RatioTable) {
    if let Some(n) = &t.baseline_note {
        let _ = writeln!(o, "{}\n", escape(n));
    }
    o.push_str("| system (as published) | subject | published req/s | published ratio | measured req/s | measured ratio | order | note |\n");
    o.push_str("|---|---|---:|---:|---:|---:|:---:|---|\n");
    for row in &t.rows {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            escape(&row.system),
            row.subject
                .as_ref()
                .map(|_| escape(&row_label(row)))
                .unwrap_or_else(|| "–".into()),
            row.published_rps.map_or("–".into(), thousands),
            row.published_ratio.map_or("–".into(), ratio),
            row.measured_rps().map_or("–".into(), thousands),
            study_ratios::ratio_with_interval(row),
            if row.reversed { "⇅" } else { "" },
            escape(&row_note(row))
        );
    }
    o.push('\n');
    if let Some(why) = study_ratios::ranked_apart_note(t) {
        let _ = writeln!(o, "{}\n", escape(&why));
    }
    if t.reversals.is_empty() {
        let both = t
            .rows
            .iter()
            .filter(|r| r.published_ratio.is_some() && r.measured_ratio.is_some())
            .count();
        if both >= 2 {
            o.push_str("The measured order matches the published one.\n\n");
        }
    } else {
        o.push_str("Reversed pairs (published order → measured order):\n\n");
        for rev in &t.reversals {
            let _ = writeln!(o, "- {}", escape(&study_ratios::reversal_text(t, rev)));
        }
        o.push('\n');
    }
}

/// The note column: baseline, why not measured, flags, the seed's note.
fn row_note(row: &StudyRow) -> String {
    let mut note: Vec<String> = Vec::new();
    if row.baseline {
        note.push("baseline".into());
    }
    if let Some(n) = &row.not_measured {
        note.push(n.clone());
    }
    if !row.flags.is_empty() {
        note.push(format!("flags: {}", row.flags.join(", ")));
    }
    if let Some(n) = &row.note {
        note.push(n.clone());
    }
    note.join("; ")
}
