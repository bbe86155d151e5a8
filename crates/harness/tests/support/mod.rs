//! What the harness's integration tests share: an in-test server, process and port checks, and
//! the verifier's findings as text.

#![allow(dead_code)]

pub mod procs;
pub mod server;

use restbench_model::{Finding, FindingLevel};

/// The failed checks as `check: message`, for assertions and their messages.
pub fn failed_checks(findings: &[Finding]) -> Vec<String> {
    with_level(findings, FindingLevel::Fail)
}

/// The passed checks as `check: message`.
pub fn passed_checks(findings: &[Finding]) -> Vec<String> {
    with_level(findings, FindingLevel::Pass)
}

fn with_level(findings: &[Finding], level: FindingLevel) -> Vec<String> {
    findings
        .iter()
        .filter(|f| f.level == level)
        .map(|f| format!("{}: {}", f.check, f.message))
        .collect()
}
