//! `delay` as a user runs it: HttpArena's slow handler on a Rust, a Go and a Node.js subject.
//! Each cell holds 10,000 connections whatever the run's `--connections`, and every answer
//! under load came after its 10 ms wait. No speed is asserted, nor an absence of timeouts: at
//! 10,000 connections on one core a server's queue is part of its figure.

use restbench_testkit::{Outcome, turn};

use crate::support::restbench;

#[test]
#[ignore = "slow: builds rust-hyper, go-nethttp and node-http and holds 10,000 waiting connections on each (about 1 min); cargo test -- --include-ignored runs it (CI does)"]
fn run_holds_ten_thousand_waiting_connections_and_every_answer_waits() {
    let _turn = turn::take(module_path!());
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        eprintln!("skipped: one CPU, generator and server share it");
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let o = restbench()
        .args(["run", "--quick", "--scenarios", "single-thread"])
        .args(["--subjects", "rust-hyper,go-nethttp,node-http"])
        .args(["--workloads", "delay", "--connections", "64"])
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    let (stdout, err) = o.text();
    assert!(o.status.success(), "{stdout}\n{err}");
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("results.json")).unwrap()).unwrap();
    let cells = results["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 3, "{stdout}");
    for c in cells {
        let who = &c["subject"];
        assert_eq!(c["status"], "ok", "{who}: {c}");
        assert_eq!(c["connections"], 10_000, "{who} held the workload's count");
        assert!(c["requests"].as_u64().unwrap() > 10_000, "{who}: {c}");
        let min = c["latency_us"]["min"].as_u64().unwrap();
        // Less a timer's slack: libuv's timers start from the loop's cached clock (node-http
        // answered a 10 ms wait after 9.77 ms).
        assert!(
            min >= 9_000,
            "{who}: an answer after {min} µs, before its wait"
        );
        let flags: Vec<&str> = c["flags"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f.as_str())
            .collect();
        // Timeouts and starved connections are the servers' own figures under 10,000 waiting
        // connections (node-http left most of them unanswered in a slice here), not a fault.
        assert!(!flags.contains(&"answered_early"), "{who}: {flags:?}");
    }
    let report = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        report.contains("closed loop, 10000 connections"),
        "the report says what the cells held"
    );
}
