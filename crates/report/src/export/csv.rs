//! `--export-csv`: a header line, then one line per row (RFC 4180: fields holding a comma, a
//! quote or a line break are quoted, quotes doubled; lines end in CRLF as the RFC says, which
//! every spreadsheet and CSV reader accepts). Text from the documents goes through
//! [`crate::escape::csv`]: a framework named `=HYPERLINK(…)` is shown, never evaluated.

use super::table::{Field, Table};
use crate::escape;

/// The export as CSV.
pub fn render(t: &Table) -> String {
    let mut o = String::new();
    line(&mut o, t.columns.iter().map(|c| escape::csv(c)));
    for row in &t.rows {
        line(&mut o, row.iter().map(field));
    }
    o
}

fn line(o: &mut String, fields: impl Iterator<Item = String>) {
    for (i, f) in fields.enumerate() {
        if i > 0 {
            o.push(',');
        }
        o.push_str(&f);
    }
    o.push_str("\r\n");
}

/// A value as one CSV field: numbers as Rust prints them (shortest exact form), text and lists
/// (joined by `;`) escaped.
fn field(f: &Field) -> String {
    match f {
        Field::Text(t) => escape::csv(t),
        Field::Int(v) => v.to_string(),
        Field::Float(v) => v.to_string(),
        Field::Bool(v) => v.to_string(),
        Field::List(v) => escape::csv(&v.join(";")),
        Field::Empty => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_what_needs_quoting_and_leaves_missing_figures_empty() {
        let run = crate::export::table::tests::fixture_run();
        let csv = render(&crate::export::table::cells(&[&run]));
        let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), 4, "{csv}");
        assert!(lines[0].starts_with("run,subject,variant,language,"));
        assert!(lines[1].contains(",120000,"), "{}", lines[1]);
        assert!(lines[1].ends_with(",client_bound;noisy"), "{}", lines[1]);
        assert!(
            lines[2].contains("\"go-nethttp, \"\"std\"\"\""),
            "{}",
            lines[2]
        );
        assert!(
            lines[3].contains(",failed,build failed: npm ci,"),
            "{}",
            lines[3]
        );
        assert_eq!(
            lines[1].matches(',').count(),
            crate::export::table::CELL_COLUMNS.len() - 1
        );
    }
}
