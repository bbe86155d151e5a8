//! `load`'s habits from wrk and zrk, through the binary against a tiny server in the test: a wrk
//! script with its arguments and its `done()`, `--timeseries` (NDJSON per second), `--hdr` (the
//! `.hgrm` distribution), `--deadline` (shed, counted apart), a ramp `-R A:B`, `-U`, and the
//! pacing figures in the result. Behaviour only, no speed.

use std::path::PathBuf;
use std::time::Duration;

use restbench_testkit::{Outcome, TinyServer};
use serde_json::Value;

use crate::support::restbench;
use restbench_testkit::turn;

fn hello_server() -> TinyServer {
    TinyServer::answering(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../loadgen/tests/fixtures/scripts")
        .join(name)
}

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn a_wrk_script_runs_with_its_done_and_its_cost_is_reported() {
    let _turn = turn::take(module_path!());
    let server = hello_server();
    let url = server.url("/");
    let o = restbench()
        .args(["load", "-n", "200", "-c", "2", "-t", "1", "-s"])
        .arg(fixture("wrk-report.lua"))
        .arg(&url)
        .output()
        .unwrap();
    let (out, err) = o.text();
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("Script: evaluated once into the request"),
        "{out}"
    );
    let csv = &out[out
        .find("------------------------------")
        .expect("done() wrote")..];
    for p in ["50%,", "90%,", "99%,", "99.999%,"] {
        assert!(csv.contains(p), "{p} in {csv}");
    }

    let server = hello_server();
    let url = server.url("/");
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let o = restbench()
        .args(["load", "-n", "50", "-c", "1", "-t", "1", "-s"])
        .arg(fixture("wrk-counter.lua"))
        .arg("--json")
        .arg(&json)
        .arg(&url)
        .output()
        .unwrap();
    let (out, err) = o.text();
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("Script: ") && out.contains("per call"),
        "{out}"
    );
    let r = read_json(&json);
    assert_eq!(
        r["settings"]["script"].as_str(),
        Some(fixture("wrk-counter.lua").to_str().unwrap())
    );
    assert_eq!(r["script"]["per_request"], true, "{r}");
    assert!(r["script"]["calls"].as_u64().unwrap() >= 50);
    let share = r["script"]["cpu_share"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&share), "{share}");
    assert_eq!(
        server
            .requests()
            .iter()
            .filter(|q| q.line() == "GET /3 HTTP/1.1")
            .count(),
        1
    );
}

#[test]
fn script_arguments_reach_init_and_refusals_exit_2_in_one_line() {
    let _turn = turn::take(module_path!());
    let server = hello_server();
    let url = server.url("/");
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("done.txt");
    let o = restbench()
        .args(["load", "-n", "20", "-c", "2", "-t", "2", "-s"])
        .arg(fixture("response-done.lua"))
        .arg(&url)
        .arg("--")
        .arg(&out_file)
        .output()
        .unwrap();
    let (out, err) = o.text();
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let text = std::fs::read_to_string(&out_file).unwrap();
    assert!(
        text.starts_with("threads=2 requests=20 seen=20 tokens=0 "),
        "{text}"
    );

    for (name, words) in [
        ("wrk-delay.lua", "delay() is not supported"),
        ("wrk-pipeline.lua", "several requests"),
        ("wrk-addr.lua", "wrk.lookup is not supported"),
    ] {
        let o = restbench()
            .args(["load", "-n", "5", "-s"])
            .arg(fixture(name))
            .arg(&url)
            .output()
            .unwrap();
        let (out, err) = o.text();
        assert_eq!(o.status.code(), Some(2), "{name}: {out}\n{err}");
        let line = err
            .lines()
            .find(|l| l.contains(words))
            .unwrap_or_else(|| panic!("{err}"));
        assert!(line.contains(name), "{line}");
    }
}

