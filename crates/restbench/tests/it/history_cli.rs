//! `restbench history` end to end on a SQLite file: import (each run once), the timeline page,
//! and `check` against the last runs of the same machine, with its exit codes.

use std::path::Path;

use restbench_model::{Cell, Environment, RepeatResult, Saturation, write_results};
use restbench_testkit::{Outcome, fixtures, turn};

use crate::support::restbench;

/// A run started on `day` whose rust-hyper plaintext cell costs `cpu_us` per request (4 repeats
/// within ±1 %), on a machine with `kernel`.
fn write_run(dir: &Path, day: u32, cpu_us: f64, kernel: &str) -> String {
    write_run_as(dir, day, cpu_us, kernel, false)
}

/// The same, measured as a duet (`restbench ab`) when `duet`.
fn write_run_as(dir: &Path, day: u32, cpu_us: f64, kernel: &str, duet: bool) -> String {
    let mut c: Cell = fixtures::cell("rust-hyper", 1000.0);
    c.repeats = [1.0, 1.01, 0.99, 1.0]
        .iter()
        .enumerate()
        .map(|(i, k)| RepeatResult {
            rps: 1000.0,
            requests: 2000,
            duration_s: 2.0,
            latency_us: Default::default(),
            errors: Default::default(),
            server_cpu_cores: cpu_us * k * 2000.0 / 2.0 / 1e6,
            loadgen_cpu_cores: 0.5,
            timeseries: Vec::new(),
            round: Some(i as u32),
            saturation: Some(Saturation::Server),
        })
        .collect();
    c.server.cpu_us_per_req = cpu_us;
    let mut run = fixtures::run_results(vec![c]);
    run.protocol.rounds = duet.then_some(restbench_model::RoundsPolicy {
        seed: 1,
        min_rounds: 4,
        max_rounds: 4,
        target_ci: None,
        rewarm_s: 1.0,
        duet: true,
        beside_reference: false,
        solo_rounds: None,
    });
    run.started_at = format!("2026-02-{day:02}T00:00:00Z");
    run.environment = Environment {
        cpu_model: "Test CPU".into(),
        cores: 2,
        kernel: kernel.into(),
        backend: "cgroup-v2".into(),
        ..Environment::default()
    };
    let folder = dir.join(format!("run{day}"));
    std::fs::create_dir_all(&folder).unwrap();
    write_results(&folder, &run).unwrap();
    folder.display().to_string()
}

#[test]
fn import_show_and_check_on_a_sqlite_file() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite").display().to_string();
    // Five steady runs, ±2 % between runs.
    let runs: Vec<String> = [10.0, 10.2, 9.8, 10.1, 9.9]
        .iter()
        .enumerate()
        .map(|(i, cpu)| write_run(dir.path(), i as u32 + 1, *cpu, "6.1"))
        .collect();
    let o = restbench()
        .args(["history", "import", "--history", &db])
        .args(&runs)
        .output()
        .unwrap();
    o.assert_exit(0);
    assert_eq!(
        o.stdout_text().matches("stored ").count(),
        5,
        "{}",
        o.stdout_text()
    );
    let o = restbench()
        .args(["history", "import", "--history", &db, &runs[0]])
        .output()
        .unwrap();
    o.assert_exit(0);
    assert!(
        o.stdout_text().contains("already stored"),
        "{}",
        o.stdout_text()
    );
    assert!(
        o.stderr_text().contains("5 runs, 5 cells"),
        "{}",
        o.stderr_text()
    );

    let page = dir.path().join("t.html");
    restbench()
        .args([
            "history",
            "show",
            "--history",
            &db,
            "--subject",
            "rust-hyper",
        ])
        .arg("--out")
        .arg(&page)
        .output()
        .unwrap()
        .assert_exit(0);
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(
        html.matches("data-chart=\"history\"").count(),
        2,
        "req/s and CPU: the fixtures have no latency or memory"
    );
    assert!(html.matches("data-point").count() >= 5);

    let check = |run: &str, extra: &[&str]| {
        restbench()
            .args([
                "history",
                "check",
                run,
                "--history",
                &db,
                "--against",
                "last:5",
            ])
            .args(["--fail-if", "cpu_us_per_req>+5%"])
            .args(extra)
            .env_remove("GITHUB_STEP_SUMMARY")
            .output()
            .unwrap()
    };
    let costlier = write_run(dir.path(), 10, 12.0, "6.1");
    let o = check(&costlier, &[]);
    o.assert_exit(1);
    assert!(
        o.stdout_text().contains("gate failed"),
        "{}",
        o.stdout_text()
    );
    let steady = write_run(dir.path(), 11, 10.05, "6.1");
    let o = check(&steady, &[]);
    o.assert_exit(0);
    assert!(
        o.stdout_text().contains("gate passed"),
        "{}",
        o.stdout_text()
    );
    // A run of another machine is refused, unless asked, and then the difference is said.
    let elsewhere = write_run(dir.path(), 12, 10.0, "6.8");
    let o = check(&elsewhere, &[]);
    o.assert_exit(2);
    assert!(
        o.stderr_text().contains("kernel: 6.1 vs 6.8"),
        "{}",
        o.stderr_text()
    );
    let o = check(&elsewhere, &["--across-machines"]);
    o.assert_exit(0);
    assert!(
        o.stdout_text().contains("across machines"),
        "{}",
        o.stdout_text()
    );
    // A duet's figures (the servers shared the CPUs) are not judged against runs measured
    // alone.
    let duet = write_run_as(dir.path(), 13, 10.0, "6.1", true);
    let o = check(&duet, &[]);
    assert!(
        o.stderr_text()
            .contains("its history was measured alone and this run as a duet: not judged"),
        "{}",
        o.stderr_text()
    );
    o.assert_exit(0);
    assert!(
        o.stderr_text().contains("nothing judged"),
        "nothing to judge it against: {}",
        o.stderr_text()
    );
}

