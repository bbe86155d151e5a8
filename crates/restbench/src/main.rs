//! The `restbench` binary: argument parsing and dispatch; the work is in the library crates.

mod cli;
mod commands;
mod signals;

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse_args();
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {err:#}");
            ExitCode::from(1)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
