//! `restbench conformance`: how each subject reads HTTP/1.1, case by case.

use std::io::Write;
use std::process::ExitCode;

use restbench_harness::events::{Event, RunEvent, Step};
use restbench_harness::planner::DEFAULT_DB_POOL;
use restbench_harness::sessions::conformance::{ConformanceOptions, conformance_subjects};
use restbench_model::{ConformanceReport, Workload};
use restbench_report::text::{Column, TextTable};
use restbench_subject::{self as subject, prepare};

use crate::cli::{BadArgument, ConformanceArgs};
use crate::common::subjects_root;
use crate::output::conformance_summary;

const COLUMNS: [Column; 4] = [
    Column::left("CASE"),
    Column::left("LEVEL"),
    Column::left("VERDICT"),
    Column::left("SEEN"),
];

pub fn run(args: ConformanceArgs) -> anyhow::Result<ExitCode> {
    let root = subjects_root(&args.dir)?;
    // An unknown subject name is a bad argument (exit 2), as a bad flag value is.
    let subjects = subject::select(subject::discover(&root)?, &args.subjects)
        .map_err(|e| anyhow::Error::new(BadArgument(e.to_string())))?;
    let workloads = match &args.workloads {
        w if w.is_empty() => Workload::ALL.to_vec(),
        w => w.clone(),
    };
    let cache = prepare::cache_dir(&root);
    let options = ConformanceOptions {
        subjects: &subjects,
        workloads: &workloads,
        cache: &cache,
        database_url: args.database_url.as_deref(),
        db_pool_total: DEFAULT_DB_POOL,
        fresh: args.fresh,
    };
    let report = conformance_subjects(&options, &|event: &Event| progress(&event.kind));
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        print_report(&mut out, &report, args.verbose)?;
    }
    Ok(if report.subjects.iter().any(|s| !s.conformant()) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Progress on stderr: each subject's step and its summary line.
fn progress(event: &RunEvent) {
    match event {
        RunEvent::Step { at, step }
            if matches!(step, Step::Building | Step::Starting | Step::Conformance) =>
        {
            eprintln!("{}: {step}", at.subject)
        }
        RunEvent::SubjectSkipped { subject, reason } => eprintln!("{subject}: skipped: {reason}"),
        RunEvent::Conformed {
            conformance,
            cached,
        } => eprintln!("{}", conformance_summary(conformance, *cached)),
        _ => {}
    }
}

/// The report's own table of the checks (`-v` lists every case of every subject first).
fn print_report(
    out: &mut impl Write,
    report: &ConformanceReport,
    verbose: bool,
) -> std::io::Result<()> {
    if verbose {
        for s in &report.subjects {
            writeln!(out, "{}", conformance_summary(s, None))?;
            let rows: Vec<Vec<String>> = s
                .cases
                .iter()
                .map(|c| {
                    vec![
                        c.case.clone(),
                        restbench_report::conformance::level_word(c.level).into(),
                        restbench_report::conformance::verdict_word(c.verdict).into(),
                        c.seen.clone(),
                    ]
                })
                .collect();
            for line in TextTable::new(&COLUMNS, rows).lines() {
                writeln!(out, "    {line}")?;
            }
        }
        writeln!(out)?;
    }
    write!(
        out,
        "{}",
        restbench_report::text::conformance(report, crate::output::table_width())
    )
}
