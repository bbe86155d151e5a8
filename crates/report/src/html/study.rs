//! A study's ratio tables: published and measured req/s as ratios to the baseline, with bars,
//! reversed orders, and what else the seed published as tooltips.

use std::fmt::Write;

use restbench_model::{RunResults, StudyInfo};

use crate::escape::html as escape;
use crate::study_ratios::{self, RatioTable, StudyTables, row_label};
use crate::units::{ratio, thousands};

use super::markup::{anchor, dl, flag_badge};

/// The "Study" section: the seed's setting, one ratio table per scenario, what was not run.
pub fn study(o: &mut String, r: &RunResults, info: &StudyInfo) {
    o.push_str("<section id=\"study\">");
    let Some(StudyTables { study: s, tables }) = study_ratios::for_run(r) else {
        let _ = write!(
            o,
            "<h2>Study {}</h2><p class=\"banner warn\">No published figures are known for study id <code>{}</code>.</p></section>",
            escape(&info.id),
            escape(&info.id)
        );
        return;
    };
    let _ = write!(
        o,
        "<h2>Study {}: {} <span class=\"muted\">(seed {})</span></h2>",
        escape(&s.id),
        escape(&s.title),
        escape(&s.seed)
    );
    if info.shortened || !info.note.is_empty() {
        let _ = write!(
            o,
            "<p class=\"banner {}\">{}{}</p>",
            if info.shortened { "warn" } else { "info" },
            if info.shortened {
                "<b>Shortened.</b> "
            } else {
                ""
            },
            escape(&info.note)
        );
    }
    o.push_str("<div class=\"env\">");
    dl(
        o,
        "The seed",
        &[
            ("load", escape(&s.load_shape)),
            ("machine", escape(&s.machine)),
            ("source", escape(&s.source)),
        ],
    );
    o.push_str("</div>");
    o.push_str(
        "<p class=\"muted\">Each ratio is a system's req/s ÷ the baseline's in the same \
        scenario: published on the seed's machine, measured on this one. A measured ratio with \
        an interval is that interval's estimate (paired by round, from the duets beside the \
        group's reference where it ran them), so it can differ from the quotient of the req/s \
        column, the median of a cell alone. Grey bars: published; \
        blue: measured. <b style=\"color:var(--bad)\">⇅</b> marks a system whose order against \
        another differs between the two.</p>",
    );
    for t in &tables {
        ratio_table(o, &s.workload, t, r);
    }
    if !s.unavailable.is_empty() {
        o.push_str("<h3>Not run here</h3><ul class=\"plain\">");
        for u in &s.unavailable {
            let _ = write!(
                o,
                "<li><b>{}</b>: {}</li>",
                escape(&u.system),
                escape(&u.reason)
            );
        }
        o.push_str("</ul>");
    }
    if !s.notes.is_empty() {
        o.push_str("<h3>About the seed</h3><ul class=\"plain\">");
        for n in &s.notes {
            let _ = write!(o, "<li>{}</li>", escape(n));
        }
        o.push_str("</ul>");
    }
    o.push_str("</section>");
}

fn ratio_table(o: &mut String, workload: &str, t: &RatioTable, r: &RunResults) {
    let _ = write!(
        o,
        "<h3 id=\"study-{}\">{}<span class=\"sep\">·</span>{}</h3>",
        anchor(&t.scenario),
        escape(workload),
        escape(&t.scenario)
    );
    ratio_rows(o, t);
    // Beside the reversals, each pair's two profiles compared, when the study was profiled.
    for rev in &t.reversals {
        if let Some(p) = crate::profile_pairs::reversal_pair(r, workload, t, rev) {
            super::profile::pair_panel(o, &p);
        }
    }
}

