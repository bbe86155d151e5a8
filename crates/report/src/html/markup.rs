//! Small pieces of markup the other HTML modules share: anchors, flag badges, colour swatches,
//! cards.

use std::fmt::Write;

use crate::escape::html as escape;
use crate::vocabulary::{flag_legend, flag_severity};

use super::svg;

/// An id fragment from a name: ASCII letters and digits, everything else `-`.
pub fn anchor(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// A flag as a badge, coloured by severity, with its legend text as the tooltip.
pub fn flag_badge(flag: &str) -> String {
    format!(
        "<span class=\"badge {}\" title=\"{}\">{}</span>",
        flag_severity(flag),
        escape(flag_legend(flag)),
        escape(flag)
    )
}

/// A small square in series colour `i`, before a subject's name.
pub fn swatch(i: usize) -> String {
    format!(
        "<span class=\"swatch\" style=\"background:{}\"></span>",
        svg::series_style(i).0
    )
}

/// A card: a small title over a list of terms and their (already escaped) values.
pub fn dl(o: &mut String, title: &str, rows: &[(&str, String)]) {
    let _ = write!(o, "<div class=\"card\"><h4>{}</h4><dl>", escape(title));
    for (k, v) in rows {
        let _ = write!(o, "<dt>{}</dt><dd>{}</dd>", escape(k), v);
    }
    o.push_str("</dl></div>");
}
