//! report.html's conformance section: a row per subject with its standing and counts, then each
//! subject's cases in a `<details>` (open for a subject that is not conformant).
//!
//! Test hooks: `<section id="conformance" data-conformance>`, the summary `<table
//! class="conformance">`, and per subject `<details data-subject="…">` around a `<table
//! class="conformance-cases">`.

use std::fmt::Write;

use restbench_model::documents::conformance::{CaseVerdict, SubjectConformance};

use crate::conformance::{consequence, level_word, standing, verdict_word};
use crate::escape::html as escape;

fn verdict_badge(verdict: CaseVerdict) -> String {
    let class = match verdict {
        CaseVerdict::Pass => "good",
        CaseVerdict::Warn => "warn",
        CaseVerdict::Fail => "bad",
    };
    format!(
        "<span class=\"badge {class}\">{}</span>",
        verdict_word(verdict)
    )
}

fn standing_badge(s: &SubjectConformance) -> String {
    let class = if s.conformant() { "good" } else { "bad" };
    format!("<span class=\"badge {class}\">{}</span>", standing(s))
}

/// The section over `subjects`; nothing for a run without conformance checks.
pub fn section(o: &mut String, subjects: &[SubjectConformance]) {
    if subjects.is_empty() {
        return;
    }
    o.push_str(
        "<section id=\"conformance\" data-conformance><h2>Conformance</h2>\
         <p class=\"muted\">How each subject reads HTTP/1.1 (<code>restbench conformance</code>): \
         a case of level fail that fails makes the subject <code>nonconformant</code>; its \
         figures stay in the tables, marked, and are ranked after the others.</p>",
    );
    summary(o, subjects);
    let apart: Vec<&str> = subjects
        .iter()
        .filter(|s| !s.conformant())
        .map(|s| s.subject.as_str())
        .collect();
    if let Some(why) = consequence(&apart) {
        let _ = write!(
            o,
            "<p class=\"banner warn\" data-ranked-apart>{}</p>",
            escape(&why)
        );
    }
    for s in subjects {
        cases(o, s);
    }
    o.push_str("</section>");
}

fn summary(o: &mut String, subjects: &[SubjectConformance]) {
    o.push_str(
        "<div class=\"tablewrap\"><table class=\"conformance\"><thead><tr><th>subject</th>\
         <th>standing</th><th class=\"num\">passed</th><th class=\"num\">warned</th>\
         <th class=\"num\">failed</th></tr></thead><tbody>",
    );
    for s in subjects {
        let _ = write!(
            o,
            "<tr data-subject=\"{}\"><td>{}</td><td>{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(&s.subject),
            escape(&s.subject),
            standing_badge(s),
            s.count(CaseVerdict::Pass),
            s.count(CaseVerdict::Warn),
            s.count(CaseVerdict::Fail)
        );
    }
    o.push_str("</tbody></table></div>");
}

fn cases(o: &mut String, s: &SubjectConformance) {
    let _ = write!(
        o,
        "<details data-subject=\"{}\"{}><summary>{} {}</summary>",
        escape(&s.subject),
        if s.conformant() { "" } else { " open" },
        escape(&s.subject),
        standing_badge(s)
    );
    if !s.build.is_empty() {
        let _ = write!(
            o,
            "<p class=\"muted small\">Build <code>{}</code>.</p>",
            escape(&s.build)
        );
    }
    if let Some(e) = &s.error {
        let _ = write!(
            o,
            "<p class=\"banner bad small\">The checks did not run: {}</p>",
            escape(e)
        );
    }
    if !s.cases.is_empty() {
        o.push_str(
            "<div class=\"tablewrap\"><table class=\"conformance-cases\"><thead><tr>\
             <th>case</th><th>level</th><th>verdict</th><th>seen</th></tr></thead><tbody>",
        );
        for c in &s.cases {
            let _ = write!(
                o,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&c.case),
                level_word(c.level),
                verdict_badge(c.verdict),
                escape(&c.seen)
            );
        }
        o.push_str("</tbody></table></div>");
    }
    o.push_str("</details>");
}