/// A CI job's first run checks against an empty history: nothing is judged, and that is not a
/// regression (exit 1), so the job's own gate does not fail it.
#[test]
fn a_check_against_an_empty_history_exits_0_and_says_nothing_was_judged() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("empty.sqlite").display().to_string();
    let run = write_run(dir.path(), 1, 10.0, "6.1");
    let o = restbench()
        .args(["history", "check", &run, "--history", &db])
        .args(["--fail-if", "cpu_us_per_req>+5%"])
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    o.assert_exit(0);
    assert!(
        o.stderr_text().contains("nothing judged"),
        "{}",
        o.stderr_text()
    );
}

/// `--against last:N` is bounded, and says so; `--commit-url` takes http(s) only.
#[test]
fn history_arguments_out_of_range_are_refused_with_the_reason() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite").display().to_string();
    let run = write_run(dir.path(), 1, 10.0, "6.1");
    let o = restbench()
        .args(["history", "check", &run, "--history", &db])
        .args(["--against", "last:999999999999", "--fail-if", "rps<-5%"])
        .output()
        .unwrap();
    o.assert_exit(2);
    assert!(
        o.stderr_text().contains("N is at most 1000"),
        "{}",
        o.stderr_text()
    );
    for url in [
        "javascript:alert(1)//{rev}",
        "JaVaScRiPt:alert(document.cookie)",
        "data:text/html,<script>alert(1)</script>",
    ] {
        let page = dir.path().join("t.html");
        let o = restbench()
            .args(["history", "show", "--history", &db, "--commit-url", url])
            .arg("--out")
            .arg(&page)
            .output()
            .unwrap();
        o.assert_exit(2);
        assert!(
            o.stderr_text().contains("not an http(s) URL"),
            "{url}: {}",
            o.stderr_text()
        );
        assert!(!page.exists(), "{url}: no page written");
    }
}

/// A run of `cells` cells (rust-hyper plaintext under as many scenario names).
fn write_big_run(dir: &Path, name: &str, cells: usize) -> String {
    let cells = (0..cells)
        .map(|i| {
            let mut c: Cell = fixtures::cell("rust-hyper", 1000.0 + i as f64);
            c.scenario = format!("scenario-{i}");
            c
        })
        .collect();
    let run = fixtures::run_results(cells);
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    write_results(&folder, &run).unwrap();
    folder.display().to_string()
}

/// A disk that fills halfway through an import leaves no part of the run: the import fails
/// with the reason, and the next one (room again) stores the run whole, not "already stored".
/// The full disk is the kernel's own: the file size limit (`RLIMIT_FSIZE`) of the importing
/// process, which makes its writes beyond it fail as a full disk's do.
#[test]
fn an_import_that_runs_out_of_disk_stores_nothing_and_the_next_stores_it_whole() {
    let _turn = turn::take(module_path!());
    if std::process::Command::new("prlimit")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no prlimit (util-linux)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite").display().to_string();
    let small = write_run(dir.path(), 1, 10.0, "6.1");
    restbench()
        .args(["history", "import", "--history", &db, &small])
        .output()
        .unwrap()
        .assert_exit(0);
    let big = write_big_run(dir.path(), "big", 2000);
    let room = std::fs::metadata(&db).unwrap().len() + 64 * 1024;
    // SIGXFSZ ignored (as `trap ''` leaves it across exec), the write beyond the limit fails
    // with EFBIG rather than killing the process.
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"trap '' XFSZ; exec prlimit --fsize="$0" "$@""#)
        .arg(room.to_string())
        .arg(env!("CARGO_BIN_EXE_restbench"))
        .args(["history", "import", "--history", &db, &big])
        .output()
        .unwrap();
    o.assert_exit(1);
    assert!(
        o.stderr_text().contains("history"),
        "the reason: {}",
        o.stderr_text()
    );
    let o = restbench()
        .args(["history", "import", "--history", &db, &big])
        .output()
        .unwrap();
    o.assert_exit(0);
    assert!(
        o.stdout_text().contains("stored") && !o.stdout_text().contains("already"),
        "{}",
        o.stdout_text()
    );
    assert!(
        o.stderr_text().contains("2 runs, 2001 cells"),
        "{}",
        o.stderr_text()
    );
}
