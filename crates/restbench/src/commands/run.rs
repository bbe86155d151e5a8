//! `restbench run`: the main job.

use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, bail};
use restbench_harness::db::{self, Provision};
use restbench_harness::error::chain;
use restbench_harness::host::cgroup::Backend;
use restbench_harness::host::placement::{Placement, available_cpus};
use restbench_harness::runner::{self, LoadShape, Mode, Observer, OpenLoop, RunEntry, RunPlan};
use restbench_harness::subject;
use restbench_loadgen::StopAt;
use restbench_model::time::utc_stamp;
use restbench_model::{CellStatus, Protocol, RunResults, Slo, Workload};

use super::progress::TerminalProgress;
use super::verify::{parse_scenarios, parse_workloads};
use crate::cli::{BadArgument, ModeArg, OpenLoopArgs, RunArgs};
use crate::signals;

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let root = super::subjects_root(&args.dir)?;
    let what = Measured {
        kind: "run",
        out_name: utc_stamp(),
        note: None,
    };
    // Refused before the subjects are read: a finished run is never at risk.
    let out_dir = out_dir(&args, &what);
    super::refuse_finished_run(&out_dir, args.force)?;
    let subjects = subject::select(subject::discover(&root)?, &args.subjects)?;
    let workloads = parse_workloads(&args.workloads)?;
    measure(subjects, workloads, &args, &root, what)
}

/// What a measuring command calls its results.
pub(crate) struct Measured {
    /// `kind` of the results document (`run`, `bench`).
    pub kind: &'static str,
    /// The results folder's name under `results/` when `--out` is not given.
    pub out_name: String,
    /// A sentence for the report about what was measured.
    pub note: Option<String>,
}

/// `--out`, else `results/<name>` in the current folder.
fn out_dir(args: &RunArgs, what: &Measured) -> std::path::PathBuf {
    args.out
        .clone()
        .unwrap_or_else(|| super::results_folder().join(&what.out_name))
}

