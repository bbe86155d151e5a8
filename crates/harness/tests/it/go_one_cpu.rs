//! Seed 000's one-cpu finding, as today's Go answers it.
//!
//! In 2018 Go under `docker --cpus=1` on a multi-core host set GOMAXPROCS to the host's cores and
//! the CFS quota throttled it: the study published 580 req/s with GOMAXPROCS unset against 6,210
//! with GOMAXPROCS=1. Go 1.25 reads the cgroup's CPU limit, but never goes below 2 on its own
//! (`max(2, ceil(limit))`, capped by the CPUs it may use; golang/go#74283). Here go-nethttp runs
//! under a quota of one CPU while it may run on every CPU, once with GOMAXPROCS unset and once with
//! GOMAXPROCS=1; the runtime's choice is read from the subject's start-up line, and both variants
//! must serve a short load without a collapse. The figures belong to `restbench study a`.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use restbench_harness::serve::{StartOptions, start_subject};
use restbench_host::cgroup::{Backend, BackendKind};
use restbench_host::placement::{Placement, available_cpus};
use restbench_loadgen::{LoadSpec, Progress, StopAt, Target};
use restbench_model::Scenario;
use restbench_subject::{self as subject, prepare};
use restbench_testkit::turn;

fn gomaxprocs_in(log: &str) -> Option<usize> {
    let start = log.find("GOMAXPROCS=")? + "GOMAXPROCS=".len();
    log[start..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

#[test]
#[ignore = "slow: builds go-nethttp and loads it under a CPU quota; cargo test -- --include-ignored runs it (CI does)"]
fn go_under_a_one_cpu_quota_sizes_itself_to_the_quota() {
    let _turn = turn::take(module_path!());
    let backend = Backend::probe();
    if backend.kind == BackendKind::AffinityOnly
        || restbench_host::shell::find_on_path("go").is_none()
    {
        eprintln!(
            "skipped: needs a cgroup CPU quota and Go ({})",
            backend.reason
        );
        return;
    }
    let cpus = available_cpus();
    if cpus.len() < 2 {
        eprintln!("skipped: one CPU cannot show the difference");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../subjects");
    let go = subject::select(subject::discover(&root).unwrap(), &["go-nethttp".into()])
        .unwrap()
        .remove(0);
    let cache = prepare::cache_dir(&root);
    prepare::prepare(&go, &cache).unwrap();
    // The server may run on every CPU, as under docker --cpus=1; the quota allows one.
    let placement = Placement {
        loadgen: vec![cpus[0]],
        server: cpus.clone(),
        shared: true,
    };
    let options = StartOptions {
        placement: &placement,
        backend: &backend,
        cache: &cache,
        database_url: None,
        db_pool_total: 1,
        address: None,
        remote: None,
    };
    let mut rates = Vec::new();
    for pinned in [false, true] {
        let mut variant = go.clone();
        let env = &mut variant.scenarios.get_mut(&Scenario::OneCpu).unwrap().env;
        env.remove("GOMAXPROCS");
        if pinned {
            env.insert("GOMAXPROCS".into(), "1".into());
        }
        let server = start_subject(&variant, Scenario::OneCpu, &options, None).unwrap();
        assert_eq!(server.limit.cpu_quota_cores, Some(1.0));
        let log = server.child.log_tail(20);
        let chosen = gomaxprocs_in(&log).unwrap_or_else(|| panic!("no GOMAXPROCS in {log}"));
        // Unset: Go 1.25+ sizes GOMAXPROCS to the quota, at least 2, at most the CPUs it may use;
        // Go before 1.25 took every CPU, which is the same number on a 2-CPU machine.
        let expected = if pinned { 1 } else { cpus.len().min(2) };
        assert_eq!(chosen, expected, "GOMAXPROCS pinned={pinned}: {log}");
        let url = format!("http://{}/api/test", server.addr);
        let mut spec = LoadSpec::get(Target::parse(&url).unwrap());
        spec.connections = 10;
        spec.threads = 1;
        spec.stop = StopAt::Duration(Duration::from_millis(1500));
        let outcome = restbench_loadgen::run(
            &spec,
            &AtomicBool::new(false),
            Arc::new(Progress::default()),
        )
        .unwrap();
        assert_eq!(outcome.errors.total(), 0);
        let (throttled, _) = server.cgroup.as_ref().unwrap().throttling().unwrap();
        eprintln!(
            "go-nethttp one-cpu GOMAXPROCS {}: {:.0} req/s, runtime chose {chosen}, throttled periods {throttled}",
            if pinned { "=1" } else { "unset" },
            outcome.rps()
        );
        rates.push(outcome.rps());
    }
    // Published: 580 vs 6,210 (10.7×). Today the two variants are the same program.
    let ratio = rates[1] / rates[0];
    assert!(
        (0.4..2.5).contains(&ratio),
        "GOMAXPROCS=1 / unset = {ratio:.2} ({rates:?})"
    );
}
