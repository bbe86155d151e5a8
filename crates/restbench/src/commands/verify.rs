//! `restbench verify`: the contract checks, per subject and workload.

use std::io::Write;
use std::process::ExitCode;

use anyhow::bail;
use restbench_harness::db::{Cluster, Database};
use restbench_harness::placement::{Placement, available_cpus};
use restbench_harness::runner::start_subject;
use restbench_harness::workload::Workload;
use restbench_harness::{prepare, subject, verify};
use restbench_model::{Finding, FindingLevel};
use serde::Serialize;

use crate::cli::VerifyArgs;

#[derive(Serialize)]
struct Report {
    subject: String,
    workload: String,
    passed: bool,
    findings: Vec<Finding>,
}

pub fn run(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let root = super::subjects_root(&args.dir)?;
    let subjects = subject::select(subject::discover(&root)?, &args.subjects)?;
    let workloads = parse_workloads(&args.workloads)?;
    let cache = prepare::cache_dir(&root);
    let placement = Placement::split(&available_cpus());
    let needs_db = subjects.iter().any(|s| {
        s.unavailable_reason().is_none()
            && workloads
                .iter()
                .any(|w| w.needs_database() && s.supports(*w))
    });
    let mut _cluster = None;
    let mut db_error = None;
    let mut url = args.database_url.clone();
    if needs_db && url.is_none() {
        match Cluster::start(None, &cache.join("logs")) {
            Ok(c) => {
                url = Some(c.url.clone());
                _cluster = Some(c);
            }
            Err(e) => db_error = Some(e.to_string()),
        }
    }
    let db = match &url {
        Some(u) if needs_db => match Database::connect(u).and_then(|d| d.seed().map(|_| d)) {
            Ok(d) => Some(d),
            Err(e) => {
                db_error = Some(e.to_string());
                None
            }
        },
        _ => None,
    };
    let mut reports = Vec::new();
    let mut failed = false;
    let mut out = std::io::stdout().lock();
    let human = !args.json;
    for s in &subjects {
        let mine: Vec<Workload> = workloads
            .iter()
            .copied()
            .filter(|w| s.supports(*w))
            .collect();
        if mine.is_empty() {
            continue;
        }
        if let Some(reason) = s.unavailable_reason() {
            if human {
                writeln!(out, "{}: skipped: {reason}", s.id)?;
            }
            continue;
        }
        let fail_all = |reason: String,
                        reports: &mut Vec<Report>,
                        out: &mut std::io::StdoutLock|
         -> std::io::Result<()> {
            if human {
                writeln!(out, "{}: FAIL {}", s.id, reason)?;
            }
            for w in &mine {
                reports.push(Report {
                    subject: s.id.clone(),
                    workload: w.name().into(),
                    passed: false,
                    findings: vec![Finding::fail("start", reason.clone())],
                });
            }
            Ok(())
        };
        if let Err(e) = prepare::prepare(s, &cache) {
            failed = true;
            fail_all(e.to_string(), &mut reports, &mut out)?;
            continue;
        }
        let mut running =
            match start_subject(s, &args.scenario, &placement, &cache, url.as_deref(), 100) {
                Ok(r) => r,
                Err(e) => {
                    failed = true;
                    fail_all(e.to_string(), &mut reports, &mut out)?;
                    continue;
                }
            };
        let common = verify::common(running.addr);
        for w in mine {
            let mut findings = common.clone();
            if w.needs_database() && db.is_none() {
                findings.push(Finding::fail(
                    "database",
                    db_error.clone().unwrap_or_else(|| "no database".into()),
                ));
            } else {
                findings.extend(verify::workload(running.addr, w, db.as_ref()));
            }
            let passed = verify::passed(&findings);
            failed |= !passed;
            if human {
                let warns = findings
                    .iter()
                    .filter(|f| f.level == FindingLevel::Warn)
                    .count();
                let verdict = if !passed {
                    "FAIL"
                } else if warns > 0 {
                    "pass with warnings"
                } else {
                    "pass"
                };
                writeln!(out, "{} {}: {verdict}", s.id, w)?;
                for f in findings
                    .iter()
                    .filter(|f| args.verbose || f.level != FindingLevel::Pass)
                {
                    let tag = match f.level {
                        FindingLevel::Pass => "ok  ",
                        FindingLevel::Warn => "warn",
                        FindingLevel::Fail => "FAIL",
                    };
                    writeln!(out, "    {tag} {}: {}", f.check, f.message)?;
                }
            }
            reports.push(Report {
                subject: s.id.clone(),
                workload: w.name().into(),
                passed,
                findings,
            });
        }
        running.child.stop(std::time::Duration::from_secs(5));
    }
    if args.json {
        serde_json::to_writer_pretty(&mut out, &reports)?;
        writeln!(out)?;
    } else {
        let bad = reports.iter().filter(|r| !r.passed).count();
        writeln!(
            out,
            "\n{} subject-workloads verified: {} passed, {bad} failed",
            reports.len(),
            reports.len() - bad
        )?;
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Workload names from the command line (all when empty).
pub fn parse_workloads(names: &[String]) -> anyhow::Result<Vec<Workload>> {
    if names.is_empty() {
        return Ok(Workload::ALL.to_vec());
    }
    names
        .iter()
        .map(|n| match Workload::parse(n) {
            Some(w) => Ok(w),
            None => bail!(
                "unknown workload {n:?} (known: {})",
                Workload::names().join(", ")
            ),
        })
        .collect()
}
