//! What the harness's integration tests share beyond the test kit: the subjects' folder, lock
//! waiters in PostgreSQL, and the verifier's findings as text.

use std::path::{Path, PathBuf};

use restbench_model::{Finding, FindingLevel};

/// The repository's `subjects/` folder.
pub fn subjects_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../subjects")
        .canonicalize()
        .unwrap()
}

/// Backends of database `restbench` waiting for a lock.
pub fn lock_waiters(client: &mut postgres::Client) -> i64 {
    client
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = 'restbench' \
             AND wait_event_type = 'Lock'",
            &[],
        )
        .map(|r| r.get(0))
        .unwrap_or(0)
}

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
