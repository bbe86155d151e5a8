//! `bench/reproducibility.py`, the arithmetic of `bench/reproducibility.sh` (contradicting
//! verdicts, Kendall's tau-b with ties, interval coverage, rounds, compare's counts): its
//! self-test on known answers, and its reading of documents this version writes.

use std::path::{Path, PathBuf};
use std::process::Command;

use restbench_testkit::turn;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/reproducibility.py")
}

#[test]
fn the_reproducibility_arithmetic_passes_its_self_test() {
    let _turn = turn::take(module_path!());
    let o = Command::new("python3")
        .arg(script())
        .arg("--self-test")
        .output()
        .expect("python3 runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(out.trim(), "self-test ok");
}

#[test]
fn the_reproducibility_script_reads_two_runs_of_this_version() {
    let _turn = turn::take(module_path!());
    use restbench_model::{RepeatResult, Saturation};
    use restbench_testkit::fixtures::{cell, run_results};
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, scale: f64| {
        let mut a = cell("rust-hyper", 50_000.0 * scale);
        let mut b = cell("rust-axum", 25_000.0 * scale);
        for (c, base) in [(&mut a, 50_000.0), (&mut b, 25_000.0)] {
            c.repeats = (0..4)
                .map(|i| RepeatResult {
                    rps: base * scale * (1.0 + 0.005 * f64::from(i)),
                    requests: 1_000,
                    duration_s: 2.0,
                    latency_us: Default::default(),
                    errors: Default::default(),
                    server_cpu_cores: 0.95,
                    loadgen_cpu_cores: 0.5,
                    timeseries: Vec::new(),
                    round: Some(i),
                    saturation: Some(Saturation::Server),
                })
                .collect();
        }
        let path = dir.path().join(name);
        let results = run_results(vec![a, b]);
        std::fs::write(&path, serde_json::to_string(&results).unwrap()).unwrap();
        path
    };
    let (first, second) = (write("a.json", 1.0), write("b.json", 1.01));
    let o = Command::new("python3")
        .arg(script())
        .args([&first, &second])
        .output()
        .expect("python3 runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        out.starts_with("contradicting verdicts: 0 (of 1 pairs"),
        "{out}"
    );
    assert!(out.contains("interval coverage: 100%"), "{out}");
    assert!(out.contains("Kendall tau-b per group"), "{out}");
}
