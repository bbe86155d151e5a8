//! `--export-markdown`: hyperfine-style tables for a README or a pull request, figures in units
//! for reading; not report.md, which is [`crate::markdown`]'s.
//! A run's table is report.md's own ([`crate::markdown::cell_table`]).

use std::fmt::Write;

use restbench_model::{Cell, LoadResult, RunResults};

use crate::escape::markdown as escape;
use crate::units::{bytes_short, micros_short, thousands};

/// A `load` result as a one-row table.
pub fn load(r: &LoadResult) -> String {
    let s = &r.settings;
    let l = &r.latency_us;
    let mut o = String::from(
        "| URL | method | connections | threads | duration | requests | req/s | p50 | p90 | p99 | \
         p99.9 | max | errors | transfer/s |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let _ = writeln!(
        o,
        "| {} | {} | {} | {} | {:.2} s | {} | {} | {} | {} | {} | {} | {} | {} | {}/s |",
        escape(&s.url),
        escape(&s.method),
        s.connections,
        s.threads,
        r.duration_s,
        thousands(r.requests as f64),
        thousands(r.rps),
        micros_short(l.p50 as f64),
        micros_short(l.p90 as f64),
        micros_short(l.p99 as f64),
        micros_short(l.p999 as f64),
        micros_short(l.max as f64),
        thousands(r.errors.total() as f64),
        bytes_short(r.bytes_per_s)
    );
    o
}

/// The cells of one run as report.md's table; several runs (`study all`) each under a heading.
pub fn runs(runs: &[&RunResults]) -> String {
    let table = |r: &RunResults| {
        let cells: Vec<&Cell> = r.cells.iter().collect();
        crate::markdown::cell_table(&cells)
    };
    match runs {
        [one] => table(one),
        _ => runs
            .iter()
            .map(|r| format!("## {}\n\n{}", escape(&r.kind), table(r)))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_result_is_a_readable_table() {
        let md = load(&crate::test_support::load_result());
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), 3, "{md}");
        assert!(lines[2].contains("| 442 µs |"), "{md}");
        assert_eq!(
            lines[0].matches('|').count(),
            lines[2].matches('|').count(),
            "{md}"
        );
    }

    #[test]
    fn several_runs_get_a_heading_each() {
        let a = crate::export::table::tests::fixture_run();
        let mut b = a.clone();
        b.kind = "study b".into();
        let md = runs(&[&a, &b]);
        assert!(
            md.contains("## run\n") && md.contains("## study b\n"),
            "{md}"
        );
        assert!(!runs(&[&a]).contains("## "));
    }
}
