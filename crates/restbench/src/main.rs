//! The `restbench` binary: argument parsing and dispatch; the work is in the library crates.

mod cli;
mod commands;
mod signals;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {err:#}");
            ExitCode::from(if err.is::<cli::BadArgument>() { 2 } else { 1 })
        }
    }
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
