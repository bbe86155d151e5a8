//! Every human-facing output fits 80 columns (`COLUMNS=80`), with the units of the final table;
//! the wide forms stay in report.md and the exports. The run's progress lines and `serve`'s ready
//! lines are broken by the same `width::hanging`, whose unit test checks it.

use restbench_testkit::fixtures::{cell, run_results};
use restbench_testkit::{Outcome, TinyServer, turn};

use crate::support::restbench;

/// Panics naming every line of `text` wider than 80 characters.
#[track_caller]
fn assert_fits_80(what: &str, text: &str) {
    let wide: Vec<&str> = text.lines().filter(|l| l.chars().count() > 80).collect();
    assert!(
        wide.is_empty(),
        "{what}: lines over 80 columns: {wide:#?}\n{text}"
    );
}

/// `restbench ARGS` at `COLUMNS=80`: both streams, each line checked.
fn at_80(args: &[&str]) -> std::process::Output {
    let o = restbench()
        .args(args)
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    let (out, err) = o.text();
    assert_fits_80(&format!("{args:?} stdout"), &out);
    assert_fits_80(&format!("{args:?} stderr"), &err);
    o
}

#[test]
fn subjects_and_doctor_fit_80_columns() {
    let _turn = turn::take(module_path!());
    let o = at_80(&["subjects"]);
    o.assert_exit(0);
    let out = o.stdout_text();
    assert!(out.lines().any(|l| l.starts_with("rust-hyper ")), "{out}");
    let o = at_80(&["doctor"]);
    o.assert_exit(0);
    assert!(o.stdout_text().contains("tools:"), "{}", o.stdout_text());
}

#[test]
fn load_against_a_404_fits_80_columns_and_says_1_thread() {
    let _turn = turn::take(module_path!());
    let server = TinyServer::answering(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
    let url = server.url("/missing");
    let o = at_80(&["load", "-n", "200", "-c", "1", "-t", "1", "--latency", &url]);
    o.assert_exit(3);
    let out = o.stdout_text();
    assert!(out.contains("  1 thread and 1 connection\n"), "{out}");
    assert!(
        out.contains("  Latency at saturation, closed loop, 1 connection: a saturated queue\n"),
        "{out}"
    );
    assert!(
        out.contains("every answer was 404 Not Found: is the path right?"),
        "{out}"
    );
    let o = at_80(&["load", "-z", "1s", "-c", "8", "-m", "GET", &url]);
    o.assert_exit(3);
    assert!(o.stdout_text().contains("  2 threads and 8 connections\n"));
}

#[test]
fn compare_of_two_runs_fits_80_columns() {
    let _turn = turn::take(module_path!());
    let t = tempfile::tempdir().unwrap();
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    let long = "python-uvicorn-uvloop-with-a-long-name";
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    restbench_model::documents::io::write_results(
        &a,
        &run_results(vec![cell("rust-hyper", 100_000.0), cell(long, 20_000.0)]),
    )
    .unwrap();
    restbench_model::documents::io::write_results(
        &b,
        &run_results(vec![cell("rust-hyper", 90_000.0), cell(long, 30_000.0)]),
    )
    .unwrap();
    let o = at_80(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    o.assert_exit(0);
    let out = o.stdout_text();
    assert!(
        out.lines()
            .any(|l| l.starts_with("rust-hyper ") && l.contains("0.90×")),
        "{out}"
    );
    assert!(out.contains("ratios are B ÷ A"), "{out}");
}
