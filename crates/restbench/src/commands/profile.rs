//! `restbench profile SUBJECT --workload W`: one subject started as `run` starts it, warmed up,
//! then profiled under the workload's load (the harness's `profile` slice), written as a folder
//! (folded stacks, flame graph, page, profile.json) and printed as its split and top symbols.
//! `restbench profile --diff A B`: inferno's differential flame graph of two profiles.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use restbench_db as db;
use restbench_harness::profile::{self, ProfiledServer, Slice};
use restbench_harness::runner::LoadShape;
use restbench_harness::serve::{StartOptions, start_subject};
use restbench_host::cgroup::Backend;
use restbench_host::error::chain;
use restbench_host::placement::{Placement, available_cpus};
use restbench_loadgen::Target;
use restbench_model::{Workload, read_results};
use restbench_report::html::profile as html;
use restbench_subject::{self as subject, prepare};
use restbench_verify::requests as workload;

use crate::cli::ProfileArgs;
use crate::signals;

pub fn run(args: ProfileArgs) -> anyhow::Result<ExitCode> {
    if let [a, b] = args.diff.as_slice() {
        return diff(a, b, args.out.as_deref());
    }
    let Some(id) = &args.id else {
        bail!("name a subject to profile, or two profiles with --diff A B");
    };
    let backend = Backend::probe();
    let found = profile::availability(backend.kind);
    if !found.usable {
        bail!("cannot profile here: {}", found.detail);
    }
    let stop = signals::stop_flag()?;
    let root = crate::common::subjects_root(&args.dir)?;
    let subjects = subject::select(subject::discover(&root)?, std::slice::from_ref(id))?;
    let s = &subjects[0];
    if let Some(reason) = s.unavailable_reason() {
        bail!("{} is not available here: {reason}", s.id);
    }
    if !s.supports(args.workload) || !s.scenarios.contains_key(&args.scenario) {
        bail!(
            "{} does not serve {} in the {} scenario",
            s.id,
            args.workload,
            args.scenario
        );
    }
    let cache = prepare::cache_dir(&root);
    eprintln!("preparing {} …", s.id);
    prepare::prepare(s, &cache)?;
    let provision = db::provide(
        args.workload.needs_database(),
        None,
        &cache.join("logs"),
        None,
    )?;
    if let Some(e) = &provision.problem {
        bail!("no database for the users workload: {}", chain(e));
    }
    let placement = Placement::split(&available_cpus());
    let options = StartOptions {
        placement: &placement,
        backend: &backend,
        cache: &cache,
        database_url: provision.url.as_deref(),
        db_pool_total: restbench_harness::planner::DEFAULT_DB_POOL,
        address: None,
        remote: None,
    };
    let mut server = start_subject(s, args.scenario, &options, None)?;
    let w = args.workload;
    let url = format!("http://{}{}", server.addr, w.path());
    let shape = LoadShape {
        connections: args.connections,
        ..LoadShape::default()
    };
    let mut spec = shape.spec(Target::parse(&url)?);
    spec.method = w.method().into();
    spec.headers = workload::headers(w);
    spec.body = workload::body(w);
    eprintln!(
        "{} ({}) ready; warming up {:?}, then profiling {:?} under {w}",
        s.id, args.scenario, args.warmup, args.duration
    );
    let observer = restbench_harness::events::Events::none();
    let slice = Slice {
        spec: &spec,
        loadgen_cpus: &placement.loadgen,
        duration: args.duration,
        warmup: args.warmup,
        stop: &stop,
        observer: &observer,
    };
    let mut target = ProfiledServer {
        server: &mut server,
        subject: s,
        scenario: args.scenario,
        options: &options,
    };
    let outcome = profile::profile_slice(&mut target, &slice)
        .map_err(|e| anyhow::anyhow!("{}", chain(&e)))?;
    let label = format!("{} {}", s.id, args.scenario);
    let out = args.out.unwrap_or_else(|| {
        PathBuf::from("profiles").join(format!("{}-{w}-{}", s.id, args.scenario))
    });
    write_folder(&out, &label, w, &outcome)?;
    if args.keep_script {
        std::fs::write(out.join("perf.script"), &outcome.script)?;
    }
    print!(
        "{}",
        restbench_report::text::profile::summary(&label, &outcome.profile, None)
    );
    eprintln!("wrote {}", out.join("profile.html").display());
    Ok(ExitCode::SUCCESS)
}

/// The profile's folder: stacks.folded, flamegraph.svg, profile.html and profile.json.
fn write_folder(
    out: &Path,
    label: &str,
    w: Workload,
    outcome: &profile::SliceOutcome,
) -> anyhow::Result<()> {
    profile::write_folded(out, &outcome.folded)
        .with_context(|| format!("cannot write {}", out.display()))?;
    let svg = html::flame_graph(&outcome.folded, &format!("{label} {w}"))?;
    std::fs::write(out.join("flamegraph.svg"), svg)?;
    let page = html::page(label, w.name(), &outcome.profile, &outcome.folded);
    std::fs::write(out.join("profile.html"), page)?;
    let json = serde_json::to_string_pretty(&outcome.profile)?;
    std::fs::write(out.join("profile.json"), json + "\n")?;
    Ok(())
}

/// `--diff A B`: the differential flame graph written to `out` (diff.svg).
fn diff(a: &str, b: &str, out: Option<&Path>) -> anyhow::Result<ExitCode> {
    let before = folded_of(a)?;
    let after = folded_of(b)?;
    let svg = html::differential_flame_graph(&before, &after, &format!("{a} → {b}"))?;
    let out = out.map_or_else(|| PathBuf::from("profiles").join("diff"), Path::to_path_buf);
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let file = out.join("diff.svg");
    std::fs::write(&file, svg).with_context(|| format!("cannot write {}", file.display()))?;
    println!("{}", file.display());
    eprintln!("red: frames with more of {b}'s samples than {a}'s; blue: fewer");
    Ok(ExitCode::SUCCESS)
}

/// The folded stacks a `--diff` argument names: a file, a profile folder, or a run's cell.
fn folded_of(arg: &str) -> anyhow::Result<String> {
    let path = Path::new(arg);
    if path.is_file() {
        return std::fs::read_to_string(path).with_context(|| format!("cannot read {arg}"));
    }
    if path.join("stacks.folded").is_file() {
        return Ok(std::fs::read_to_string(path.join("stacks.folded"))?);
    }
    let Some((dir, cell)) = arg.rsplit_once(':') else {
        bail!(
            "{arg}: not a folded-stacks file, a profile folder, or RUN_DIR:SUBJECT/WORKLOAD/SCENARIO"
        );
    };
    let parts: Vec<&str> = cell.split('/').collect();
    let [subject, workload, scenario] = parts.as_slice() else {
        bail!("{arg}: name the cell as SUBJECT/WORKLOAD/SCENARIO");
    };
    let file = if Path::new(dir).is_dir() {
        Path::new(dir).join("results.json")
    } else {
        PathBuf::from(dir)
    };
    let results = read_results(&file).with_context(|| format!("cannot read {}", file.display()))?;
    let found = results
        .cells
        .iter()
        .find(|c| c.subject == *subject && c.workload == *workload && c.scenario == *scenario);
    let Some(found) = found else {
        bail!("{}: no cell {cell}", file.display());
    };
    let Some(profile) = &found.profile else {
        bail!(
            "{}: the cell {cell} has no profile (run with --profile)",
            file.display()
        );
    };
    Ok(profile.folded()?)
}
