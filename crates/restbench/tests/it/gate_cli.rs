//! The regression gate as CI runs it: `compare BASE HEAD --fail-if …` on fixture documents,
//! its exit codes, its "same within noise" path, the refusal of two machines, and the GitHub
//! Actions output only where `GITHUB_STEP_SUMMARY` says so.

use std::path::Path;

use restbench_model::{Cell, Environment, RepeatResult, Saturation, write_results};
use restbench_testkit::{Outcome, fixtures, turn};

use crate::support::restbench;

/// rust-hyper plaintext with repeats of 2 s at these µs of CPU per request and req/s.
fn cell(figures: &[(f64, f64)]) -> Cell {
    let mut c = fixtures::cell("rust-hyper", figures[0].1);
    c.repeats = figures
        .iter()
        .enumerate()
        .map(|(i, &(cpu_us, rps))| {
            let requests = (rps * 2.0) as u64;
            RepeatResult {
                rps,
                requests,
                duration_s: 2.0,
                latency_us: Default::default(),
                errors: Default::default(),
                server_cpu_cores: cpu_us * requests as f64 / 2.0 / 1e6,
                loadgen_cpu_cores: 0.5,
                timeseries: Vec::new(),
                round: Some(i as u32),
                saturation: Some(Saturation::Server),
            }
        })
        .collect();
    c.server.cpu_us_per_req = figures[0].0;
    c
}

fn machine(kernel: &str) -> Environment {
    Environment {
        cpu_model: "Test CPU".into(),
        cores: 2,
        kernel: kernel.into(),
        backend: "cgroup-v2".into(),
        ..Environment::default()
    }
}

fn write_run(dir: &Path, name: &str, cell: Cell, kernel: &str) -> String {
    let mut run = fixtures::run_results(vec![cell]);
    run.environment = machine(kernel);
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    write_results(&folder, &run).unwrap();
    folder.display().to_string()
}

const STEADY: [(f64, f64); 4] = [(10.0, 1000.0), (10.1, 1001.0), (9.9, 999.0), (10.0, 1000.0)];

#[test]
fn a_regression_beyond_the_threshold_exits_1() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let base = write_run(dir.path(), "base", cell(&STEADY), "6.1");
    let costlier = STEADY.map(|(cpu, rps)| (cpu * 1.2, rps));
    let head = write_run(dir.path(), "head", cell(&costlier), "6.1");
    let o = restbench()
        .args(["compare", &base, &head, "--fail-if", "cpu_us_per_req>+5%"])
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    o.assert_exit(1);
    let out = o.stdout_text();
    assert!(out.contains("gate failed: 1 of 1"), "{out}");
    assert!(out.contains("FAIL") && out.contains("lies wholly"), "{out}");
    assert!(
        !out.contains("::error"),
        "no GitHub lines outside GitHub: {out}"
    );
    // The same runs within a looser threshold pass.
    let o = restbench()
        .args(["compare", &base, &head, "--fail-if", "cpu_us_per_req>+30%"])
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    o.assert_exit(0);
    assert!(
        o.stdout_text().contains("gate passed"),
        "{}",
        o.stdout_text()
    );
}

#[test]
fn a_change_within_noise_exits_0_and_says_so() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let base = write_run(dir.path(), "base", cell(&STEADY), "6.1");
    // 8 % more CPU on average, but the repeats spread far wider than that.
    let noisy = [(8.0, 1000.0), (13.0, 1000.0), (9.0, 1000.0), (13.5, 1000.0)];
    let head = write_run(dir.path(), "head", cell(&noisy), "6.1");
    let o = restbench()
        .args(["compare", &base, &head, "--fail-if", "cpu_us_per_req>+5%"])
        .args(["--fail-if", "rps<-5%"])
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    o.assert_exit(0);
    let out = o.stdout_text();
    assert!(out.contains("same within noise"), "{out}");
    assert!(out.contains("gate passed: 2 checks"), "{out}");
}

#[test]
fn a_bad_expression_is_one_line_naming_the_measures() {
    let _turn = turn::take(module_path!());
    let o = restbench()
        .args(["compare", "a", "b", "--fail-if", "latency>+5%"])
        .output()
        .unwrap();
    o.assert_exit(2);
    let err = o.stderr_text();
    assert!(err.contains("unknown measure \"latency\""), "{err}");
    assert!(
        err.contains("cpu_us_per_req") && err.contains("p99"),
        "{err}"
    );
}

