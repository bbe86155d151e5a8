//! `restbench history`: runs kept in a database (`restbench_history`): import, a
//! timeline, and the gate of a run against the recent history of its cells.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use restbench_history::{self as history, History};
use restbench_model::documents::history::{HistoryPoint, MachineFacts, split_revision};
use restbench_model::statistics::ab_ratios::{
    Measure, MeasureRatio, RatioRow, cell_figure, repeat_figures,
};
use restbench_model::statistics::interval::unpaired_ratio;
use restbench_model::{AbReport, Cell, CellStatus, Environment, RunResults, Versioned, read_run};

use crate::cli::{HistoryCheckArgs, HistoryImportArgs, HistoryShowArgs, HistoryStoreArgs};

fn open(store: &HistoryStoreArgs) -> anyhow::Result<History> {
    let spec = match &store.history {
        Some(s) => s.clone(),
        None => history::default_file()
            .context("no home folder for the history: pass --history FILE or a postgres:// URL")?
            .display()
            .to_string(),
    };
    Ok(History::open(&spec)?)
}

/// A run's folder or its results.json, read; with the A/B beside it when `ab` wrote one.
fn read(path: &Path) -> anyhow::Result<(RunResults, Option<AbReport>)> {
    let (file, dir) = if path.is_dir() {
        (path.join("results.json"), path.to_path_buf())
    } else {
        let dir = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        (path.to_path_buf(), dir)
    };
    let run = read_run(&file)?;
    let ab = std::fs::read_to_string(dir.join("ab.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Versioned<AbReport>>(&t).ok())
        .map(|v| v.document);
    Ok((run, ab))
}

pub fn import(args: HistoryImportArgs) -> anyhow::Result<ExitCode> {
    let mut h = open(&args.store)?;
    for path in &args.runs {
        let (run, ab) = read(path)?;
        let source = path
            .canonicalize()
            .unwrap_or_else(|_| path.clone())
            .display()
            .to_string();
        let done = h.import(&run, &source, ab.as_ref(), args.rev.as_deref())?;
        if done.stored {
            println!(
                "stored {}: {} cells (run {})",
                path.display(),
                done.cells,
                done.key
            );
        } else {
            println!(
                "already stored {} (run {}): kept once",
                path.display(),
                done.key
            );
        }
    }
    let (runs, cells) = h.counts()?;
    eprintln!("{}: {runs} runs, {cells} cells", h.location);
    Ok(ExitCode::SUCCESS)
}

pub fn show(args: HistoryShowArgs) -> anyhow::Result<ExitCode> {
    let mut h = open(&args.store)?;
    let points = h.points(args.subject.as_deref(), args.workload.as_deref())?;
    let page = restbench_report::html::history::page(&points, args.commit_url.as_deref());
    std::fs::write(&args.out, page)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!("wrote {} ({} points)", args.out.display(), points.len());
    Ok(ExitCode::SUCCESS)
}

pub fn check(args: HistoryCheckArgs) -> anyhow::Result<ExitCode> {
    if args.gate.fail_if.is_empty() {
        return Err(crate::cli::BadArgument(
            "history check needs at least one --fail-if (such as 'cpu_us_per_req>+5%')".into(),
        )
        .into());
    }
    let (run, _) = read(&args.run)?;
    let key = history::run_key(&run)?;
    let mut h = open(&args.store)?;
    let all = h.points(None, None)?;
    let mut rows = Vec::new();
    let mut differences = Vec::new();
    let mine = MachineFacts::of(&run.environment);
    let duet = history::is_duet(&run);
    for cell in run.cells.iter().filter(|c| c.status == CellStatus::Ok) {
        let (base, _) = split_revision(&cell.subject);
        let same_cell: Vec<&HistoryPoint> = all
            .iter()
            .filter(|p| {
                p.run != key
                    && p.subject == base
                    && p.workload == cell.workload
                    && p.scenario == cell.scenario
                    && p.protocol == cell.protocol
            })
            .collect();
        // A duet's servers shared the CPUs: it compares only with other duets.
        let (same_cell, other_way): (Vec<&HistoryPoint>, Vec<&HistoryPoint>) =
            same_cell.into_iter().partition(|p| p.duet == duet);
        if same_cell.is_empty() && !other_way.is_empty() {
            let (theirs, this) = if duet {
                ("alone", "as a duet")
            } else {
                ("as duets (restbench ab)", "alone")
            };
            eprintln!(
                "{}: its history was measured {theirs} and this run {this}: not judged",
                row_label(cell)
            );
            continue;
        }
        let here: Vec<&HistoryPoint> = same_cell
            .iter()
            .copied()
            .filter(|p| args.gate.across_machines || p.machine == mine)
            .collect();
        if here.is_empty() {
            if let Some(other) = same_cell.last() {
                // Refused (exit 2) unless --across-machines; says what differs.
                crate::gate::machines(&environment(&other.machine), &run.environment, false)?;
            }
            eprintln!(
                "{}: no history of this cell yet, not judged",
                row_label(cell)
            );
            continue;
        }
        for p in &here {
            for d in crate::gate::machines(&environment(&p.machine), &run.environment, true)? {
                if !differences.contains(&d) {
                    differences.push(d);
                }
            }
        }
        let recent = &here[here.len().saturating_sub(args.against as usize)..];
        rows.push(row_against(cell, recent));
    }
    if rows.is_empty() {
        // A CI job's first run has no history yet: that is not a regression (exit 1 is kept for
        // one), so nothing is judged and the job goes on; the message says so.
        eprintln!(
            "no cell of {} has a history to check against yet: nothing judged (import this run \
             with `restbench history import` to begin one)",
            restbench_report::escape::terminal(&args.run.display().to_string())
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut gate = restbench_model::statistics::gate::evaluate(&args.gate.fail_if, &rows);
    gate.machine_differences = differences;
    let mut out = std::io::stdout().lock();
    let lines = restbench_report::escape::workflow(&restbench_report::text::ab::gate_lines(&gate));
    out.write_all(lines.as_bytes())?;
    out.flush()?;
    drop(out);
    crate::gate::finish(&gate)
}

/// The cell's name for a line on stderr: one line, no workflow command (`escape`).
fn row_label(cell: &Cell) -> String {
    restbench_report::escape::workflow(&restbench_report::escape::terminal(&format!(
        "{} {} {} {}",
        cell.subject, cell.workload, cell.scenario, cell.protocol
    )))
}

fn environment(m: &MachineFacts) -> Environment {
    Environment {
        cpu_model: m.cpu_model.clone(),
        cores: m.cores,
        kernel: m.kernel.clone(),
        backend: m.backend.clone(),
        ..Environment::default()
    }
}

/// The run's cell against the recent points: the points' figures (one per run) and the cell's
/// repeats, unpaired.
fn row_against(cell: &Cell, recent: &[&HistoryPoint]) -> RatioRow {
    let ratios = Measure::ALL
        .iter()
        .map(|&measure| {
            let baseline: Vec<f64> = recent
                .iter()
                .filter_map(|p| p.figure(measure).map(|f| f.value))
                .collect();
            let interval = unpaired_ratio(&baseline, &repeat_figures(cell, measure));
            let geo = (!baseline.is_empty()).then(|| {
                (baseline.iter().map(|v| v.ln()).sum::<f64>() / baseline.len() as f64).exp()
            });
            let estimate = interval
                .map(|i| i.estimate)
                .or_else(|| Some(cell_figure(cell, measure)? / geo?));
            MeasureRatio {
                measure,
                estimate,
                interval,
                paired: false,
                distinct: None,
            }
        })
        .collect();
    RatioRow {
        a_subject: format!("last {}", recent.len()),
        b_subject: cell.subject.clone(),
        workload: cell.workload.clone(),
        scenario: cell.scenario.clone(),
        protocol: cell.protocol.clone(),
        ratios,
    }
}
