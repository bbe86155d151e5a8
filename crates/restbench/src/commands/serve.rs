//! `restbench serve ID`: one subject in the foreground, started as `run` starts it.

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::bail;
use restbench_harness::db::Cluster;
use restbench_harness::placement::{Placement, available_cpus};
use restbench_harness::runner::{start_subject, start_subject_on};
use restbench_harness::workload::Workload;
use restbench_harness::{prepare, subject};

use crate::cli::ServeArgs;
use crate::signals;

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let stop = signals::stop_flag()?;
    let root = super::subjects_root(&args.dir)?;
    let subjects = subject::select(subject::discover(&root)?, std::slice::from_ref(&args.id))?;
    let s = &subjects[0];
    if let Some(reason) = s.unavailable_reason() {
        bail!("{} is not available here: {reason}", s.id);
    }
    if !s.scenarios.contains_key(&args.scenario) {
        bail!(
            "{} declares no {} scenario (it has: {})",
            s.id,
            args.scenario,
            s.scenarios.keys().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    let cache = prepare::cache_dir(&root);
    eprintln!("preparing {} …", s.id);
    prepare::prepare(s, &cache)?;
    let mut cluster = None;
    let mut url = args.database_url.clone();
    if url.is_none() && s.supports(Workload::Users) {
        match Cluster::start(None, &cache.join("logs")) {
            Ok(c) => {
                url = Some(c.url.clone());
                cluster = Some(c);
            }
            Err(e) => eprintln!("warning: no database for /users: {e}"),
        }
    }
    let placement = Placement::split(&available_cpus());
    let running = match args.port {
        Some(port) => start_subject_on(
            s,
            &args.scenario,
            &placement,
            &cache,
            url.as_deref(),
            args.db_pool,
            port,
        )?,
        None => start_subject(
            s,
            &args.scenario,
            &placement,
            &cache,
            url.as_deref(),
            args.db_pool,
        )?,
    };
    let mut running = running;
    println!("http://{}", running.addr);
    eprintln!(
        "{} ({}) ready in {:.1}s on http://{} — {}; routes: {}; output: {}; Ctrl-C stops it",
        s.id,
        args.scenario,
        running.ready_after.as_secs_f64(),
        running.addr,
        placement.describe(),
        s.workloads
            .iter()
            .map(|w| format!("{} {}", w.method(), w.path()))
            .collect::<Vec<_>>()
            .join(", "),
        running.child.log_path().display()
    );
    if let Some(c) = &cluster {
        eprintln!("database: {}", restbench_harness::db::redact(&c.url));
    }
    while !stop.load(Ordering::Relaxed) {
        if let Some(status) = running.child.exited() {
            eprintln!("{} exited: {status}\n{}", s.id, running.child.log_tail(10));
            return Ok(ExitCode::from(1));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    running.child.stop(Duration::from_secs(5));
    drop(cluster);
    eprintln!("stopped");
    Ok(ExitCode::SUCCESS)
}
