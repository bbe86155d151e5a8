//! `restbench conformance` in a terminal: one row per subject (its standing and how many cases
//! passed, warned and failed), then every case that did not pass with what was seen, fitted to
//! the terminal's width.

use std::fmt::Write;

use restbench_model::documents::conformance::{CaseVerdict, ConformanceReport, SubjectConformance};

use super::table::{Column, Sacrifice, TextTable};
use crate::conformance::{consequence, level_word, standing, verdict_word};

const SUBJECT_COLUMNS: [Column; 5] = [
    Column::left("subject").min_width(12),
    Column::left("standing"),
    Column::right("passed"),
    Column::right("warned"),
    Column::right("failed"),
];

/// What was seen is cut first, then the case's name; subject, level and verdict always stay.
const CASE_COLUMNS: [Column; 5] = [
    Column::left("subject").min_width(12),
    Column::left("case").min_width(16),
    Column::left("level"),
    Column::left("verdict"),
    Column::left("seen").min_width(12),
];

const CASE_SACRIFICES: [Sacrifice; 1] = [Sacrifice::Narrow {
    column: 4,
    width: 40,
}];

fn subject_row(s: &SubjectConformance) -> Vec<String> {
    vec![
        s.subject.clone(),
        standing(s).to_string(),
        s.count(CaseVerdict::Pass).to_string(),
        s.count(CaseVerdict::Warn).to_string(),
        s.count(CaseVerdict::Fail).to_string(),
    ]
}

/// The cases of `s` that did not pass (failures first), and why the checks did not run.
fn case_rows(s: &SubjectConformance) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    if let Some(e) = &s.error {
        rows.push(vec![
            s.subject.clone(),
            "–".into(),
            "fail".into(),
            "not run".into(),
            crate::cells::first_line(e),
        ]);
    }
    for verdict in [CaseVerdict::Fail, CaseVerdict::Warn] {
        for c in s.cases.iter().filter(|c| c.verdict == verdict) {
            rows.push(vec![
                s.subject.clone(),
                c.case.clone(),
                level_word(c.level).into(),
                verdict_word(c.verdict).into(),
                crate::cells::first_line(&c.seen),
            ]);
        }
    }
    rows
}

/// The conformance of every subject in `report`, fitted into `width` characters.
pub fn conformance(report: &ConformanceReport, width: usize) -> String {
    let mut o = String::new();
    if report.subjects.is_empty() {
        o.push_str("No subject was checked.\n");
        return o;
    }
    let rows = report.subjects.iter().map(subject_row).collect();
    for l in TextTable::new(&SUBJECT_COLUMNS, rows).fit(width, &[]).lines {
        let _ = writeln!(o, "{l}");
    }
    let cases: Vec<Vec<String>> = report.subjects.iter().flat_map(case_rows).collect();
    if cases.is_empty() {
        o.push_str("\nEvery case passed.\n");
    } else {
        o.push_str("\nCases that did not pass:\n");
        let fitted = TextTable::new(&CASE_COLUMNS, cases).fit(width, &CASE_SACRIFICES);
        for l in &fitted.lines {
            let _ = writeln!(o, "{l}");
        }
    }
    let apart: Vec<&str> = report
        .subjects
        .iter()
        .filter(|s| !s.conformant())
        .map(|s| s.subject.as_str())
        .collect();
    if let Some(why) = consequence(&apart) {
        o.push('\n');
        for l in super::table::wrap(&crate::escape::terminal(&why), width) {
            let _ = writeln!(o, "{l}");
        }
    }
    o
}
