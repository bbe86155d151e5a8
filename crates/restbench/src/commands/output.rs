//! What the commands share about their output: the export files of `--export-*` and the width
//! of the terminal the summary table is fitted into.

use std::io::IsTerminal;

use restbench_report::export::{Exports, Format};

use crate::cli::ExportArgs;

/// Creates the requested export files now, before any load starts.
pub fn open_exports(args: &ExportArgs) -> anyhow::Result<Exports> {
    Ok(Exports::open(&[
        (Format::Json, args.export_json.as_deref()),
        (Format::Csv, args.export_csv.as_deref()),
        (Format::Markdown, args.export_markdown.as_deref()),
    ])?)
}

/// Says on stderr which exports were written.
pub fn report_written(paths: &[std::path::PathBuf]) {
    for p in paths {
        eprintln!("wrote {}", p.display());
    }
}

/// The width to fit stdout's tables into: `COLUMNS`, else the terminal's when stdout is one,
/// else 100.
pub fn table_width() -> usize {
    let stdout = std::io::stdout();
    let tty = if stdout.is_terminal() {
        terminal_size::terminal_size_of(&stdout).map(|(w, _)| w.0)
    } else {
        None
    };
    restbench_report::text::table_width(std::env::var("COLUMNS").ok().as_deref(), tty)
}
