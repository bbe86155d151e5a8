//! `restbench run`: the main job.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use restbench_harness::db::Cluster;
use restbench_harness::placement::{Placement, available_cpus};
use restbench_harness::runner::{self, LoadShape, Observer, RunPlan};
use restbench_harness::subject::{self, SCENARIOS};
use restbench_loadgen::StopAt;
use restbench_model::CellStatus;

use super::progress::TerminalProgress;
use super::verify::parse_workloads;
use crate::cli::RunArgs;
use crate::signals;

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let stop = signals::stop_flag()?;
    let root = super::subjects_root(&args.dir)?;
    let subjects = subject::select(subject::discover(&root)?, &args.subjects)?;
    let workloads = parse_workloads(&args.workloads)?;
    for s in &args.scenarios {
        if !SCENARIOS.contains(&s.as_str()) {
            bail!("unknown scenario {s:?} (known: {})", SCENARIOS.join(", "));
        }
    }
    let available = available_cpus();
    let placement = match &args.loadgen_cpus {
        Some(list) => Placement::with_loadgen(&available, list)
            .map_err(|e| anyhow::anyhow!("--loadgen-cpus: {e}"))?,
        None => Placement::split(&available),
    };
    let (duration, repeats, warmup) = if args.quick {
        (Duration::from_secs(2), 1, Duration::from_secs(1))
    } else {
        (Duration::from_secs(10), 3, Duration::from_secs(3))
    };
    let shape = LoadShape {
        connections: args.connections,
        threads: args
            .threads
            .unwrap_or(placement.loadgen.len() as u32)
            .max(1),
        stop: StopAt::Duration(args.duration.unwrap_or(duration)),
        warmup: args.warmup.unwrap_or(warmup),
        ..LoadShape::default()
    };
    let out_dir = args.out.clone().unwrap_or_else(|| {
        root.parent()
            .unwrap_or(&root)
            .join("results")
            .join(runner::utc_stamp())
    });
    let cache = restbench_harness::prepare::cache_dir(&root);
    let needs_db = workloads.iter().any(|w| w.needs_database())
        && subjects.iter().any(|s| {
            s.unavailable_reason().is_none()
                && s.supports(restbench_harness::workload::Workload::Users)
        });
    let total: usize = subjects
        .iter()
        .map(|s| workloads.iter().filter(|w| s.supports(**w)).count() * args.scenarios.len())
        .sum();
    if total == 0 {
        bail!("nothing to run: no selected subject serves the selected workloads");
    }
    let progress = TerminalProgress::new(total);
    let mut cluster = None;
    let mut database_url = args.database_url.clone();
    if needs_db && database_url.is_none() {
        progress.note("starting PostgreSQL for the users workload …");
        match Cluster::start(None, &cache.join("logs")) {
            Ok(c) => {
                database_url = Some(c.url.clone());
                cluster = Some(c);
            }
            Err(e) => progress.note(&format!("users cells will fail: {e}")),
        }
    }
    progress.note(&format!(
        "results: {}  ({})",
        out_dir.display(),
        placement.describe()
    ));
    let plan = RunPlan {
        kind: "run".into(),
        subjects,
        workloads,
        scenarios: args.scenarios.clone(),
        shape,
        repeats: args.repeats.unwrap_or(repeats).max(1),
        out_dir: out_dir.clone(),
        cache,
        placement,
        database_url,
        db_pool_total: args.db_pool,
        note: args.quick.then(|| {
            "A --quick pass: one short repeat per cell, for a first look only.".to_string()
        }),
    };
    let result = runner::run(&plan, &stop, &progress);
    progress.finish();
    drop(cluster);
    let results = result?;
    let md = restbench_report::markdown::report(&results);
    let report_path = out_dir.join("report.md");
    std::fs::write(&report_path, &md)
        .with_context(|| format!("cannot write {}", report_path.display()))?;
    let cells: Vec<_> = results.cells.iter().collect();
    print!("{}", restbench_report::markdown::cell_table(&cells));
    eprintln!(
        "\nwrote {} and {}",
        out_dir.join("results.json").display(),
        report_path.display()
    );
    if results.interrupted {
        eprintln!("interrupted: the finished cells are kept");
        return Ok(ExitCode::from(130));
    }
    let failed = results
        .cells
        .iter()
        .filter(|c| c.status == CellStatus::Failed)
        .count();
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
