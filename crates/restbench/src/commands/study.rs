//! `restbench study a|b|c|d|all`: the seed studies re-run with their own subjects, workload,
//! scenarios and load shape, beside the Rust contenders, and reported against the published
//! figures.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use restbench_harness::runner::{self, Observer, RunPlan};
use restbench_harness::study::{Length, default_repeats, study_entries, study_info, study_shape};
use restbench_harness::subject;
use restbench_loadgen::StopAt;
use restbench_model::published::published_study;
use restbench_model::time::utc_stamp;
use restbench_model::{CellStatus, RunResults, Workload};

use super::progress::TerminalProgress;
use super::run::{calibrate, calibration_time, database, machine, open_loop, parse_protocols};
use crate::cli::StudyArgs;
use crate::signals;

pub fn run(args: StudyArgs) -> anyhow::Result<ExitCode> {
    let ids: Vec<String> = if args.study == "all" {
        ["a", "b", "c", "d"].map(String::from).to_vec()
    } else {
        match published_study(&args.study) {
            Some(study) => vec![study.id],
            None => bail!(
                "unknown study {:?}: choose a, b, c, d or all (see --help)",
                args.study
            ),
        }
    };
    let protocols = parse_protocols(&args.protocols)?;
    let length = if args.faithful {
        Length::Faithful
    } else if args.quick {
        Length::Quick
    } else {
        Length::Default
    };
    let stop = signals::stop_flag()?;
    let root = super::subjects_root(&args.dir)?;
    let exports = super::output::open_exports(&args.export)?;
    let subjects = subject::discover(&root)?;
    let cache = restbench_harness::subject::prepare::cache_dir(&root);
    let (mut placement, backend) = machine(args.loadgen_cpus.as_deref(), args.no_cgroups)?;
    let remote = super::remote::for_run(&args.remote, args.loadgen_cpus.as_deref())?;
    if let Some(r) = &remote {
        placement = r.placement.clone();
    }
    let base_out = args.out.clone().unwrap_or_else(|| {
        super::results_folder().join(format!("study-{}-{}", args.study, utc_stamp()))
    });
    let out_dir_of = |id: &str| {
        if args.study == "all" {
            base_out.join(id)
        } else {
            base_out.clone()
        }
    };
    let shape_of = |id: &str| {
        let (mut shape, shortening) = study_shape(id, length, placement.loadgen.len());
        if let Some(d) = args.duration
            && let StopAt::Duration(_) = shape.stop
        {
            shape.stop = StopAt::Duration(d);
        }
        (shape, shortening)
    };
    // Every study's folder and shape before the first one starts: nothing is lost or half run.
    for id in ids.iter().map(String::as_str) {
        super::refuse_finished_run(&out_dir_of(id), args.force)?;
        shape_of(id).0.check().map_err(super::load_error)?;
    }
    let mut finished: Vec<(PathBuf, RunResults)> = Vec::new();
    let mut exit = ExitCode::SUCCESS;
    for id in ids.iter().map(String::as_str) {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        let Some(study) = published_study(id) else {
            continue;
        };
        let out_dir = out_dir_of(id);
        let (entries, missing) = study_entries(&study, &subjects, &args.subjects);
        for m in &missing {
            eprintln!("study {id}: no subject {m} in {}", root.display());
        }
        let workload: Workload = study
            .workload
            .parse()
            .with_context(|| format!("study {id} names an unknown workload"))?;
        let (mut shape, shortening) = study_shape(id, length, placement.loadgen.len().max(1));
        if let Some(d) = args.duration
            && let StopAt::Duration(_) = shape.stop
        {
            shape.stop = StopAt::Duration(d);
        }
        let repeats = args.repeats.unwrap_or(default_repeats(length)).max(1);
        let open_loop = open_loop(&args.open_loop, length == Length::Quick)?;
        let mut plan = RunPlan {
            kind: format!("study {id}"),
            entries,
            workloads: vec![workload],
            protocols: protocols.clone(),
            shape,
            repeats,
            restarts: super::default_restarts(args.restarts, length == Length::Quick, repeats),
            out_dir: out_dir.clone(),
            cache: cache.clone(),
            placement: placement.clone(),
            backend: backend.clone(),
            loadgen_ceiling_rps: None,
            calibration: None,
            database_url: None,
            db_cpus: Vec::new(),
            database: String::new(),
            db_pool_total: 100,
            note: remote.as_ref().map(|r| r.note.clone()),
            study: study_info(id, length, &shortening, &placement, repeats),
            open_loop,
            server_address: remote.as_ref().map(|r| r.address),
            remote: remote.as_ref().and_then(|r| r.generators.clone()),
            server_host: remote.as_ref().and_then(|r| r.server.clone()),
        };
        let total = plan.cells();
        if total == 0 {
            eprintln!("study {id}: nothing to run");
            continue;
        }
        let needs_db = workload.needs_database();
        let placed = database(
            needs_db,
            args.database_url.as_deref(),
            &cache,
            &placement,
            args.db_cpus.as_deref(),
        )?;
        let provision = placed.provision;
        if let Some(server) = remote.as_ref().and_then(|r| r.server.as_deref())
            && needs_db
        {
            super::remote::warn_loopback_database(server, provision.url.as_deref());
        }
        if placed.placement != plan.placement {
            plan.study = study_info(id, length, &shortening, &placed.placement, repeats);
        }
        plan.placement = placed.placement;
        plan.db_cpus = placed.db_cpus;
        plan.database = placed.database;
        let progress = TerminalProgress::new(total);
        progress.note(&format!(
            "study {id} (seed {}): {} — {} cells; results: {}",
            study.seed,
            study.title,
            total,
            out_dir.display()
        ));
        plan.database_url = provision.url.clone();
        plan.loadgen_ceiling_rps = if remote.as_ref().is_some_and(|r| r.generators.is_some()) {
            None
        } else {
            calibrate(
                &plan.placement,
                &plan.shape,
                length == Length::Quick,
                &stop,
                &progress,
            )
        };
        plan.calibration = plan
            .loadgen_ceiling_rps
            .map(|_| calibration_time(length == Length::Quick));
        let result = runner::run(&plan, &stop, &progress);
        progress.finish();
        drop(provision);
        let results = result?;
        super::report::write_reports(&results, &out_dir)?;
        let cells: Vec<_> = results.cells.iter().collect();
        println!("\nStudy {id} (seed {}): {}\n", study.seed, study.title);
        print!(
            "{}",
            restbench_report::text::cell_table(&cells, super::output::table_width())
        );
        if results.cells.iter().any(|c| c.status == CellStatus::Failed) {
            exit = ExitCode::from(1);
        }
        if results.interrupted {
            exit = ExitCode::from(130);
        }
        finished.push((out_dir, results));
    }
    if args.study == "all" && !finished.is_empty() {
        write_index(&base_out, &finished)?;
    }
    let all: Vec<&RunResults> = finished.iter().map(|(_, r)| r).collect();
    super::output::report_written(&exports.write_runs(&all)?);
    for (dir, _) in &finished {
        eprintln!("wrote {}", dir.join("report.html").display());
    }
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("interrupted: the finished cells are kept");
        return Ok(ExitCode::from(130));
    }
    Ok(exit)
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
    std::fs::write(&md, text).with_context(|| format!("cannot write {}", md.display()))?;
    let html = dir.join("report.html");
    std::fs::write(&html, restbench_report::html::render_many(&results))
        .with_context(|| format!("cannot write {}", html.display()))?;
    eprintln!("wrote {}", html.display());
    Ok(())
}
