//! The gate at the binary's edge (`ab`, `compare`, `history check`): which machines may be
//! compared, what GitHub Actions gets, and the exit code. The judging itself is
//! `restbench_model::statistics::gate`.

use std::io::Write;
use std::process::ExitCode;

use restbench_model::{Environment, GateReport};

use crate::cli::BadArgument;

/// What differs between the machines of two runs; refused (exit 2) unless `across` says to go
/// on, and then said.
pub fn machines(a: &Environment, b: &Environment, across: bool) -> anyhow::Result<Vec<String>> {
    let differences = restbench_model::statistics::gate::machine_differences(a, b);
    if !differences.is_empty() && !across {
        return Err(BadArgument(format!(
            "the runs come from different machines ({}): their figures do not compare; \
             rerun both on one machine, or pass --across-machines",
            differences.join("; ")
        ))
        .into());
    }
    Ok(differences)
}

/// The gate's GitHub output when `$GITHUB_STEP_SUMMARY` is set, then its exit code: 1 only
/// when a check failed.
pub fn finish(gate: &GateReport) -> anyhow::Result<ExitCode> {
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| {
                anyhow::anyhow!("cannot append to $GITHUB_STEP_SUMMARY ({path:?}): {e}")
            })?;
        file.write_all(restbench_report::markdown::ab::gate_summary(gate).as_bytes())?;
        let mut out = std::io::stdout().lock();
        for line in restbench_report::text::ab::github_annotations(gate) {
            writeln!(out, "{line}")?;
        }
        out.flush()?;
    }
    Ok(if gate.failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