/// The run path shared by `run` and `bench`: `subjects` × `workloads` × the scenarios of `args`,
/// measured by the harness runner; `root` is the subjects folder (the build cache is keyed by it).
pub(crate) fn measure(
    subjects: Vec<subject::Subject>,
    workloads: Vec<Workload>,
    args: &RunArgs,
    root: &Path,
    what: Measured,
) -> anyhow::Result<ExitCode> {
    let stop = signals::stop_flag()?;
    let out_dir = out_dir(args, &what);
    super::refuse_finished_run(&out_dir, args.force)?;
    let exports = super::output::open_exports(&args.export)?;
    let scenarios = parse_scenarios(&args.scenarios)?;
    let protocols = parse_protocols(&args.protocols)?;
    let (mut placement, backend) = machine(args.loadgen_cpus.as_deref(), args.no_cgroups)?;
    let remote = super::remote::for_run(&args.remote, args.loadgen_cpus.as_deref())?;
    if let Some(r) = &remote {
        placement = r.placement.clone();
    }
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
        warmup_max: if args.quick {
            Duration::from_secs(8)
        } else {
            Duration::from_secs(30)
        },
        ..LoadShape::default()
    };
    shape.check().map_err(super::load_error)?;
    let open_loop = open_loop(&args.open_loop, args.quick)?;
    let cache = restbench_harness::subject::prepare::cache_dir(root);
    let needs_db = workloads.iter().any(|w| w.needs_database())
        && subjects
            .iter()
            .any(|s| s.unavailable_reason().is_none() && s.supports(Workload::Users));
    let total: usize = subjects
        .iter()
        .map(|s| {
            workloads.iter().filter(|w| s.supports(**w)).count()
                * scenarios.len()
                * protocols.iter().filter(|p| s.protocols.contains(p)).count()
        })
        .sum();
    if total == 0 {
        bail!(
            "nothing to run: no selected subject serves the selected workloads over the selected \
             protocols (see `restbench subjects` and each subject.toml's `protocols`)"
        );
    }
    let placed = database(
        needs_db,
        args.database_url.as_deref(),
        &cache,
        &placement,
        args.db_cpus.as_deref(),
    )?;
    placement = placed.placement;
    let provision = placed.provision;
    if let Some(server) = remote.as_ref().and_then(|r| r.server.as_deref())
        && needs_db
    {
        super::remote::warn_loopback_database(server, provision.url.as_deref());
    }
    let progress = TerminalProgress::new(total);
    if provision.cluster.is_some() {
        progress.note("started PostgreSQL for the users workload");
    }
    progress.note(&format!(
        "results: {}  ({}; {})",
        out_dir.display(),
        placement.describe(),
        backend.kind.name()
    ));
    // The ceiling is a local generator's: remote ones are not calibrated.
    let loadgen_ceiling_rps =
        if args.no_calibrate || remote.as_ref().is_some_and(|r| r.generators.is_some()) {
            None
        } else {
            calibrate(&placement, &shape, args.quick, &stop, &progress)
        };
    let quick_note = args
        .quick
        .then(|| "A --quick pass: one short repeat per cell, for a first look only.".to_string());
    let plan = RunPlan {
        kind: what.kind.into(),
        entries: RunEntry::all(subjects, &scenarios),
        workloads,
        protocols,
        shape,
        repeats: args.repeats.unwrap_or(repeats).max(1),
        restarts: super::default_restarts(
            args.restarts,
            args.quick,
            args.repeats.unwrap_or(repeats).max(1),
        ),
        out_dir: out_dir.clone(),
        cache,
        placement,
        backend,
        loadgen_ceiling_rps,
        calibration: loadgen_ceiling_rps.map(|_| calibration_time(args.quick)),
        database_url: provision.url.clone(),
        db_cpus: placed.db_cpus,
        database: placed.database,
        db_pool_total: args.db_pool,
        note: join_notes(
            join_notes(what.note, quick_note),
            remote.as_ref().map(|r| r.note.clone()),
        ),
        study: None,
        open_loop,
        server_address: remote.as_ref().map(|r| r.address),
        server_host: remote.as_ref().and_then(|r| r.server.clone()),
        remote: remote.and_then(|r| r.generators),
    };
    let result = runner::run(&plan, &stop, &progress);
    progress.finish();
    drop(provision);
    let results = result?;
    super::output::report_written(&exports.write_runs(&[&results])?);
    finish(&results, &out_dir)
}

/// The open-loop measures asked for: `--slo` alone means both measures; capacity without an SLO
/// is refused; every rate must be one the generator can be asked for.
pub(crate) fn open_loop(args: &OpenLoopArgs, quick: bool) -> anyhow::Result<OpenLoop> {
    let bad = |m: String| anyhow::Error::new(BadArgument(m));
    let slo = Slo::parse_all(&args.slo).map_err(|e| bad(e.to_string()))?;
    let mode = match (args.mode, slo.is_empty()) {
        (None, true) | (Some(ModeArg::Throughput), _) => Mode::Throughput,
        (None, false) | (Some(ModeArg::Both), false) => Mode::Both,
        (Some(ModeArg::Capacity), false) => Mode::Capacity,
        (Some(m @ (ModeArg::Capacity | ModeArg::Both)), true) => {
            return Err(bad(format!(
                "--mode {} needs an SLO: add --slo 'p99<=10ms' (and --slo 'errors<=0.1%' …)",
                if m == ModeArg::Both {
                    "both"
                } else {
                    "capacity"
                }
            )));
        }
    };
    let (lo, hi) = restbench_loadgen::RATE_RANGE;
    for r in &args.at_rate {
        if !(r.is_finite() && (lo..=hi).contains(r)) {
            return Err(bad(format!(
                "--at-rate {r} is not a rate from {lo} to {hi} requests per second"
            )));
        }
    }
    let step_duration = args.step_duration.unwrap_or(if quick {
        Duration::from_secs(1)
    } else {
        Duration::from_secs(3)
    });
    if !(Duration::from_millis(50)..=Duration::from_secs(3600)).contains(&step_duration) {
        return Err(bad("--step-duration must be from 50ms to 1h".into()));
    }
    Ok(OpenLoop {
        mode,
        slo,
        at_rates: args.at_rate.clone(),
        step_duration,
        step_warmup: if quick {
            Duration::from_millis(500)
        } else {
            Duration::from_secs(1)
        },
        resolution: args.resolution,
        max_steps: if quick { 10 } else { 14 },
    })
}

