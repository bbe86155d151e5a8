//! `study tfb`'s section of `report.html`: Round 23's facts, why absolute figures cannot agree,
//! then one ratio table per TechEmpower test type in the order of TFB's site, each with
//! Kendall's tau-b and the reversed pairs.

use std::fmt::Write;

use restbench_model::StudyInfo;
use restbench_model::documents::tfb::Firmness;

use super::markup::{anchor, dl};
use super::study::ratio_rows;
use crate::escape::html as escape;
use crate::tfb_ratios::{self, TfbTables};

/// The "Study tfb" section.
pub fn tfb(o: &mut String, info: &StudyInfo, t: &TfbTables) {
    let r = &t.round23;
    o.push_str("<section id=\"study\" data-study=\"tfb\">");
    let _ = write!(
        o,
        "<h2>Study tfb: {} <span class=\"muted\">(TFB Round {})</span></h2>",
        escape(&info.title),
        r.round
    );
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
    o.push_str("<div class=\"env\">");
    dl(
        o,
        &format!("Round {}", r.round),
        &[
            ("results", escape(&r.results_url)),
            ("raw data", escape(&r.raw_data_url)),
            ("announced", escape(&r.announcement_url)),
            ("machines", escape(&r.hardware)),
            (
                "queries",
                escape(&format!("{} per request (TFB's headline level)", r.queries)),
            ),
        ],
    );
    o.push_str("</div>");
    let _ = write!(
        o,
        "<p data-absolutes>{}</p>",
        escape(&tfb_ratios::why_absolutes_differ(r))
    );
    let legend: Vec<String> = [Firmness::F, Firmness::F1, Firmness::S, Firmness::X]
        .iter()
        .map(|f| format!("<b>{}</b> {}", f.name(), escape(f.meaning())))
        .collect();
    let _ = write!(
        o,
        "<p class=\"muted\">Each ratio is a subject's req/s ÷ the baseline's in the same test \
        type, the same subject on both sides (the common subject fastest in Round 23). A measured \
        ratio with an interval is that interval's estimate (paired by round, from the duets \
        beside the group's reference where it ran them), so it can differ from the quotient of \
        the req/s column, the median of a cell alone. Grey bars: \
        Round 23; blue: measured. <b style=\"color:var(--bad)\">⇅</b> marks a subject whose order \
        against another differs between the two. Firmness: {}.</p>",
        legend.join("; ")
    );
    for s in &t.sections {
        let _ = write!(
            o,
            "<h3 id=\"study-{}\">{}<span class=\"sep\">·</span><code>{}</code> <span class=\"muted\">{}</span></h3>",
            anchor(&s.test.cell_label()),
            escape(s.test.title()),
            escape(&s.test.cell_label()),
            escape(&s.test.load())
        );
        if let Some(text) = tfb_ratios::unserved_text(s) {
            let _ = write!(o, "<p data-unserved>{}</p>", escape(&text));
        }
        if s.table.rows.is_empty() {
            o.push_str("<p class=\"muted\">No cell of this type was measured.</p>");
            continue;
        }
        ratio_rows(o, &s.table);
        let _ = write!(o, "<p data-tau>{}</p>", escape(&tfb_ratios::tau_text(s)));
    }
    o.push_str("</section>");
}