#[test]
fn timeseries_hdr_and_pacing_come_out_of_an_open_loop_run() {
    let _turn = turn::take(module_path!());
    let server = hello_server();
    let dir = tempfile::tempdir().unwrap();
    let (json, series, hgrm) = (
        dir.path().join("r.json"),
        dir.path().join("s.ndjson"),
        dir.path().join("l.hgrm"),
    );
    let o = restbench()
        .args([
            "load", "-d", "2s", "-c", "4", "-t", "1", "-R", "400", "-U", "--json",
        ])
        .arg(&json)
        .arg("--timeseries")
        .arg(&series)
        .arg("--hdr")
        .arg(&hgrm)
        .arg(server.url("/"))
        .output()
        .unwrap();
    let (out, err) = o.text();
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("Uncorrected Latency Distribution"),
        "-U: {out}"
    );
    assert!(out.contains("Send wake-up error: p50 "), "{out}");
    let r = read_json(&json);
    let answered = r["requests"].as_u64().unwrap();
    let wake = &r["pacing"]["wake_error_ns"];
    assert!(wake["count"].as_u64().unwrap() > 0, "{r}");
    assert!(wake["p50"].as_u64() <= wake["max"].as_u64(), "{wake}");
    assert!(
        r["uncorrected_latency_us"].is_object(),
        "the uncorrected histogram is kept"
    );

    let lines: Vec<Value> = std::fs::read_to_string(&series)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert!(lines.len() >= 2, "{lines:?}");
    let seen: u64 = lines.iter().map(|l| l["requests"].as_u64().unwrap()).sum();
    assert!(
        seen <= answered && seen * 10 >= answered * 8,
        "{seen} of {answered}"
    );
    assert!(
        lines.iter().all(|l| l["backlog"].is_u64()),
        "open loop: {lines:?}"
    );

    let text = std::fs::read_to_string(&hgrm).unwrap();
    assert!(text.trim_start().starts_with("Value"), "{text}");
    let total = text
        .lines()
        .find_map(|l| l.strip_prefix("#[Max     = "))
        .and_then(|l| l.split("Total count    =").nth(1))
        .map(|n| n.trim_end_matches(']').trim().parse::<u64>().unwrap());
    assert_eq!(total, Some(answered), "{text}");
}

#[test]
fn deadline_sheds_late_requests_apart_and_a_ramp_moves_the_rate() {
    let _turn = turn::take(module_path!());
    // Each answer takes 50 ms on one connection: at 100/s most requests are late.
    let slow = TinyServer::serving(|mut stream| {
        use std::io::{Read, Write};
        let mut buf = [0u8; 4096];
        while let Ok(n) = stream.read(&mut buf) {
            if n == 0 {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
            if stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                .is_err()
            {
                return;
            }
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let o = restbench()
        .args([
            "load",
            "-d",
            "2s",
            "-c",
            "1",
            "-t",
            "1",
            "-R",
            "100",
            "--deadline",
            "10ms",
            "--json",
        ])
        .arg(&json)
        .arg(slow.url("/"))
        .output()
        .unwrap();
    let (out, err) = o.text();
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let r = read_json(&json);
    let shed = r["pacing"]["shed"].as_u64().unwrap();
    let sent = r["sent"].as_u64().unwrap();
    assert!(shed > sent, "most are shed: {shed} shed, {sent} sent");
    assert!(
        sent + shed >= 150 && sent + shed <= 210,
        "the schedule's 200: {sent} + {shed}"
    );
    assert_eq!(r["settings"]["deadline_s"].as_f64(), Some(0.01));
    assert!(out.contains("Shed by --deadline"), "{out}");

    let fast = hello_server();
    let o = restbench()
        .args([
            "load", "-d", "3s", "-c", "4", "-t", "1", "-R", "50:600", "--json",
        ])
        .arg(&json)
        .arg(fast.url("/"))
        .output()
        .unwrap();
    let (out, err) = o.text();
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("50 to 600 requests/sec (open loop, ramp)"),
        "{out}"
    );
    let r = read_json(&json);
    assert_eq!(r["settings"]["rate_end"].as_f64(), Some(600.0));
    let per_second: Vec<u64> = r["timeseries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["requests"].as_u64().unwrap())
        .collect();
    // 50→600 over 3 s: about 140, 325 and 510 in the three seconds.
    assert!(per_second.len() >= 3, "{per_second:?}");
    assert!(
        per_second[0] < per_second[1] && per_second[1] < per_second[2],
        "{per_second:?}"
    );
    let total: u64 = per_second.iter().sum();
    assert!((800..=1200).contains(&total), "about 975 in all: {total}");
}

#[test]
fn bad_pacing_arguments_exit_2() {
    let _turn = turn::take(module_path!());
    for args in [
        &["-R", "5:x"][..],
        &["--deadline", "5ms"],
        &["-R", "10:20", "-n", "100"],
        &["-R", "10", "--deadline", "0s"],
        &["--json", "-", "--timeseries", "-"],
    ] {
        let o = restbench()
            .arg("load")
            .args(args)
            .arg("http://127.0.0.1:1/")
            .output()
            .unwrap();
        let (out, err) = o.text();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {out}\n{err}");
    }
}
