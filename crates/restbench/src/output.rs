//! What the commands share about their output: the export files of `--export-*`, the width
//! of the terminal the summary table is fitted into, a run's reports and cell table, and a merged
//! load result.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use restbench_model::{CellStatus, LoadResult, RunResults};
use restbench_report::export::{Exports, Format};

use crate::cli::ExportArgs;
use crate::common::EXIT_INTERRUPTED;

/// Creates the requested export files now, before any load starts.
/// A file asked for by a flag (`--hdr`), created before the load so that a wrong path fails at
/// once, and written when the run ends.
pub struct CreatedFile {
    file: Option<(PathBuf, std::fs::File)>,
}

impl CreatedFile {
    pub fn open(path: Option<&Path>, flag: &str) -> anyhow::Result<Self> {
        let Some(path) = path else {
            return Ok(Self { file: None });
        };
        let file = std::fs::File::create(path).with_context(|| {
            format!(
                "cannot write {flag} to {} (checked before the load)",
                path.display()
            )
        })?;
        Ok(Self {
            file: Some((path.to_path_buf(), file)),
        })
    }

    pub fn write(&mut self, text: &str) -> anyhow::Result<()> {
        let Some((path, mut file)) = self.file.take() else {
            return Ok(());
        };
        file.write_all(text.as_bytes())
            .and_then(|()| file.flush())
            .with_context(|| format!("cannot write {}", path.display()))
    }
}

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
        // Not `eprintln!`: a closed stderr (a terminal gone after SIGHUP) must not panic here.
        let _ = writeln!(std::io::stderr(), "wrote {}", p.display());
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

/// Writes `report.md` and the self-contained `report.html` into `dir`.
pub fn write_reports(results: &RunResults, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let md = dir.join("report.md");
    write_output(&md, restbench_report::markdown::report(results).as_bytes())?;
    let html = dir.join("report.html");
    write_output(&html, restbench_report::html::render(results).as_bytes())?;
    Ok(vec![md, html])
}

/// Writes an output file atomically (a full disk keeps the previous file whole, or none, and
/// leaves no temporary file), with an error that names it.
pub fn write_output(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    restbench_model::documents::io::write_atomic(path, bytes).with_context(|| {
        format!(
            "cannot write {} (the previous file, if any, is kept as it was)",
            path.display()
        )
    })
}

/// The cell table of a run, fitted to the terminal, on stdout.
pub fn print_cell_table(results: &RunResults) {
    use std::io::Write;
    let cells: Vec<_> = results.cells.iter().collect();
    let width = table_width();
    let table = restbench_report::text::cell_table(&cells, width)
        + &restbench_report::text::rankings(results, width);
    // Written, not print!ed: a closed stdout (`| head -1`, a killed `| tee`) must not turn the
    // run's exit (130 when interrupted) into a panic; results.json is finalised already.
    let _ = std::io::stdout().lock().write_all(table.as_bytes());
}

/// Writes report.md, prints the table, and turns the results into an exit code: 130 when
/// interrupted, 1 when a cell failed.
pub fn finish_run(results: &RunResults, out_dir: &Path) -> anyhow::Result<ExitCode> {
    let written = write_reports(results, out_dir)?;
    print_cell_table(results);
    let names: Vec<String> = std::iter::once(out_dir.join("results.json"))
        .chain(written)
        .map(|p| match p.strip_prefix(out_dir) {
            Ok(name) => name.display().to_string(),
            Err(_) => p.display().to_string(),
        })
        .collect();
    let line = format!("wrote {} in {}", names.join(", "), out_dir.display());
    eprintln!();
    for part in crate::width::hanging(&line, crate::width::stderr_width(), 2) {
        eprintln!("{part}");
    }
    if results.interrupted {
        eprintln!("interrupted: the finished cells are kept");
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    Ok(if any_failed(results) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// True when a cell of the run failed.
pub fn any_failed(results: &RunResults) -> bool {
    results.cells.iter().any(|c| c.status == CellStatus::Failed)
}

/// Prints the merged result as `load` prints one, then each generator's share; writes the JSON
/// document to `json` (`-`: stdout, the text then goes to stderr).
pub fn write_merged(merged: &LoadResult, json: Option<&Path>, latency: bool) -> anyhow::Result<()> {
    let text = restbench_report::text::load_report(merged, latency) + &generator_lines(merged);
    let to_stdout = json.is_some_and(|p| p.as_os_str() == "-");
    if to_stdout {
        let _ = std::io::stderr().write_all(text.as_bytes());
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, merged)?;
        writeln!(out)?;
        out.flush()?;
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    if let Some(path) = json {
        let body = serde_json::to_string_pretty(merged)? + "\n";
        restbench_model::documents::io::write_atomic(path, body.as_bytes())
            .with_context(|| format!("cannot write the merged result to {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// One line per generator: its share of the answers and the CPU it used.
fn generator_lines(r: &LoadResult) -> String {
    if r.shards.is_empty() {
        return String::new();
    }
    let mut out = format!("  Merged from {} generators:\n", r.shards.len());
    for s in &r.shards {
        let shard = s.shard.map(|s| format!(" (shard {s})")).unwrap_or_default();
        out += &format!(
            "    {}{shard}: {} requests in {:.2}s, {:.0} req/s, {} errors, generator CPU {:.2} cores\n",
            restbench_report::escape::terminal(&s.generator),
            s.requests,
            s.duration_s,
            s.rps,
            s.errors,
            s.loadgen_cpu.cores
        );
    }
    out
}

/// Its version, counts, bounds and times are checked as every document read is
/// (`restbench_model::documents::validate`): the error names the file and the field.
pub fn read_load_result(path: &Path) -> anyhow::Result<LoadResult> {
    Ok(restbench_model::read_load(path)?)
}

/// A document the user names (a results.json, a load result), read whole within
/// [`DOCUMENT_LIMIT`](restbench_model::documents::io::DOCUMENT_LIMIT): `/dev/zero` is refused in one line
/// instead of filling memory.
pub fn read_document(path: &Path) -> anyhow::Result<String> {
    Ok(restbench_model::documents::io::read_limited_string(
        path,
        restbench_model::documents::io::DOCUMENT_LIMIT,
        "the document",
    )?)
}

/// Warnings said before a run starts, one line each on stderr.
pub fn warn(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}

/// `rust-axum: conformant (30 pass, 1 warn)`, `(cached)` when the build's result was kept.
pub fn conformance_summary(
    c: &restbench_model::SubjectConformance,
    cached: Option<&str>,
) -> String {
    let cached = cached.map_or_else(String::new, |at| {
        format!(
            " (cached: checked {})",
            restbench_report::escape::terminal(at)
        )
    });
    if let Some(e) = &c.error {
        return format!("{}: not checked: {e}", c.subject);
    }
    let counts = format!(
        "{} pass, {} warn, {} fail",
        c.count(restbench_model::CaseVerdict::Pass),
        c.count(restbench_model::CaseVerdict::Warn),
        c.count(restbench_model::CaseVerdict::Fail)
    );
    let verdict = if c.conformant() {
        "conformant"
    } else {
        "NONCONFORMANT"
    };
    format!("{}: {verdict} ({counts}){cached}", c.subject)
}
