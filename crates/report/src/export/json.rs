//! `--export-json`: `{"schema_version", "rows_are", "results": [ {column: value, …}, … ]}`, the
//! shape of hyperfine's export (a `results` array), with values in base units.

use serde::Serialize;

use super::table::{Row, Table};

/// The export's own version, bumped on an incompatible change to its shape or its columns. It is
/// not a model document (nothing reads it back), but starts where they did, at 1.
pub const EXPORT_SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    schema_version: u32,
    /// `load` (one row per load run) or `cells` (one row per cell of a run or study).
    rows_are: &'a str,
    restbench_version: &'a str,
    results: Vec<Row<'a>>,
}

/// The export as pretty JSON, ending in a newline.
pub fn render(t: &Table) -> String {
    let doc = Document {
        schema_version: EXPORT_SCHEMA_VERSION,
        rows_are: t.rows_are,
        restbench_version: env!("CARGO_PKG_VERSION"),
        results: t.rows().collect(),
    };
    let mut s = serde_json::to_string_pretty(&doc).expect("a table serializes to JSON");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_keep_their_column_order_and_nulls() {
        let run = crate::export::table::tests::fixture_run();
        let text = render(&crate::export::table::cells(&[&run]));
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["rows_are"], "cells");
        let rows = v["results"].as_array().unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0]["rps_median"], 120_000.0);
        assert_eq!(rows[0]["flags"][1], "noisy");
        assert!(rows[1]["rps_cv"].is_null());
        assert!(rows[2]["latency_p99_us"].is_null());
        // Column order as defined, not alphabetical.
        assert!(text.find("\"run\"").unwrap() < text.find("\"flags\"").unwrap());
        assert!(text.find("\"subject\"").unwrap() < text.find("\"language\"").unwrap());
    }
}
