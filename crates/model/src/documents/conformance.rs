//! What `restbench conformance` found: how a subject reads HTTP/1.1 (requests split at every byte,
//! pipelined, `Connection: close`, HTTP/1.0, chunked bodies, odd headers, request smuggling
//! shapes), beside the workload contract that `verify` checks. A subject that fails a case of
//! level [`CaseLevel::Fail`] is `nonconformant`: its figures stay in the tables, marked, and
//! rankings list it apart.

use serde::{Deserialize, Serialize};

use super::Document;

/// How serious a case is when a server gets it wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseLevel {
    /// Allowed by the RFCs but unusual (no 431 for a huge header, 404 where 405 fits).
    Warn,
    /// The answer is wrong or missing, the connection desynchronises, the server hangs or dies.
    Fail,
}

/// What one case saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseVerdict {
    Pass,
    Warn,
    Fail,
}

/// One case against one subject.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    /// Short stable name (`split-every-offset/plaintext`, `connection-close`, …).
    pub case: String,
    /// The level the case has when it goes wrong.
    pub level: CaseLevel,
    pub verdict: CaseVerdict,
    /// What was seen, in one line (the first offset that failed, the status, the timeout).
    pub seen: String,
}

/// Every case against one subject, for one build of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubjectConformance {
    pub subject: String,
    /// The build this was checked against (the prepare step's source hash), so a cached result
    /// is reused only for the same build.
    #[serde(default)]
    pub build: String,
    pub cases: Vec<CaseResult>,
    /// Why the checks could not run (the subject did not build or start), if so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl SubjectConformance {
    /// True when no case of level fail failed (and the checks ran).
    pub fn conformant(&self) -> bool {
        self.error.is_none() && !self.cases.iter().any(|c| c.verdict == CaseVerdict::Fail)
    }

    pub fn count(&self, verdict: CaseVerdict) -> usize {
        self.cases.iter().filter(|c| c.verdict == verdict).count()
    }
}

/// `restbench conformance --json`, and the `conformance` part of results.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConformanceReport {
    pub schema_version: u32,
    pub subjects: Vec<SubjectConformance>,
}

impl Document for ConformanceReport {
    const SCHEMA_VERSION: u32 = 1;
}

impl ConformanceReport {
    pub fn new(subjects: Vec<SubjectConformance>) -> Self {
        Self {
            schema_version: Self::SCHEMA_VERSION,
            subjects,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(verdict: CaseVerdict, level: CaseLevel) -> CaseResult {
        CaseResult {
            case: "c".into(),
            level,
            verdict,
            seen: String::new(),
        }
    }

    #[test]
    fn a_subject_is_conformant_unless_a_case_failed_or_the_checks_did_not_run() {
        let mut s = SubjectConformance {
            subject: "x".into(),
            build: "h".into(),
            cases: vec![
                case(CaseVerdict::Pass, CaseLevel::Fail),
                case(CaseVerdict::Warn, CaseLevel::Warn),
            ],
            error: None,
        };
        assert!(s.conformant());
        assert_eq!(s.count(CaseVerdict::Warn), 1);
        s.cases.push(case(CaseVerdict::Fail, CaseLevel::Fail));
        assert!(!s.conformant());
        s.cases.pop();
        s.error = Some("did not start".into());
        assert!(!s.conformant());
        let json = serde_json::to_string(&ConformanceReport::new(vec![s.clone()])).unwrap();
        assert!(json.contains("\"schema_version\""), "{json}");
        let back: ConformanceReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back.subjects[0], s);
    }
}
