//! `restbench conformance --markdown` and report.md's conformance section: a row per subject,
//! then each subject's cases (case, level, verdict, what was seen).

use std::fmt::Write;

use restbench_model::documents::conformance::{CaseVerdict, ConformanceReport, SubjectConformance};

use super::escape;
use crate::conformance::{consequence, level_word, standing, verdict_word};

/// The conformance of every subject in `report`, as a `## Conformance` section.
pub fn conformance(report: &ConformanceReport) -> String {
    section(&report.subjects)
}

/// The section over `subjects` ("" for none: a run without conformance checks says nothing).
pub(crate) fn section(subjects: &[SubjectConformance]) -> String {
    let mut o = String::new();
    if subjects.is_empty() {
        return o;
    }
    o.push_str("## Conformance\n\n");
    o.push_str(
        "How each subject reads HTTP/1.1 (`restbench conformance`): a case of level fail that \
         fails makes the subject `nonconformant`.\n\n",
    );
    o.push_str("| subject | standing | passed | warned | failed |\n|---|---|---:|---:|---:|\n");
    for s in subjects {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} |",
            escape(&s.subject),
            standing(s),
            s.count(CaseVerdict::Pass),
            s.count(CaseVerdict::Warn),
            s.count(CaseVerdict::Fail)
        );
    }
    o.push('\n');
    let apart: Vec<&str> = subjects
        .iter()
        .filter(|s| !s.conformant())
        .map(|s| s.subject.as_str())
        .collect();
    if let Some(why) = consequence(&apart) {
        let _ = writeln!(o, "{}\n", escape(&why));
    }
    for s in subjects {
        subject_cases(&mut o, s);
    }
    o
}

fn subject_cases(o: &mut String, s: &SubjectConformance) {
    let _ = writeln!(o, "### Conformance of {}\n", escape(&s.subject));
    if !s.build.is_empty() {
        let _ = writeln!(o, "Build `{}`.\n", escape(&s.build));
    }
    if let Some(e) = &s.error {
        let _ = writeln!(o, "The checks did not run: {}\n", escape(e));
    }
    if s.cases.is_empty() {
        return;
    }
    o.push_str("| case | level | verdict | seen |\n|---|---|---|---|\n");
    for c in &s.cases {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} |",
            escape(&c.case),
            level_word(c.level),
            verdict_word(c.verdict),
            escape(&c.seen)
        );
    }
    o.push('\n');
}