#[test]
fn runs_of_two_machines_are_refused_unless_asked() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let base = write_run(dir.path(), "base", cell(&STEADY), "6.1");
    let head = write_run(dir.path(), "head", cell(&STEADY), "6.8");
    let o = restbench()
        .args(["compare", &base, &head, "--fail-if", "rps<-5%"])
        .output()
        .unwrap();
    o.assert_exit(2);
    let err = o.stderr_text();
    assert!(
        err.contains("different machines") && err.contains("kernel: 6.1 vs 6.8"),
        "{err}"
    );
    assert!(err.contains("--across-machines"), "{err}");
    let o = restbench()
        .args([
            "compare",
            &base,
            &head,
            "--fail-if",
            "rps<-5%",
            "--across-machines",
        ])
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    o.assert_exit(0);
    let out = o.stdout_text();
    assert!(
        out.contains("across machines") && out.contains("kernel: 6.1 vs 6.8"),
        "{out}"
    );
}

#[test]
fn github_output_only_when_its_summary_file_is_set() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let base = write_run(dir.path(), "base", cell(&STEADY), "6.1");
    let head = write_run(
        dir.path(),
        "head",
        cell(&STEADY.map(|(cpu, rps)| (cpu * 1.2, rps * 0.8))),
        "6.1",
    );
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let o = restbench()
        .args(["compare", &base, &head, "--fail-if", "cpu_us_per_req>+5%"])
        .args(["--fail-if", "p99>+10%"])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    o.assert_exit(1);
    let out = o.stdout_text();
    assert!(
        out.lines()
            .any(|l| l.starts_with("::error title=restbench gate::")),
        "{out}"
    );
    let page = std::fs::read_to_string(&summary).unwrap();
    assert!(
        page.starts_with("earlier step\n"),
        "appended, not replaced: {page}"
    );
    assert!(
        page.contains("### restbench gate") && page.contains("❌ fail"),
        "{page}"
    );
    // Unset (or empty): nothing of that.
    let o = restbench()
        .args(["compare", &base, &head, "--fail-if", "cpu_us_per_req>+5%"])
        .env("GITHUB_STEP_SUMMARY", "")
        .output()
        .unwrap();
    o.assert_exit(1);
    assert!(!o.stdout_text().contains("::error"), "{}", o.stdout_text());
}

/// What a results.json or a folder's name carries cannot become a GitHub Actions workflow
/// command: with `GITHUB_STEP_SUMMARY` set, every line restbench prints (stdout and stderr)
/// that GitHub would run is one of the gate's own `::error`/`::warning` lines.
#[test]
fn hostile_names_print_no_workflow_command_of_their_own() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let evil = "x\n::set-env name=PATH::/tmp/evil\n##[error]forged\r\n::error::forged %0A";
    let hostile = |figures: &[(f64, f64)]| {
        let mut c = cell(figures);
        c.workload = format!("plaintext{evil}");
        c.scenario = format!("::warning::{evil}");
        c.protocol = format!("##[group]{evil}");
        c.subject = format!("::add-mask::{evil}");
        c
    };
    let base = write_run(dir.path(), "base\n::error::folder", hostile(&STEADY), "6.1");
    let costlier = STEADY.map(|(cpu, rps)| (cpu * 1.2, rps * 0.8));
    let head = write_run(dir.path(), "##[error]head", hostile(&costlier), "6.1");
    let summary = dir.path().join("summary.md");
    for format in [None, Some("--markdown")] {
        let o = restbench()
            .args(["compare", &base, &head, "--fail-if", "cpu_us_per_req>+5%"])
            .args(format)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .output()
            .unwrap();
        o.assert_exit(1);
        let (out, err) = (o.stdout_text(), o.stderr_text());
        assert!(
            out.lines()
                .any(|l| l.starts_with("::error title=restbench gate::")),
            "{out}"
        );
        for line in out.lines().chain(err.lines()) {
            let command = line.trim_start();
            assert!(
                !command.starts_with("::")
                    || command.starts_with("::error title=restbench gate::")
                    || command.starts_with("::warning title=restbench gate::"),
                "a workflow command of the document's: {line:?}"
            );
            assert!(!line.contains("##["), "a v1 workflow command: {line:?}");
            if command.starts_with("::") {
                let message = command.splitn(3, "::").nth(2).unwrap_or_default();
                assert!(
                    !message.contains('\r') && !message.contains('\n'),
                    "{line:?}"
                );
            }
        }
    }
}
