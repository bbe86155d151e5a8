//! `restbench history`: runs kept in a database.

use std::process::ExitCode;

use crate::cli::{HistoryCheckArgs, HistoryImportArgs, HistoryShowArgs};

pub fn import(_args: HistoryImportArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("history import: not built yet")
}

pub fn show(_args: HistoryShowArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("history show: not built yet")
}

pub fn check(_args: HistoryCheckArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("history check: not built yet")
}