/// Two optional sentences as one.
pub(crate) fn join_notes(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a} {b}")),
        (a, b) => a.or(b),
    }
}

/// The CPU placement and the enforcement backend for a run.
pub(crate) fn machine(
    loadgen_cpus: Option<&str>,
    no_cgroups: bool,
) -> anyhow::Result<(Placement, Backend)> {
    let available = available_cpus();
    let placement = match loadgen_cpus {
        Some(list) => Placement::with_loadgen(&available, list)
            .map_err(|e| BadArgument(format!("--loadgen-cpus {list}: {e}")))?,
        None => Placement::split(&available),
    };
    let backend = if no_cgroups {
        Backend::affinity_only("--no-cgroups given")
    } else {
        Backend::probe()
    };
    Ok((placement, backend))
}

/// The database of a run, where it runs, and the placement left to the server.
pub(crate) struct PlacedDatabase {
    pub provision: Provision,
    /// The placement for the run: the server's CPUs less the cluster's when it got its own.
    pub placement: Placement,
    /// The cluster's CPUs (empty with an external database or none).
    pub db_cpus: Vec<usize>,
    /// Where it runs, for every cell (empty without a database).
    pub database: String,
}

/// The database of a run: a given URL must work now, not after the first subject was built;
/// without one, a throwaway cluster placed by [`Placement::with_database`] (`--db-cpus` chooses)
/// (the users cells fail with the reason when it cannot start).
pub(crate) fn database(
    needs_db: bool,
    url: Option<&str>,
    cache: &Path,
    placement: &Placement,
    db_cpus: Option<&str>,
) -> anyhow::Result<PlacedDatabase> {
    if db_cpus.is_some() && url.is_some() {
        return Err(BadArgument(
            "--db-cpus places the PostgreSQL cluster restbench starts; with --database-url (or \
             DATABASE_URL) the database is external: drop one of them"
                .into(),
        )
        .into());
    }
    let (chosen, carved) = placement
        .with_database(&available_cpus(), db_cpus)
        .map_err(|e| BadArgument(format!("--db-cpus {}: {e}", db_cpus.unwrap_or(""))))?;
    let own = needs_db && url.is_none();
    let provision = db::provide(
        needs_db,
        url,
        &cache.join("logs"),
        own.then(|| chosen.clone()),
    )
    .context("--database-url")?;
    if let Some(e) = &provision.problem {
        eprintln!("warning: users cells will fail: {}", chain(e));
    }
    Ok(if provision.cluster.is_some() {
        PlacedDatabase {
            provision,
            database: database_place(&chosen, placement),
            placement: carved,
            db_cpus: chosen,
        }
    } else {
        PlacedDatabase {
            database: if provision.url.is_some() && needs_db {
                "external".into()
            } else {
                String::new()
            },
            provision,
            placement: placement.clone(),
            db_cpus: Vec::new(),
        }
    })
}

/// Where the run's own cluster runs, in a few words: whose CPUs it shares.
fn database_place(db: &[usize], placement: &Placement) -> String {
    let list = restbench_harness::host::placement::format_cpu_list(db);
    let shares = |side: &[usize]| db.iter().any(|c| side.contains(c));
    match (shares(&placement.loadgen), shares(&placement.server)) {
        (true, true) => format!("own cluster on CPU {list}, shared with generator and server"),
        (true, false) => format!("own cluster on CPU {list}, the generator's"),
        (false, true) => format!("own cluster on CPU {list}, shared with the server"),
        (false, false) => format!("own cluster on CPU {list}, its own"),
    }
}

