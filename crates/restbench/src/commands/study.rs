//! `restbench study a|b|c|d|all`: the seed studies re-run with their own subjects, workload,
//! scenarios and load shape, beside the Rust contenders, and reported against the published
//! figures.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use restbench_harness::runner::{self, LoadShape, Observer, RunEntry, RunPlan};
use restbench_harness::subject::{self, Subject};
use restbench_harness::workload::Workload;
use restbench_loadgen::{HttpVersion, StopAt};
use restbench_model::published::{PublishedStudy, published_study};
use restbench_model::{CellStatus, RunResults, StudyInfo};

use super::progress::TerminalProgress;
use super::run::{calibrate, database, machine};
use crate::cli::StudyArgs;
use crate::signals;

/// The contenders restbench adds to every study.
const RUST_CONTENDERS: [&str; 4] = ["rust-hyper", "rust-axum", "rust-actix", "rust-reference"];

/// How long a study runs: the seed's own figures, the default shortening, or a first look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Length {
    Faithful,
    Default,
    Quick,
}

/// The load shape of a study, and a sentence on how it differs from the seed's.
pub fn study_shape(id: &str, length: Length, loadgen_cpus: usize) -> (LoadShape, String) {
    use Length::*;
    let secs = |f: u64, d: u64, q: u64| {
        Duration::from_secs(match length {
            Faithful => f,
            Default => d,
            Quick => q,
        })
    };
    let warmup = secs(3, 3, 1);
    let warmup_max = secs(30, 30, 8);
    match id {
        "a" => (
            LoadShape {
                connections: 10,
                threads: 2,
                stop: StopAt::Duration(secs(20, 10, 2)),
                warmup,
                warmup_max,
                ..LoadShape::default()
            },
            match length {
                Faithful => "20 s per repeat as the seed (wrk -d 20s -t2 -c10).".into(),
                Default => "10 s per repeat instead of the seed's 20 s.".into(),
                Quick => "2 s per repeat instead of the seed's 20 s (--quick).".into(),
            },
        ),
        "b" => {
            let (warm, measure) = match length {
                Faithful => (100_000, 100_000),
                Default => (20_000, 100_000),
                Quick => (5_000, 20_000),
            };
            (
                LoadShape {
                    connections: 32,
                    threads: 4,
                    stop: StopAt::Requests(measure),
                    warmup: Duration::ZERO,
                    warmup_requests: Some(warm),
                    ..LoadShape::default()
                },
                if length == Faithful {
                    "100,000 warm-up requests on 1 connection, then 100,000 on 32 connections with 4 threads, as the seed.".into()
                } else {
                    format!(
                        "{warm} warm-up requests on 1 connection (seed: 100,000), then {measure} on 32 connections with 4 threads (seed: 100,000)."
                    )
                },
            )
        }
        "c" => {
            let requests = if length == Quick { 2_000 } else { 10_000 };
            (
                LoadShape {
                    connections: 128,
                    threads: 1,
                    stop: StopAt::Requests(requests),
                    warmup: secs(5, 2, 1),
                    warmup_max,
                    keepalive: false,
                    http_version: HttpVersion::Http10,
                    timeout: Duration::from_secs(30),
                    ..LoadShape::default()
                },
                if length == Quick {
                    "2,000 requests at concurrency 128 (seed: 10,000), one connection per request as ab; a time warm-up instead of ab's four earlier runs.".into()
                } else {
                    "10,000 requests at concurrency 128, one connection per request as ab; a time warm-up instead of ab's four earlier runs.".into()
                },
            )
        }
        _ => (
            LoadShape {
                connections: 512,
                threads: 8.max(loadgen_cpus as u32),
                stop: StopAt::Duration(secs(600, 15, 3)),
                warmup,
                warmup_max,
                timeout: Duration::from_secs(60),
                ..LoadShape::default()
            },
            match length {
                Faithful => {
                    "10 min per repeat as the seed (wrk -t8 -c512 -d10m --timeout 1m).".into()
                }
                Default => "15 s per repeat instead of the seed's 10 min.".into(),
                Quick => "3 s per repeat instead of the seed's 10 min (--quick).".into(),
            },
        ),
    }
}

