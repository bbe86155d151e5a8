//! The `restbench` binary: argument parsing and dispatch; the work is in the library crates.
//!
//! - `cli`: the clap types, `Cli` and `Command` in `cli/mod.rs`, the argument groups several
//!   commands flatten (`MeasureArgs`, `CellArgs`, `GateArgs`, `SubjectsDir`…) in `shared`, and
//!   each command's own arguments by family: `load`, `run` (run, bench, study), `ab`, `history`,
//!   `report` (report, compare, merge), `verify` (verify, conformance), `catalogue` (subjects,
//!   new, serve, doctor), `profile`, `db`, `k8s`, `agent` (remote-agent).
//! - `commands`: one module per subcommand (commands never import each other; `completions`
//!   writes shell completions and the man page from the clap types).
//! - What commands share: `progress` (the run's terminal observer, and a resolved plan measured
//!   under it), `options` (flags → library requests), `common` (subjects and results
//!   folders, exit codes, planner errors as bad arguments), `output` (exports, reports, tables,
//!   merged load results), `remote` (`--loadgen-hosts`/`--server-host` connected), `install`
//!   (`subjects --install`), `live` and `start_at` (`load`'s live line and synchronised start),
//!   `dashboard` (`load`'s live dashboard on a terminal), `timeseries` (`load --timeseries`),
//!   `signals` (Ctrl-C as a stop flag), `width` (the terminal's width, long lines broken to it),
//!   `gate` (the regression gate's exit code and its GitHub Actions lines).

mod cli;
mod commands;
mod common;
mod dashboard;
mod gate;
mod install;
mod live;
mod options;
mod output;
mod progress;
mod remote;
mod signals;
mod start_at;
mod timeseries;
mod width;

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse_args();
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            // A path or a document's name in the message never becomes a workflow command.
            eprintln!(
                "error: {}",
                restbench_report::escape::workflow(&message(&err))
            );
            ExitCode::from(if err.is::<cli::BadArgument>() { 2 } else { 1 })
        }
    }
}

/// The error and its causes on one line, each cause once.
fn message(err: &anyhow::Error) -> String {
    restbench_host::error::chain(err.as_ref())
}

/// The reader of stdout went away (`| head`): not an error, exit quietly as ripgrep does.
/// serde_json keeps the I/O error inside its own, so it is looked at too.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || e.downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
                == Some(std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreachable_server_is_reported_with_each_cause_once() {
        let refused = std::io::Error::from_raw_os_error(111);
        let cause = refused.to_string();
        let err = anyhow::Error::from(restbench_harness::HarnessError::Load(
            restbench_loadgen::LoadError::Unreachable {
                addr: "127.0.0.1:1".into(),
                source: refused,
            },
        ))
        .context("load against 127.0.0.1:1");
        let text = message(&err);
        assert_eq!(text.matches(&cause).count(), 1, "{text}");
        assert_eq!(
            text,
            format!(
                "load against 127.0.0.1:1: cannot connect to 127.0.0.1:1 (is the server running?): {cause}"
            )
        );
    }
}
