//! `restbench study a|b|c|d|all|tfb`: the seed studies re-run with their own subjects, workload,
//! scenarios and load shape, beside the Rust contenders, and reported against the published
//! figures; `tfb` runs TechEmpower's seven test types and reports them against Round 23's.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use restbench_harness::planner::Site;
use restbench_harness::planner::study::StudyRequest;
use restbench_model::RunResults;
use restbench_model::vocabulary::time::utc_stamp;

use crate::cli::{StudyArgs, StudyId};
use crate::common::{EXIT_INTERRUPTED, plan_error, refuse_finished_run, subjects_root};
use crate::progress::TerminalProgress;
use crate::{options, output, signals};

pub fn run(args: StudyArgs) -> anyhow::Result<ExitCode> {
    let ids = args.study.ids();
    let stop = signals::stop_flag()?;
    let root = subjects_root(&args.measure.dir)?;
    let exports = output::open_exports(&args.measure.export)?;
    let request = options::study_request(&args, &root)?;
    let site = Site::new(&request.machine, request.remote.as_deref()).map_err(plan_error)?;
    let base_out = args.out.clone().unwrap_or_else(|| {
        crate::common::results_folder().join(format!("study-{}-{}", args.study.name(), utc_stamp()))
    });
    let out_dir_of = |id: &str| match args.study {
        StudyId::All => base_out.join(id),
        _ => base_out.clone(),
    };
    // Every study's folder and shape before the first one starts: nothing is lost or half run.
    for id in &ids {
        refuse_finished_run(&out_dir_of(id), args.measure.force)?;
        request.check(id, &site).map_err(plan_error)?;
    }
    let mut finished: Vec<(PathBuf, RunResults)> = Vec::new();
    let mut exit = ExitCode::SUCCESS;
    for id in &ids {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let out_dir = out_dir_of(id);
        let Some(results) = run_one(&request, &site, id, out_dir.clone(), &root, &stop)? else {
            continue;
        };
        if output::any_failed(&results) {
            exit = ExitCode::from(1);
        }
        if results.interrupted {
            exit = ExitCode::from(EXIT_INTERRUPTED);
        }
        finished.push((out_dir, results));
    }
    if args.study == StudyId::All && !finished.is_empty() {
        write_index(&base_out, &finished)?;
    }
    let all: Vec<&RunResults> = finished.iter().map(|(_, r)| r).collect();
    output::report_written(&exports.write_runs(&all)?);
    for (dir, _) in &finished {
        eprintln!("wrote {}", dir.join("report.html").display());
    }
    if stop.load(Ordering::Relaxed) {
        eprintln!("interrupted: the finished cells are kept");
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    Ok(exit)
}

/// Plans, runs and reports study `id` into `out_dir`; `None` when it has no cell to run.
fn run_one(
    request: &StudyRequest,
    site: &Site,
    id: &str,
    out_dir: PathBuf,
    root: &Path,
    stop: &AtomicBool,
) -> anyhow::Result<Option<RunResults>> {
    let planned = request
        .resolve(id, site, out_dir.clone())
        .map_err(plan_error)?;
    for m in &planned.missing {
        eprintln!("study {id}: no subject {m} in {}", root.display());
    }
    let Some(mut resolved) = planned.resolved else {
        eprintln!("study {id}: nothing to run");
        return Ok(None);
    };
    output::warn(&resolved.warnings);
    let total = resolved.plan.cells();
    let progress = TerminalProgress::new(total);
    progress.note(&format!(
        "study {id} ({}): {} — {} cells; results: {}",
        planned.seed,
        planned.title,
        total,
        out_dir.display()
    ));
    let result = resolved.run(stop, &progress);
    progress.finish();
    drop(resolved);
    let results = result?;
    output::write_reports(&results, &out_dir)?;
    println!("\nStudy {id} ({}): {}\n", planned.seed, planned.title);
    output::print_cell_table(&results);
    Ok(Some(results))
}

/// `report.md` and `report.html` over all studies of `study all`.
fn write_index(dir: &Path, studies: &[(PathBuf, RunResults)]) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let results: Vec<&RunResults> = studies.iter().map(|(_, r)| r).collect();
    let md = dir.join("report.md");
    let mut text = String::new();
    for r in &results {
        text.push_str(&restbench_report::markdown::report(r));
        text.push_str("\n\n");
    }
    crate::output::write_output(&md, text.as_bytes())?;
    let html = dir.join("report.html");
    crate::output::write_output(
        &html,
        restbench_report::html::render_many(&results).as_bytes(),
    )?;
    eprintln!("wrote {}", html.display());
    Ok(())
}
