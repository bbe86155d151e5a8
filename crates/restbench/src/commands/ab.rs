//! `restbench ab`: two versions of one subject measured in one run, then the ratio B ÷ A of
//! every measure with its interval, and the gate.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use restbench_harness::planner::ab::{self as sides, AbMode, AbPair};
use restbench_harness::planner::{self, ConformanceStep};
use restbench_model::vocabulary::time::utc_stamp;
use restbench_model::{AbReport, Versioned, Workload, read_run};
use restbench_subject::prepare;

use crate::cli::{AbArgs, BadArgument};
use crate::common::{plan_error, refuse_finished_run, subjects_root};
use crate::options::{self, Measured};
use crate::progress::TerminalProgress;
use crate::{output, signals};

pub fn run(args: AbArgs) -> anyhow::Result<ExitCode> {
    let cells = &args.cells;
    let root = subjects_root(&cells.measure.dir)?;
    let cache = prepare::cache_dir(&root);
    let pair = the_pair(&args, &root, &cache)?;
    let (mode, mode_reason) = sides::mode(args.cells.measure.interleaved, remote_host(&args));
    let what = Measured {
        kind: "run",
        out_name: format!("ab-{}", utc_stamp()),
        note: Some(format!(
            "A/B of {} (A) and {} (B), {}: {mode_reason}.",
            pair.side_a.id,
            pair.side_b.id,
            mode.name()
        )),
    };
    let out_dir = options::out_dir(cells, &what);
    refuse_finished_run(&out_dir, cells.measure.force)?;
    let workloads = match &cells.workloads {
        w if w.is_empty() => Workload::ALL.to_vec(),
        w => w.clone(),
    };
    eprintln!("ab: {}: {mode_reason}", mode.name());
    let (side_a, side_b) = (pair.side_a.clone(), pair.side_b.clone());
    let conformance = ConformanceStep::unless_skipped(args.no_conformance);
    let mut request = options::run_request(
        vec![pair.a, pair.b],
        workloads,
        cells,
        &root,
        what,
        conformance,
    )?;
    request.shape.rounds.duet = mode == AbMode::Duet;
    let run_code = measure(request, &cells.measure.export)?;
    let results = read_run(&out_dir.join("results.json"))
        .with_context(|| format!("the run in {} left no results", out_dir.display()))?;
    let rows =
        restbench_model::statistics::ab_ratios::ab_rows(&results.cells, &side_a.id, &side_b.id);
    let gate = (!args.gate.fail_if.is_empty())
        .then(|| restbench_model::statistics::gate::evaluate(&args.gate.fail_if, &rows));
    let report = AbReport {
        a: side_a,
        b: side_b,
        mode: mode.name().into(),
        mode_reason,
        results: out_dir.display().to_string(),
        rows,
        gate,
    };
    let json = serde_json::to_string_pretty(&Versioned::new(&report))? + "\n";
    // Beside results.json, so `history import` knows each side's commit and source hash.
    let ab_file = out_dir.join("ab.json");
    std::fs::write(&ab_file, &json)
        .with_context(|| format!("cannot write {}", ab_file.display()))?;
    // What a document carries never becomes a GitHub Actions workflow command (`escape`).
    use restbench_report::escape::{workflow, workflow_json};
    let text = if args.json {
        workflow_json(&json)
    } else if args.markdown {
        workflow(&restbench_report::markdown::ab::ab(&report))
    } else {
        workflow(&restbench_report::text::ab::ab(&report))
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    drop(out);
    match &report.gate {
        Some(gate) if gate.failed => crate::gate::finish(gate),
        Some(gate) => crate::gate::finish(gate).map(|_| run_code),
        None => Ok(run_code),
    }
}

/// The remote server or generator host asked for, if any.
fn remote_host(args: &AbArgs) -> Option<&str> {
    let remote = &args.cells.measure.remote;
    remote
        .server_host
        .as_deref()
        .or(remote.hosts.loadgen_hosts.as_deref())
}

/// The two sides from the arguments: two folders, or one id with `--rev` twice.
fn the_pair(args: &AbArgs, root: &Path, cache: &Path) -> anyhow::Result<AbPair> {
    match (args.targets.as_slice(), args.rev.as_slice()) {
        ([a, b], []) => Ok(sides::from_folders(a, b, cache)?),
        ([id], [rev_a, rev_b]) => {
            let id = id.to_str().unwrap_or_default();
            if !restbench_subject::is_id(id) {
                return Err(BadArgument(format!(
                    "{:?} is not a subject id: with --rev, give one of `restbench subjects` \
                     (lowercase letters, digits and '-')",
                    restbench_report::escape::terminal(id)
                ))
                .into());
            }
            Ok(sides::from_revisions(root, id, rev_a, rev_b, cache)?)
        }
        ([_], _) => Err(BadArgument(
            "give one subject id with --rev twice (A then B), or two subject folders".into(),
        )
        .into()),
        _ => Err(BadArgument("--rev takes one subject id, not two folders".into()).into()),
    }
}

/// The run, its progress on stderr (stdout is for the A/B), its reports written; the run's own
/// exit code (130 when interrupted, 1 when a cell failed).
fn measure(
    request: planner::RunRequest,
    export: &crate::cli::ExportArgs,
) -> anyhow::Result<ExitCode> {
    let stop = signals::stop_flag()?;
    let exports = output::open_exports(export)?;
    let mut resolved = planner::resolve(request).map_err(plan_error)?;
    output::warn(&resolved.warnings);
    let progress = TerminalProgress::new(resolved.plan.cells());
    for note in resolved.opening_notes() {
        progress.note(&note);
    }
    let result = resolved.run(&stop, &progress);
    progress.finish();
    let out_dir: PathBuf = resolved.plan.out_dir.clone();
    drop(resolved);
    let results = result?;
    output::report_written(&exports.write_runs(&[&results])?);
    let written = output::write_reports(&results, &out_dir)?;
    for path in written {
        eprintln!("wrote {}", path.display());
    }
    if results.interrupted {
        return Ok(ExitCode::from(crate::common::EXIT_INTERRUPTED));
    }
    Ok(if output::any_failed(&results) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