/// How long one calibration of the generator runs.
pub(crate) fn calibration_time(quick: bool) -> Duration {
    Duration::from_millis(if quick { 1000 } else { 3000 })
}

/// Measures the generator's ceiling against a trivial server with the run's shape.
pub(crate) fn calibrate(
    placement: &Placement,
    shape: &LoadShape,
    quick: bool,
    stop: &AtomicBool,
    progress: &TerminalProgress,
) -> Option<f64> {
    let duration = calibration_time(quick);
    match restbench_harness::runner::calibrate::loadgen_ceiling(placement, shape, duration, stop) {
        Ok(c) => {
            progress.note(&format!(
                "generator ceiling: {:.0} req/s against a trivial server ({:.2} generator cores)",
                c.rps, c.loadgen_cores
            ));
            Some(c.rps)
        }
        Err(e) => {
            progress.note(&format!("cannot calibrate the generator: {}", chain(&e)));
            None
        }
    }
}

/// Writes report.md, prints the table, and turns the results into an exit code.
pub(crate) fn finish(results: &RunResults, out_dir: &Path) -> anyhow::Result<ExitCode> {
    let written = super::report::write_reports(results, out_dir)?;
    let cells: Vec<_> = results.cells.iter().collect();
    print!(
        "{}",
        restbench_report::text::cell_table(&cells, super::output::table_width())
    );
    eprintln!(
        "\nwrote {} and {}",
        out_dir.join("results.json").display(),
        written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" and ")
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

/// `--protocols`: known names, each once, in the order given.
pub(crate) fn parse_protocols(names: &[String]) -> anyhow::Result<Vec<Protocol>> {
    let mut out = Vec::new();
    for name in names {
        let p = Protocol::parse(name.trim()).map_err(|m| anyhow::anyhow!("--protocols: {m}"))?;
        if !out.contains(&p) {
            out.push(p);
        }
    }
    if out.is_empty() {
        bail!("--protocols needs at least one of h1, h2c");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(mode: Option<ModeArg>, slo: &[&str], rates: &[f64]) -> OpenLoopArgs {
        OpenLoopArgs {
            mode,
            slo: slo.iter().map(|s| s.to_string()).collect(),
            at_rate: rates.to_vec(),
            step_duration: None,
            resolution: 0.02,
        }
    }

    #[test]
    fn the_mode_follows_the_slo_and_refuses_capacity_without_one() {
        assert_eq!(
            open_loop(&args(None, &[], &[]), false).unwrap().mode,
            Mode::Throughput
        );
        let both = open_loop(&args(None, &["p99<=5ms"], &[20_000.0]), true).unwrap();
        assert_eq!(both.mode, Mode::Both);
        assert_eq!(both.at_rates, vec![20_000.0]);
        assert_eq!(both.step_duration, Duration::from_secs(1), "--quick steps");
        let cap = open_loop(&args(Some(ModeArg::Capacity), &["p99<=5ms"], &[]), false).unwrap();
        assert_eq!(cap.mode, Mode::Capacity);
        let e = open_loop(&args(Some(ModeArg::Capacity), &[], &[]), false).unwrap_err();
        assert!(e.to_string().contains("needs an SLO"), "{e}");
        let e = open_loop(&args(None, &["p99<=fast"], &[]), false).unwrap_err();
        assert!(e.to_string().contains("invalid SLO clause"), "{e}");
        let e = open_loop(&args(None, &[], &[f64::NAN]), false).unwrap_err();
        assert!(e.to_string().contains("--at-rate"), "{e}");
        let e = open_loop(&args(None, &[], &[0.0]), false).unwrap_err();
        assert!(e.to_string().contains("--at-rate"), "{e}");
    }

    #[test]
    fn protocols_are_parsed_once_each_and_unknown_ones_refused() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            super::parse_protocols(&names(&["h1", "h2c", "h1"])).unwrap(),
            vec![Protocol::H1, Protocol::H2c]
        );
        let e = super::parse_protocols(&names(&["h3"]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--protocols") && e.contains("h1, h2c"), "{e}");
    }
}
