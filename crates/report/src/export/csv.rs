//! `--export-csv`: a header line, then one line per row (RFC 4180: fields holding a comma, a
//! quote or a line break are quoted, quotes doubled; lines end in CRLF as the RFC says, which
//! every spreadsheet and CSV reader accepts).

use super::table::{Field, Table};

/// The export as CSV.
pub fn render(t: &Table) -> String {
    let mut o = String::new();
    line(&mut o, t.columns.iter().map(|c| c.to_string()));
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
        o.push_str(&quote(&f));
    }
    o.push_str("\r\n");
}

/// A value as plain text: numbers as Rust prints them (shortest exact form), lists joined by `;`.
fn field(f: &Field) -> String {
    match f {
        Field::Text(t) => t.clone(),
        Field::Int(v) => v.to_string(),
        Field::Float(v) => v.to_string(),
        Field::Bool(v) => v.to_string(),
        Field::List(v) => v.join(";"),
        Field::Empty => String::new(),
    }
}

fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
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
