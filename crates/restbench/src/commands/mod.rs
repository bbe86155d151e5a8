//! One module per subcommand.

mod load;

use std::process::ExitCode;

use crate::cli::{Cli, Command};

/// Runs the chosen subcommand and returns the process exit code.
pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Load(args) => load::run(args),
    }
}
