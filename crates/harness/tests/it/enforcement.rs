//! Scenario enforcement against real busy processes: each backend this machine has, a CPU quota
//! of one CPU on a child spinning two processes, and cgroups removed afterwards. The two tests
//! that measure CPU use are `#[ignore]`d with the reason (a busy neighbour skews them);
//! `cargo test -- --include-ignored` runs them, as CI does.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use restbench_host::cgroup::{Backend, BackendKind};
use restbench_host::placement::available_cpus;
use restbench_host::process::{ManagedChild, SpawnSpec};
use restbench_host::sample::group_usage;
use restbench_testkit::turn;

/// Two spinning shells in one process group: two CPUs' worth of demand.
const SPIN_TWO: &str = "while :; do :; done & while :; do :; done & wait";

fn spinner(dir: &std::path::Path, cpus: Vec<usize>, cgroup_dirs: Vec<PathBuf>) -> ManagedChild {
    ManagedChild::spawn(&SpawnSpec {
        name: "spinner".into(),
        shell_command: SPIN_TWO.into(),
        cwd: dir.into(),
        log: dir.join("spinner.log"),
        cpus: Some(cpus),
        cgroup_dirs,
        ..Default::default()
    })
    .unwrap()
}

/// CPU cores the group used over `window`, from /proc.
fn proc_cores(child: &ManagedChild, window: Duration) -> f64 {
    let before = group_usage(child.pgid()).cpu;
    let started = Instant::now();
    std::thread::sleep(window);
    let used = group_usage(child.pgid()).cpu.saturating_sub(before);
    used.as_secs_f64() / started.elapsed().as_secs_f64()
}

#[test]
#[ignore = "slow: measures CPU use, so it needs the machine to itself; cargo test -- --include-ignored runs it (CI does)"]
fn a_cpu_quota_of_one_holds_a_busy_child_to_one_cpu() {
    let _turn = turn::take(module_path!());
    let backend = Backend::probe();
    if backend.kind == BackendKind::AffinityOnly {
        eprintln!("skipped: no cgroup backend here ({})", backend.reason);
        return;
    }
    let cpus = available_cpus();
    let dir = tempfile::tempdir().unwrap();
    let cgroup = backend
        .create("quota-test", &cpus, Some(1.0))
        .unwrap()
        .expect("a cgroup backend creates cgroups");
    for d in cgroup.dirs() {
        assert!(d.is_dir(), "{} missing", d.display());
    }
    let child = spinner(dir.path(), cpus.clone(), cgroup.dirs().to_vec());
    std::thread::sleep(Duration::from_millis(300));
    let cg_before = cgroup.cpu_usage().unwrap();
    let started = Instant::now();
    let by_proc = proc_cores(&child, Duration::from_millis(2000));
    let by_cgroup = cgroup
        .cpu_usage()
        .unwrap()
        .saturating_sub(cg_before)
        .as_secs_f64()
        / started.elapsed().as_secs_f64();
    // Both spinners are in the cgroup and accounted there.
    assert!(by_cgroup <= 1.15, "quota not held: {by_cgroup:.2} cores");
    assert!(by_cgroup >= 0.4, "the spinners did not run: {by_cgroup:.2}");
    assert!(
        (by_proc - by_cgroup).abs() < 0.25,
        "/proc says {by_proc:.2}, the cgroup {by_cgroup:.2}"
    );
    if cpus.len() >= 2 {
        let (throttled, _) = cgroup.throttling().unwrap();
        assert!(
            throttled > 0,
            "two spinners on 2 CPUs must hit a 1-CPU quota"
        );
    }
    if let Some(mem) = cgroup.memory() {
        assert!(mem.current().unwrap() > 0);
    }
    let dirs = cgroup.dirs().to_vec();
    drop(child);
    drop(cgroup);
    for d in dirs {
        assert!(!d.exists(), "{} left behind", d.display());
    }
}

#[test]
#[ignore = "slow: measures CPU use, so it needs the machine to itself; cargo test -- --include-ignored runs it (CI does)"]
fn affinity_only_holds_a_busy_child_to_its_cpu() {
    let _turn = turn::take(module_path!());
    let backend = Backend::affinity_only("test");
    let cpus = available_cpus();
    assert!(backend.create("x", &cpus, Some(1.0)).unwrap().is_none());
    let dir = tempfile::tempdir().unwrap();
    let child = spinner(dir.path(), vec![cpus[0]], Vec::new());
    std::thread::sleep(Duration::from_millis(200));
    let cores = proc_cores(&child, Duration::from_millis(1500));
    assert!(cores <= 1.15, "pinned to one CPU but used {cores:.2} cores");
    assert!(cores >= 0.4, "the spinners did not run: {cores:.2}");
}

#[test]
fn leftovers_of_a_dead_restbench_are_swept() {
    let _turn = turn::take(module_path!());
    let backend = Backend::probe();
    if backend.kind == BackendKind::AffinityOnly {
        eprintln!("skipped: no cgroup backend here ({})", backend.reason);
        return;
    }
    // A cgroup named after a restbench that is gone (pid numbers stop well below this).
    let cgroup = backend.create("sweep", &[], None).unwrap().unwrap();
    let live = cgroup.dirs()[0].clone();
    let name = live.file_name().unwrap().to_string_lossy().to_string();
    let stale = live.with_file_name(name.replacen(
        &format!("restbench-{}-", std::process::id()),
        "restbench-4194999-",
        1,
    ));
    std::fs::create_dir(&stale).unwrap();
    let _ = Backend::probe();
    assert!(!stale.exists(), "{} was not swept", stale.display());
    assert!(live.exists(), "a live restbench's cgroup was swept");
}

#[test]
fn the_guard_empties_and_removes_the_cgroup_when_its_pipe_closes() {
    let _turn = turn::take(module_path!());
    // restbench's death closes the same pipe; that case is tested end to end in
    // crates/restbench/tests/it/cli.rs by SIGKILLing a run.
    let backend = Backend::probe();
    if backend.kind == BackendKind::AffinityOnly {
        eprintln!("skipped: no cgroup backend here ({})", backend.reason);
        return;
    }
    let cgroup = backend.create("guard", &[], None).unwrap().unwrap();
    let dirs = cgroup.dirs().to_vec();
    let dir = tempfile::tempdir().unwrap();
    let mut child = spinner(dir.path(), available_cpus(), dirs.clone());
    std::thread::sleep(Duration::from_millis(200));
    // Stopping the child closes the guard's pipe, as restbench's death would.
    child.stop(Duration::from_millis(500));
    let started = Instant::now();
    while dirs.iter().any(|d| d.exists()) && started.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    for d in &dirs {
        assert!(!d.exists(), "{} left behind by the guard", d.display());
    }
    drop(cgroup); // finds nothing to remove
}
