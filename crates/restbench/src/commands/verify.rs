//! `restbench verify`: the contract checks, per subject and workload.

use std::io::Write;
use std::process::ExitCode;

use restbench_harness::subject::{self, prepare};
use restbench_harness::verify::session::{VerifyEvent, VerifyOptions, verify_subjects};
use restbench_model::{FindingLevel, Scenario, VerifyOutcome, Workload};

use crate::cli::VerifyArgs;

pub fn run(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let root = super::subjects_root(&args.dir)?;
    let subjects = subject::select(subject::discover(&root)?, &args.subjects)?;
    let workloads = parse_workloads(&args.workloads)?;
    let scenario: Scenario = args.scenario.parse()?;
    let cache = prepare::cache_dir(&root);
    let options = VerifyOptions {
        subjects: &subjects,
        workloads: &workloads,
        scenario,
        cache: &cache,
        database_url: args.database_url.as_deref(),
        db_pool_total: 100,
    };
    let mut out = std::io::stdout().lock();
    let human = !args.json;
    let mut written = Ok(());
    let report = verify_subjects(&options, |event| {
        if human && written.is_ok() {
            written = print_event(&mut out, &event, args.verbose);
        }
    });
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

fn print_event(out: &mut impl Write, event: &VerifyEvent, verbose: bool) -> std::io::Result<()> {
    match event {
        VerifyEvent::Skipped { subject, reason } => writeln!(out, "{subject}: skipped: {reason}"),
        VerifyEvent::Failed { subject, reason } => writeln!(out, "{subject}: FAIL {reason}"),
        VerifyEvent::Checked(outcome) => print_outcome(out, outcome, verbose),
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

/// Workload names from the command line (all when empty).
pub fn parse_workloads(names: &[String]) -> anyhow::Result<Vec<Workload>> {
    if names.is_empty() {
        return Ok(Workload::ALL.to_vec());
    }
    Ok(names
        .iter()
        .map(|n| n.parse::<Workload>())
        .collect::<Result<_, _>>()?)
}

/// Scenario names from the command line.
pub fn parse_scenarios(names: &[String]) -> anyhow::Result<Vec<Scenario>> {
    Ok(names
        .iter()
        .map(|n| n.parse::<Scenario>())
        .collect::<Result<_, _>>()?)
}
