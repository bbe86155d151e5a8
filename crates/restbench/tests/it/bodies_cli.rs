//! HttpArena's body workloads as a user runs them: `static`, `json-gzip`, `upload` and
//! `download` on a Rust and a Node.js subject. Every cell is verified before it is loaded and
//! ends ok, and each records the bytes per answer that the workload's figure needs: less than
//! todo's plain document for the compressed one, the mix's mean file for static, the 100 KB for
//! download. No speed is asserted.

use restbench_model::{BODY_BYTES, StaticFile};
use restbench_testkit::{Outcome, turn};

use crate::support::restbench;

/// todo's document uncompressed, as the subjects serialize it (about 550 bytes): a compressed
/// answer, head and all, stays below it.
const TODO_PLAIN_BYTES: f64 = 540.0;

#[test]
#[ignore = "slow: builds rust-hyper and node-http and loads four workloads on each (about 1 min); cargo test -- --include-ignored runs it (CI does)"]
fn run_loads_static_json_gzip_upload_and_download_with_their_bytes_per_answer() {
    let _turn = turn::take(module_path!());
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        eprintln!("skipped: one CPU, generator and server share it");
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let o = restbench()
        .args(["run", "--quick", "--scenarios", "single-thread"])
        .args(["--subjects", "rust-hyper,node-http"])
        .args(["--workloads", "static,json-gzip,upload,download"])
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    let (stdout, err) = o.text();
    assert!(o.status.success(), "{stdout}\n{err}");
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("results.json")).unwrap()).unwrap();
    let cells = results["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 8, "{stdout}");
    for c in cells {
        let who = format!("{} {}", c["subject"], c["workload"]);
        assert_eq!(c["status"], "ok", "{who}: {c}");
        let flags: Vec<&str> = c["flags"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f.as_str())
            .collect();
        assert!(!flags.contains(&"nonconformant"), "{who}: {flags:?}");
        assert!(c["requests"].as_u64().unwrap() > 0, "{who}");
        let per = c["bytes_per_answer"].as_f64().unwrap();
        match c["workload"].as_str().unwrap() {
            "json-gzip" => assert!(per < TODO_PLAIN_BYTES, "{who}: {per} bytes per answer"),
            "static" => {
                // The mix's mean file, plus a head of a few hundred bytes.
                let mean = StaticFile::mean_bytes();
                assert!(
                    (mean * 0.9..mean * 1.1 + 1000.0).contains(&per),
                    "{who}: {per} against a mean file of {mean}"
                );
            }
            "download" => assert!(
                (BODY_BYTES as f64..BODY_BYTES as f64 + 1000.0).contains(&per),
                "{who}: {per}"
            ),
            "upload" => assert!(per < 1000.0, "{who}: an answer is a line: {per}"),
            other => panic!("{who}: no such workload {other}"),
        }
    }
    let report = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        report.contains("Bytes per answer, head and body as read, smallest first:"),
        "the report gives the bytes per answer"
    );
}
