//! `study tfb`'s section of `report.md`: Round 23's facts, why absolute figures cannot agree,
//! then one table per TechEmpower test type in the order of TFB's site, each with Kendall's
//! tau-b and the reversed pairs.

use std::fmt::Write;

use restbench_model::StudyInfo;
use restbench_model::documents::tfb::Firmness;

use super::escape;
use super::study::ratio_rows;
use crate::tfb_ratios::{self, TfbTables};

/// The "Study tfb" section.
pub fn tfb(info: &StudyInfo, t: &TfbTables) -> String {
    let mut o = String::new();
    let r = &t.round23;
    let _ = writeln!(o, "## Study tfb: {}\n", escape(&info.title));
    let _ = writeln!(
        o,
        "- Round {}: best successful req/s over TFB's concurrency levels, one 15 s sample each; results {}, raw data {} (SHA-256 {}), announced at {}",
        r.round,
        escape(&r.results_url),
        escape(&r.raw_data_url),
        escape(&r.raw_data_sha256),
        escape(&r.announcement_url)
    );
    let _ = writeln!(
        o,
        "- Queries and updates at {} per request, TFB's headline level of 1, 5, 10, 15, 20",
        r.queries
    );
    let _ = writeln!(
        o,
        "- This run: {}{}\n",
        if info.shortened {
            "**shortened** — "
        } else {
            ""
        },
        escape(&info.note)
    );
    let _ = writeln!(o, "{}\n", escape(&tfb_ratios::why_absolutes_differ(r)));
    o.push_str(
        "Ratios are req/s ÷ the baseline's in the same test type, the same subject on both sides \
        (the common subject fastest in Round 23). A measured ratio with an interval is that \
        interval's estimate (paired by round, from the duets beside the group's reference where \
        it ran them), so it can differ from the quotient of the req/s column, the median of a \
        cell alone. ⇅ marks a subject whose order against another \
        differs between Round 23 and this run. Firmness: ",
    );
    let legend: Vec<String> = [Firmness::F, Firmness::F1, Firmness::S, Firmness::X]
        .iter()
        .map(|f| format!("{} {}", f.name(), f.meaning()))
        .collect();
    let _ = writeln!(o, "{}.\n", escape(&legend.join("; ")));
    for s in &t.sections {
        let _ = writeln!(
            o,
            "### {} (`{}`, {})\n",
            s.test.title(),
            s.test.cell_label(),
            escape(&s.test.load())
        );
        if let Some(text) = tfb_ratios::unserved_text(s) {
            let _ = writeln!(o, "{}\n", escape(&text));
        }
        if s.table.rows.is_empty() {
            o.push_str("No cell of this type was measured.\n\n");
            continue;
        }
        ratio_rows(&mut o, &s.table);
        let _ = writeln!(o, "{}\n", escape(&tfb_ratios::tau_text(s)));
    }
    o
}
