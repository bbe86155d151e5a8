//! What the binary's integration tests share beyond the test kit: the binary, run from the
//! checkout.

use std::process::Command;

use restbench_testkit::Cli;

/// The binary cargo built for these tests.
pub fn cli() -> Cli {
    Cli::new(env!("CARGO_BIN_EXE_restbench"))
}

/// `restbench`, started in the checkout so that it finds `subjects/`.
pub fn restbench() -> Command {
    cli().command()
}
