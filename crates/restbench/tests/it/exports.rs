//! Exports (`--export-json`, `--export-csv`, `--export-markdown`), `compare` of two `load`
//! results, `report` of a results.json path, and `load`'s wrk-style figures on short runs — all
//! against a tiny HTTP server in the test (127.0.0.1, port 0). No test asserts a speed.

use std::path::Path;
use std::process::Output;

use restbench_testkit::fixtures::{cell, run_results};
use restbench_testkit::{Outcome, TinyServer};

use crate::support::restbench;
use restbench_testkit::turn;

/// Every request is answered `200 hello`.
const HELLO: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello";

/// A keep-alive HTTP/1.1 server answering `200 hello`; it counts connections and keeps requests.
fn hello_server() -> TinyServer {
    TinyServer::answering(HELLO)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `restbench load -n 200` with the given extra arguments; asserts it succeeded.
fn load(server: &TinyServer, extra: &[&str]) -> Output {
    let o = restbench()
        .args(["load", "-n", "200", "-c", "4", "-t", "2"])
        .args(extra)
        .arg(server.url("/hello"))
        .output()
        .unwrap();
    o.assert_exit(0);
    o
}

#[test]
fn load_writes_each_export_with_one_row() {
    let _turn = turn::take(module_path!());
    let server = hello_server();
    let dir = tempfile::tempdir().unwrap();
    let (json, csv, md) = (
        dir.path().join("load.json"),
        dir.path().join("load.csv"),
        dir.path().join("load.md"),
    );
    let o = load(
        &server,
        &[
            "--export-json",
            json.to_str().unwrap(),
            "--export-csv",
            csv.to_str().unwrap(),
            "--export-markdown",
            md.to_str().unwrap(),
        ],
    );
    let (out, err) = o.text();
    assert!(out.contains("Requests/sec:"), "{out}");
    assert!(err.contains(&format!("wrote {}", csv.display())), "{err}");

    let v: serde_json::Value = serde_json::from_str(&read(&json)).unwrap();
    assert_eq!(v["rows_are"], "load");
    let rows = v["results"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["requests"], 200);
    assert_eq!(rows[0]["errors"], 0);
    assert_eq!(rows[0]["url"], server.url("/hello"));
    assert!(rows[0]["latency_p99_us"].as_u64().unwrap() > 0);

    let csv = read(&csv);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 2, "{csv}");
    assert!(
        lines[0].starts_with("url,method,connections,threads,"),
        "{csv}"
    );
    assert_eq!(
        lines[0].split(',').count(),
        lines[1].split(',').count(),
        "{csv}"
    );
    let url_and_method = format!("{},GET,4,2,", server.url("/hello"));
    assert!(lines[1].starts_with(&url_and_method), "{csv}");

    let md = read(&md);
    assert!(md.starts_with("| URL | method |"), "{md}");
    assert!(
        md.contains(&format!("| {} | GET | 4 | 2 |", server.url("/hello"))),
        "{md}"
    );
}

#[test]
fn an_unwritable_export_fails_before_any_load() {
    let _turn = turn::take(module_path!());
    let server = hello_server();
    let o = restbench()
        .args([
            "load",
            "-n",
            "50",
            "--export-csv",
            "/no/such/folder/out.csv",
        ])
        .arg(server.url("/hello"))
        .output()
        .unwrap();
    let (_, err) = o.text();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("--export-csv") && err.contains("/no/such/folder/out.csv"),
        "{err}"
    );
    assert_eq!(server.connections(), 0);
}

