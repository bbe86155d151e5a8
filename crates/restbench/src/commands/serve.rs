//! `restbench serve ID`: one subject in the foreground, started as `run` starts it.

use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, bail};
use restbench_db as db;
use restbench_harness::serve::{StartOptions, start_subject};
use restbench_host::cgroup::Backend;
use restbench_host::error::chain;
use restbench_host::placement::{Placement, available_cpus};
use restbench_host::process;
use restbench_model::Workload;
use restbench_subject::{self as subject, prepare};

use crate::cli::ServeArgs;
use crate::signals;

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let stop = signals::stop_flag()?;
    let root = crate::common::subjects_root(&args.dir)?;
    let subjects = subject::select(subject::discover(&root)?, std::slice::from_ref(&args.id))?;
    let s = &subjects[0];
    if let Some(reason) = s.unavailable_reason() {
        bail!("{} is not available here: {reason}", s.id);
    }
    let scenario = Some(args.scenario).filter(|sc| s.scenarios.contains_key(sc));
    let Some(scenario) = scenario else {
        bail!(
            "{} declares no {} scenario (it has: {})",
            s.id,
            args.scenario,
            s.scenarios
                .keys()
                .map(|sc| sc.name())
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    let cache = prepare::cache_dir(&root);
    eprintln!("preparing {} …", s.id);
    prepare::prepare(s, &cache)?;
    // A given URL is passed on as it is; a throwaway cluster is started for a subject serving a
    // database workload.
    let needs_db = args.database_url.is_none()
        && Workload::ALL
            .iter()
            .any(|w| w.needs_database() && s.supports(*w));
    let provision = db::provide(
        needs_db,
        args.database_url.as_deref(),
        &cache.join("logs"),
        None,
    )?;
    if let Some(e) = &provision.problem {
        eprintln!("warning: no database for /users: {}", chain(e));
    }
    let placement = Placement::split(&available_cpus());
    let backend = Backend::affinity_only("not requested");
    let options = StartOptions {
        placement: &placement,
        backend: &backend,
        cache: &cache,
        database_url: provision.url.as_deref(),
        db_pool_total: args.db_pool,
        address: None,
        remote: None,
    };
    let mut running = start_subject(s, scenario, &options, args.port)?;
    println!("http://{}", running.addr);
    let routes = s
        .workloads
        .iter()
        .map(|w| format!("{} {}", w.method(), w.path()))
        .collect::<Vec<_>>()
        .join(", ");
    let ready = [
        format!(
            "{} ({scenario}) ready in {:.1}s on http://{}; Ctrl-C stops it",
            s.id,
            running.ready_after.as_secs_f64(),
            running.addr
        ),
        format!("  placement: {}", placement.describe()),
        format!("  routes: {routes}"),
        format!("  output: {}", running.child.log_path().display()),
    ];
    let width = crate::width::stderr_width();
    for line in ready {
        for part in crate::width::hanging(&line, width, 4) {
            eprintln!("{part}");
        }
    }
    if let Some(c) = &provision.cluster {
        let file = c.root().join("database-url");
        write_secret(&file, &c.url)?;
        // Two lines, so that the file's path is whole on one line of its own.
        eprintln!("database: {}", db::redact(&c.url));
        eprintln!(
            "  the usable URL, with its password, is in {}",
            file.display()
        );
        eprintln!("  (mode 0600)");
    }
    while !stop.load(Ordering::Relaxed) {
        if let Some(status) = running.child.exited() {
            eprintln!("{} exited: {status}\n{}", s.id, running.child.log_tail(10));
            return Ok(ExitCode::from(1));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    running.child.stop(Duration::from_secs(5));
    drop(provision);
    eprintln!("stopped");
    Ok(ExitCode::SUCCESS)
}

/// The throwaway cluster's URL, password included, where only this user can read it: stderr is
/// what `| tee` and CI logs keep, so the password is never printed, yet a client can connect with
/// `psql "$(cat FILE)"`. The file is in the cluster's folder and goes with it.
fn write_secret(path: &Path, url: &str) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let written = process::create_afresh(path).and_then(|mut f| {
        f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        writeln!(f, "{url}")
    });
    written.with_context(|| format!("cannot write {}", path.display()))
}
