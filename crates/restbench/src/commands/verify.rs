//! `restbench verify`: the contract checks, per subject and workload.

use std::cell::RefCell;
use std::io::Write;
use std::process::ExitCode;

use restbench_harness::events::{Event, RunEvent};
use restbench_harness::planner::DEFAULT_DB_POOL;
use restbench_harness::sessions::verify::{VerifyOptions, verify_subjects};
use restbench_model::{FindingLevel, VerifyOutcome, Workload};
use restbench_subject::{self as subject, prepare};

use crate::cli::VerifyArgs;
use crate::common::subjects_root;

pub fn run(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let root = subjects_root(&args.dir)?;
    let subjects = subject::select(subject::discover(&root)?, &args.subjects)?;
    let workloads = match &args.workloads {
        w if w.is_empty() => Workload::ALL.to_vec(),
        w => w.clone(),
    };
    let scenario = args.scenario;
    let cache = prepare::cache_dir(&root);
    let options = VerifyOptions {
        subjects: &subjects,
        workloads: &workloads,
        scenario,
        cache: &cache,
        database_url: args.database_url.as_deref(),
        db_pool_total: DEFAULT_DB_POOL,
    };
    let human = !args.json;
    let printer = RefCell::new((std::io::stdout().lock(), Ok(())));
    let report = verify_subjects(&options, &|event: &Event| {
        let (out, written) = &mut *printer.borrow_mut();
        if human && written.is_ok() {
            *written = print_event(out, &event.kind, args.verbose);
        }
    });
    let (mut out, written) = printer.into_inner();
    written?;
    let failed = report.results.iter().filter(|r| !r.passed).count();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "\n{} subject-workloads verified: {} passed, {failed} failed",
            report.results.len(),
            report.results.len() - failed
        )?;
    }
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_event(out: &mut impl Write, event: &RunEvent, verbose: bool) -> std::io::Result<()> {
    match event {
        RunEvent::SubjectSkipped { subject, reason } => {
            writeln!(out, "{subject}: skipped: {reason}")
        }
        RunEvent::SubjectFailed { subject, reason } => writeln!(out, "{subject}: FAIL {reason}"),
        RunEvent::Verified(outcome) => print_outcome(out, outcome, verbose),
        _ => Ok(()),
    }
}

fn print_outcome(out: &mut impl Write, o: &VerifyOutcome, verbose: bool) -> std::io::Result<()> {
    let warns = o
        .findings
        .iter()
        .filter(|f| f.level == FindingLevel::Warn)
        .count();
    let verdict = if !o.passed {
        "FAIL"
    } else if warns > 0 {
        "pass with warnings"
    } else {
        "pass"
    };
    writeln!(out, "{} {}: {verdict}", o.subject, o.workload)?;
    for f in o
        .findings
        .iter()
        .filter(|f| verbose || f.level != FindingLevel::Pass)
    {
        let tag = match f.level {
            FindingLevel::Pass => "ok  ",
            FindingLevel::Warn => "warn",
            FindingLevel::Fail => "FAIL",
        };
        writeln!(out, "    {tag} {}: {}", f.check, f.message)?;
    }
    Ok(())
}