#[test]
fn compare_takes_two_load_results() {
    let _turn = turn::take(module_path!());
    let server = hello_server();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    load(&server, &["--json", a.to_str().unwrap()]);
    load(&server, &["--json", b.to_str().unwrap()]);

    let compare = |extra: &[&str]| {
        let o = restbench()
            .arg("compare")
            .args(extra)
            .args([&a, &b])
            .output()
            .unwrap();
        let (out, err) = o.text();
        assert_eq!(o.status.code(), Some(0), "{err}");
        out
    };
    let out = compare(&[]);
    for needed in ["A: GET ", "B: GET ", "req/s", "p50", "p99", "errors", "B÷A"] {
        assert!(out.contains(needed), "{needed}:\n{out}");
    }
    let rps = out.lines().find(|l| l.starts_with("req/s ")).unwrap();
    assert!(rps.ends_with('×'), "{out}");
    let md = compare(&["--markdown"]);
    assert!(md.contains("| metric | A | B | B÷A |"), "{md}");
    let json: serde_json::Value = serde_json::from_str(&compare(&["--json"])).unwrap();
    let metrics = json["metrics"].as_array().unwrap();
    let p99 = metrics.iter().find(|m| m["metric"] == "p99").unwrap();
    assert!(p99["ratio"].as_f64().unwrap() > 0.0);
    assert!(json["verdict"].is_string());

    // A run's results.json and a load result do not compare; an export is not a result.
    let export = dir.path().join("export.json");
    load(&server, &["--export-json", export.to_str().unwrap()]);
    let o = restbench()
        .arg("compare")
        .args([&a, &export])
        .output()
        .unwrap();
    let (_, err) = o.text();
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("--export-json table"), "{err}");
}

#[test]
fn short_loads_report_per_thread_rates_and_a_body_means_post() {
    let _turn = turn::take(module_path!());
    let server = hello_server();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let o = load(&server, &["-b", "{}", "--json", json.to_str().unwrap()]);
    let (out, err) = o.text();
    assert!(err.contains("POST"), "{err}");
    assert!(
        server
            .requests()
            .first()
            .is_some_and(|r| r.line().starts_with("POST /hello ")),
        "{:?}",
        server.requests().first()
    );
    // A 200-request run lasts well under a second: Req/Sec still has figures.
    let row = out.lines().find(|l| l.contains("Req/Sec")).unwrap();
    assert!(!row.contains(" 0.00 "), "{out}");
    assert!(row.trim_end().ends_with('%'), "{out}");
    let v: serde_json::Value = serde_json::from_str(&read(&json)).unwrap();
    assert_eq!(v["settings"]["method"], "POST");
    assert!(v["thread_rps"]["mean"].as_f64().unwrap() > 0.0, "{v}");
    assert!(v["thread_rps"]["max"].as_f64().unwrap() > 0.0, "{v}");
}

/// A results.json of two cells, as `run` writes it.
fn write_results(dir: &Path) -> std::path::PathBuf {
    let mut results = run_results(vec![
        cell("rust-hyper", 50_000.0),
        cell("rust-axum", 45_000.0),
    ]);
    results.finished_at = None;
    let path = dir.join("results.json");
    std::fs::write(&path, serde_json::to_string_pretty(&results).unwrap()).unwrap();
    path
}

#[test]
fn report_takes_a_results_json_path_and_compare_still_takes_runs() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let results = write_results(dir.path());
    let o = restbench().arg("report").arg(&results).output().unwrap();
    let (out, err) = o.text();
    assert_eq!(o.status.code(), Some(0), "{err}");
    // Only the paths written; the Markdown itself with --stdout.
    let md = dir.path().join("report.md");
    let html = dir.path().join("report.html");
    assert_eq!(
        out,
        format!("wrote {}\nwrote {}\n", md.display(), html.display())
    );
    let o = restbench()
        .arg("report")
        .arg("--stdout")
        .arg(&results)
        .output()
        .unwrap();
    let (out, err) = o.text();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(out.contains("rust-hyper"), "{out}");
    assert_eq!(out, std::fs::read_to_string(&md).unwrap());
    assert!(err.contains("wrote "), "{err}");
    assert!(dir.path().join("report.md").is_file());
    assert!(dir.path().join("report.html").is_file());

    let o = restbench()
        .arg("compare")
        .arg(&results)
        .arg(dir.path())
        .output()
        .unwrap();
    let (out, err) = o.text();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(out.contains("2 cells in both runs"), "{out}");
}

#[test]
fn report_given_a_load_result_names_the_command_that_takes_it() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("load.json");
    // The fields that tell a `load --json` result (`restbench_report::document`).
    std::fs::write(
        &path,
        r#"{"schema_version": 1, "settings": {}, "latency_us": {}, "rps": 100.0}"#,
    )
    .unwrap();
    let o = restbench().arg("report").arg(&path).output().unwrap();
    let (out, err) = o.text();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(
        err.trim_end(),
        format!(
            "error: {}: this is a `restbench load --json` result: use `restbench compare A B` \
             for load results",
            path.display()
        )
    );
    assert!(!dir.path().join("report.md").exists());
}
