//! `report` and `compare` of documents as large as restbench reads (results.json is refused
//! beyond 128 MiB): both are linear in the cells, so a grid of 50,000 cells is rendered in
//! one pass rather than compared cell by cell against every other. No test asserts a speed:
//! these assert that every cell is in the output, at the size the README states (50,000 cells).

use std::path::Path;

use restbench_model::{Cell, RepeatResult, Saturation, write_results};
use restbench_testkit::{Outcome, fixtures, turn};

use crate::support::restbench;

/// Subjects per scenario; the cells are `SUBJECTS` × scenarios.
const SUBJECTS: usize = 500;

/// A run of `cells` cells: `SUBJECTS` subjects under `cells / SUBJECTS` scenario names, each
/// with `repeats` repeats (as rounds; up to 4) so intervals are drawn.
fn write_grid(dir: &Path, name: &str, cells: usize, scale: f64, repeats: usize) -> String {
    let cells: Vec<Cell> = (0..cells)
        .map(|i| {
            let rps = (1000.0 + (i % SUBJECTS) as f64) * scale;
            let mut c = fixtures::cell(&format!("subject-{}", i % SUBJECTS), rps);
            c.scenario = format!("scenario-{}", i / SUBJECTS);
            c.repeats = [1.0, 1.01, 0.99, 1.0][..repeats]
                .iter()
                .enumerate()
                .map(|(r, k)| RepeatResult {
                    rps: rps * k,
                    requests: (rps * k * 2.0) as u64,
                    duration_s: 2.0,
                    latency_us: Default::default(),
                    errors: Default::default(),
                    server_cpu_cores: 0.5,
                    loadgen_cpu_cores: 0.5,
                    timeseries: Vec::new(),
                    round: Some(r as u32),
                    saturation: Some(Saturation::Server),
                })
                .collect();
            c
        })
        .collect();
    let run = fixtures::run_results(cells);
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    write_results(&folder, &run).unwrap();
    folder.display().to_string()
}

fn report_and_compare(cells: usize, repeats: usize) {
    let dir = tempfile::tempdir().unwrap();
    let base = write_grid(dir.path(), "base", cells, 1.0, repeats);
    let head = write_grid(dir.path(), "head", cells, 1.1, repeats);
    let size = std::fs::metadata(Path::new(&base).join("results.json"))
        .unwrap()
        .len();
    assert!(
        size < 128 << 20,
        "{size} bytes: over the limit documents are read at"
    );
    let o = restbench().args(["report", &base]).output().unwrap();
    o.assert_exit(0);
    let md = std::fs::read_to_string(Path::new(&base).join("report.md")).unwrap();
    let last = format!("subject-{}", SUBJECTS - 1);
    assert!(md.contains(&last), "every subject is in the report");
    let o = restbench()
        .args(["compare", &base, &head, "--json"])
        .output()
        .unwrap();
    o.assert_exit(0);
    let comparison: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        comparison["cells"].as_array().map(Vec::len),
        Some(cells),
        "every cell is paired"
    );
}

#[test]
fn report_and_compare_of_a_grid_of_5000_cells() {
    let _turn = turn::take(module_path!());
    report_and_compare(5_000, 4);
}

#[test]
#[ignore = "slow: report and compare of two documents of 50,000 cells (about 100 MB each, under the 128 MiB limit)"]
fn report_and_compare_of_a_grid_of_50000_cells() {
    let _turn = turn::take(module_path!());
    report_and_compare(50_000, 1);
}