/// A ratio table without its heading: the baseline note, the rows with bars, the order notes.
pub(super) fn ratio_rows(o: &mut String, t: &RatioTable) {
    if let Some(n) = &t.baseline_note {
        let _ = write!(o, "<p class=\"banner info small\">{}</p>", escape(n));
    }
    let max = t
        .rows
        .iter()
        .flat_map(|r| [r.published_ratio, r.measured_ratio])
        .flatten()
        .fold(0.0f64, f64::max)
        .max(1e-9);
    o.push_str(
        "<div class=\"tablewrap\"><table class=\"ratios\"><thead><tr class=\"group\">\
        <th colspan=\"2\"></th><th colspan=\"2\" class=\"sep\">req/s</th>\
        <th colspan=\"4\" class=\"sep\">ratio to the baseline</th><th class=\"sep\"></th></tr><tr>\
        <th>system (as published)</th><th>subject here</th><th class=\"num sep\">published</th>\
        <th class=\"num\">measured</th><th class=\"num sep\">published</th>\
        <th class=\"num\">measured</th><th></th>\
        <th title=\"order reversed against another system\">⇅</th>\
        <th class=\"sep\">note</th></tr></thead><tbody>",
    );
    for row in &t.rows {
        let mut notes: Vec<String> = Vec::new();
        if row.baseline {
            notes.push("<span class=\"badge good\">baseline</span>".into());
        }
        if let Some(n) = &row.not_measured {
            notes.push(format!(
                "<span class=\"badge bad\">not measured</span><span class=\"line\">{}</span>",
                escape(n)
            ));
        }
        for f in &row.flags {
            notes.push(flag_badge(f));
        }
        if let Some(n) = &row.note {
            notes.push(format!("<span class=\"muted line\">{}</span>", escape(n)));
        }
        let bar = |v: Option<f64>, class: &str| {
            v.map_or(String::new(), |v| {
                format!(
                    "<i class=\"{class}\" style=\"width:{:.1}%\"></i>",
                    (v / max * 100.0).clamp(0.5, 100.0)
                )
            })
        };
        let _ = write!(
            o,
            "<tr{}><td class=\"sys\">{}</td><td>{}</td><td class=\"num sep\"{}>{}</td>\
                <td class=\"num\">{}</td><td class=\"num sep\">{}</td><td class=\"num\">\
                <b>{}</b></td><td><span class=\"rbars\">{}{}</span></td><td class=\"rev\">{}</td>\
                <td class=\"sep note\">{}</td></tr>",
            if row.baseline {
                " class=\"baseline\""
            } else {
                ""
            },
            escape(&row.system),
            row.subject.as_ref().map_or("–".into(), |_| format!(
                "<code>{}</code>",
                escape(&row_label(row))
            )),
            published_title(row),
            row.published_rps.map_or("–".into(), thousands),
            row.measured_rps().map_or("–".into(), thousands),
            row.published_ratio.map_or("–".into(), ratio),
            study_ratios::ratio_with_interval(row),
            bar(row.published_ratio, "pub"),
            bar(row.measured_ratio, "meas"),
            if row.reversed { "⇅" } else { "" },
            notes.join(" ")
        );
    }
    o.push_str("</tbody></table></div>");
    order_notes(o, t);
}

/// Under a ratio table: which rows are ranked apart, and the pairs whose order reversed (or that
/// the order matches).
fn order_notes(o: &mut String, t: &RatioTable) {
    if let Some(why) = study_ratios::ranked_apart_note(t) {
        let _ = write!(
            o,
            "<p class=\"banner warn small\" data-ranked-apart>{}</p>",
            escape(&why)
        );
    }
    if !t.reversals.is_empty() {
        o.push_str("<p><b>Reversed pairs</b> (ahead in the published figures ⇅ ahead here):</p><ul class=\"reversals\">");
        for rev in &t.reversals {
            let _ = write!(
                o,
                "<li>{}</li>",
                escape(&study_ratios::reversal_text(t, rev))
            );
        }
        o.push_str("</ul>");
    } else if t
        .rows
        .iter()
        .filter(|r| r.published_ratio.is_some() && r.measured_ratio.is_some())
        .count()
        >= 2
    {
        o.push_str("<p class=\"muted\">The measured order matches the published one.</p>");
    }
}

/// A tooltip with what else the seed published for a row (latency, CPU, memory).
fn published_title(row: &study_ratios::StudyRow) -> String {
    let mut parts = Vec::new();
    if let Some(l) = &row.published_latency {
        parts.push(format!(
            "published latency: {}",
            study_ratios::latency_text(l)
        ));
    }
    if let Some(r) = &row.published_resources {
        parts.push(format!("published resources: {r}"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" title=\"{}\"", escape(&parts.join("; ")))
    }
}
