//! The words every report uses for `restbench conformance`'s findings, and the one rule behind
//! every ranking: a cell flagged `nonconformant` keeps its figures but is ranked after the
//! conformant ones. A leaf.

use std::cmp::Ordering;

use restbench_model::Cell;
use restbench_model::documents::conformance::{CaseLevel, CaseVerdict, SubjectConformance};
use restbench_model::vocabulary::flag::Flag;

/// True when the cell carries the `nonconformant` flag.
pub fn nonconformant(c: &Cell) -> bool {
    c.flags.iter().any(|f| f == Flag::Nonconformant.name())
}

/// Conformant cells before nonconformant ones; every other order is the caller's, after this.
pub fn conformant_first(a: &Cell, b: &Cell) -> Ordering {
    nonconformant(a).cmp(&nonconformant(b))
}

/// The subjects among `cells` that are flagged `nonconformant`, each once, in order.
pub fn nonconformant_subjects<'a>(cells: impl IntoIterator<Item = &'a Cell>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for c in cells {
        if nonconformant(c) && !out.contains(&c.subject.as_str()) {
            out.push(&c.subject);
        }
    }
    out
}

/// The sentence under a ranking that lists nonconformant subjects apart (`None` when none is).
pub fn ranked_apart(subjects: &[&str]) -> Option<String> {
    if subjects.is_empty() {
        return None;
    }
    let (who, whose) = if subjects.len() == 1 {
        (subjects[0].to_string(), "its")
    } else {
        (subjects.join(", "), "their")
    };
    Some(format!(
        "Ranked apart, after the others: {who} did not pass every conformance case of level \
         fail, so {whose} figures are shown but may come from reading HTTP in a way real clients \
         would break."
    ))
}

/// The sentence under a conformance table with subjects that are not conformant: what follows
/// for their figures (`None` when every subject is conformant).
pub fn consequence(subjects: &[&str]) -> Option<String> {
    if subjects.is_empty() {
        return None;
    }
    let (who, whose, it) = if subjects.len() == 1 {
        (subjects[0].to_string(), "its", "it")
    } else {
        (subjects.join(", "), "their", "them")
    };
    Some(format!(
        "Not conformant: {who}. In a run, {whose} cells carry the nonconformant flag: the figures \
         stay in the tables, marked, and rankings list {it} after the conformant subjects."
    ))
}

/// A subject's standing: `conformant`, `nonconformant`, or `not checked` when the checks did not
/// run.
pub fn standing(s: &SubjectConformance) -> &'static str {
    if s.error.is_some() {
        "not checked"
    } else if s.conformant() {
        "conformant"
    } else {
        "nonconformant"
    }
}

pub fn level_word(level: CaseLevel) -> &'static str {
    match level {
        CaseLevel::Warn => "warn",
        CaseLevel::Fail => "fail",
    }
}

pub fn verdict_word(verdict: CaseVerdict) -> &'static str {
    match verdict {
        CaseVerdict::Pass => "pass",
        CaseVerdict::Warn => "warn",
        CaseVerdict::Fail => "fail",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::cell;

    #[test]
    fn nonconformant_cells_sort_after_conformant_ones_and_are_named() {
        let mut cheat = cell("cheat", "plaintext", "all-cores", 9e6);
        cheat.flags.push("nonconformant".into());
        let honest = cell("honest", "plaintext", "all-cores", 1e5);
        let mut cells = [&cheat, &honest];
        cells.sort_by(|a, b| conformant_first(a, b).then(b.rps.median.total_cmp(&a.rps.median)));
        assert_eq!(cells[0].subject, "honest");
        assert_eq!(nonconformant_subjects(cells.iter().copied()), ["cheat"]);
        assert!(
            ranked_apart(&["cheat"])
                .unwrap()
                .starts_with("Ranked apart")
        );
        assert_eq!(ranked_apart(&[]), None);
    }
}