/// The cells of a study: every published figure that maps to a subject, then the Rust
/// contenders in each of the study's scenarios.
pub fn study_entries(
    study: &PublishedStudy,
    subjects: &[Subject],
    only: &[String],
) -> (Vec<RunEntry>, Vec<String>) {
    let wanted = |id: &str| only.is_empty() || only.iter().any(|o| o == id);
    let mut entries: Vec<RunEntry> = Vec::new();
    let mut missing = Vec::new();
    for cell in study.planned_cells() {
        if !wanted(&cell.subject) {
            continue;
        }
        let Some(subject) = subjects.iter().find(|s| s.id == cell.subject) else {
            missing.push(cell.subject.clone());
            continue;
        };
        // Consecutive scenarios of one subject without extra settings share an entry.
        if cell.settings.is_empty()
            && let Some(last) = entries.last_mut()
            && last.subject.id == subject.id
            && !last.scenarios.contains(&cell.scenario)
            && last.subject.scenarios == subject.scenarios
        {
            last.scenarios.push(cell.scenario.clone());
            continue;
        }
        entries.push(RunEntry::with_settings(
            subject.clone(),
            &cell.scenario,
            &cell.settings,
        ));
    }
    for id in RUST_CONTENDERS {
        if !wanted(id) || entries.iter().any(|e| e.subject.id == id) {
            continue;
        }
        match subjects.iter().find(|s| s.id == id) {
            Some(s) => entries.push(RunEntry {
                subject: s.clone(),
                scenarios: study.scenarios(),
            }),
            None => missing.push(id.to_string()),
        }
    }
    (entries, missing)
}

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
    let length = if args.faithful {
        Length::Faithful
    } else if args.quick {
        Length::Quick
    } else {
        Length::Default
    };
    let stop = signals::stop_flag()?;
    let root = super::subjects_root(&args.dir)?;
    let subjects = subject::discover(&root)?;
    let cache = restbench_harness::prepare::cache_dir(&root);
    let (placement, backend) = machine(args.loadgen_cpus.as_deref(), args.no_cgroups)?;
    let base_out = args.out.clone().unwrap_or_else(|| {
        super::results_folder().join(format!("study-{}-{}", args.study, runner::utc_stamp()))
    });
    let mut finished: Vec<(PathBuf, RunResults)> = Vec::new();
    let mut exit = ExitCode::SUCCESS;
    for id in ids.iter().map(String::as_str) {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        let Some(study) = published_study(id) else {
            continue;
        };
        let out_dir = if args.study == "all" {
            base_out.join(id)
        } else {
            base_out.clone()
        };
        let (entries, missing) = study_entries(&study, &subjects, &args.subjects);
        for m in &missing {
            eprintln!("study {id}: no subject {m} in {}", root.display());
        }
        let workload = Workload::parse(&study.workload)
            .with_context(|| format!("study {id} names an unknown workload"))?;
        let (mut shape, shortening) = study_shape(id, length, placement.loadgen.len());
        if let Some(d) = args.duration
            && let StopAt::Duration(_) = shape.stop
        {
            shape.stop = StopAt::Duration(d);
        }
        let repeats = args.repeats.unwrap_or(match length {
            Length::Quick => 1,
            _ => 3,
        });
        let mut plan = RunPlan {
            kind: format!("study {id}"),
            entries,
            workloads: vec![workload],
            shape,
            repeats: repeats.max(1),
            out_dir: out_dir.clone(),
            cache: cache.clone(),
            placement: placement.clone(),
            backend: backend.clone(),
            loadgen_ceiling_rps: None,
            database_url: None,
            db_pool_total: 100,
            note: None,
            study: StudyInfo::new(
                id,
                length != Length::Faithful,
                format!(
                    "{shortening} restbench's generator on CPU {} and the server on CPU {}; {} repeat(s) per cell.",
                    restbench_harness::placement::format_cpu_list(&placement.loadgen),
                    restbench_harness::placement::format_cpu_list(&placement.server),
                    repeats.max(1)
                ),
            ),
        };
        let total = runner::plan_cells(&plan);
        if total == 0 {
            eprintln!("study {id}: nothing to run");
            continue;
        }
        let needs_db = workload.needs_database();
        let (cluster, database_url) = database(needs_db, args.database_url.as_deref(), &cache)?;
        let progress = TerminalProgress::new(total);
        progress.note(&format!(
            "study {id} (seed {}): {} — {} cells; results: {}",
            study.seed,
            study.title,
            total,
            out_dir.display()
        ));
        plan.database_url = database_url;
        plan.loadgen_ceiling_rps = calibrate(
            &placement,
            &plan.shape,
            length == Length::Quick,
            &stop,
            &progress,
        );
        let result = runner::run(&plan, &stop, &progress);
        progress.finish();
        drop(cluster);
        let results = result?;
        super::report::write_reports(&results, &out_dir)?;
        let cells: Vec<_> = results.cells.iter().collect();
        println!("\n## Study {id} (seed {}): {}\n", study.seed, study.title);
        print!("{}", restbench_report::markdown::cell_table(&cells));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn subjects() -> Vec<Subject> {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../subjects");
        subject::discover(&root).unwrap()
    }

    #[test]
    fn study_a_runs_go_twice_under_one_cpu_and_adds_the_contenders() {
        let a = published_study("a").unwrap();
        let (entries, missing) = study_entries(&a, &subjects(), &[]);
        assert!(missing.is_empty(), "{missing:?}");
        let go_one_cpu: Vec<&RunEntry> = entries
            .iter()
            .filter(|e| e.subject.id == "go-nethttp" && e.scenarios.contains(&"one-cpu".into()))
            .collect();
        assert_eq!(go_one_cpu.len(), 2);
        let gomaxprocs: Vec<Option<&String>> = go_one_cpu
            .iter()
            .map(|e| e.subject.scenarios["one-cpu"].env.get("GOMAXPROCS"))
            .collect();
        assert!(gomaxprocs.contains(&None) && gomaxprocs.contains(&Some(&"1".to_string())));
        for id in RUST_CONTENDERS {
            let e = entries.iter().find(|e| e.subject.id == id).unwrap();
            assert_eq!(e.scenarios, ["single-thread", "one-cpu", "all-cores"]);
        }
        // Only what was asked for.
        let (only, _) = study_entries(&a, &subjects(), &["rust-hyper".into()]);
        assert_eq!(only.len(), 1);
    }

    #[test]
    fn study_shapes_follow_the_seeds() {
        let (c, note) = study_shape("c", Length::Default, 1);
        assert_eq!((c.connections, c.keepalive), (128, false));
        assert_eq!(c.http_version, HttpVersion::Http10);
        assert!(matches!(c.stop, StopAt::Requests(10_000)), "{note}");
        let (b, _) = study_shape("b", Length::Faithful, 1);
        assert_eq!((b.connections, b.threads), (32, 4));
        assert_eq!(b.warmup_requests, Some(100_000));
        let (d, note) = study_shape("d", Length::Faithful, 1);
        assert_eq!((d.connections, d.threads), (512, 8));
        assert_eq!(d.timeout, Duration::from_secs(60));
        assert!(matches!(d.stop, StopAt::Duration(t) if t == Duration::from_secs(600)));
        assert!(note.contains("10 min"));
        let (a, note) = study_shape("a", Length::Quick, 1);
        assert_eq!((a.connections, a.threads), (10, 2));
        assert!(note.contains("--quick"));
    }
}
