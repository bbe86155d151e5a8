//! A server's memory through a run: one that keeps what it is sent is flagged
//! `memory_growing`, and one past its `--memory-limit` is killed there by the kernel and fails
//! its cell with that reason while the run goes on. The server is the contract's tiny Python
//! plaintext server (`bench --cmd`), patched to hold memory per answer. No test asserts a speed.

use std::path::Path;
use std::process::{Command, Output};

use restbench_testkit::Outcome;
use restbench_testkit::fixtures::PYTHON_PLAINTEXT_SERVER as SERVER;
use restbench_testkit::turn;

use crate::support::restbench;

const MIB: u64 = 1 << 20;

fn python() -> Option<&'static str> {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
        .then_some("python3")
}

/// [`SERVER`], holding `kib` KiB more after each answer, up to `cap_mib` MiB in all, in the
/// scenarios whose name `grows_in` holds (`RESTBENCH_SCENARIO`); `pause_ms` per answer keeps
/// the rate, and so the growth per slice, within a range a shared machine gives.
fn growing_server(kib: u64, cap_mib: u64, grows_in: &str, pause_ms: u64) -> String {
    let patched = SERVER
        .replace(
            "import sys\n",
            &format!(
                "import os, sys, threading, time\n\
                 KEPT = []\n\
                 KEPT_LOCK = threading.Lock()\n\
                 GROWS = os.environ.get('RESTBENCH_SCENARIO', '') in {grows_in:?}.split(',')\n"
            ),
        )
        .replace(
            "        self.wfile.write(body)\n",
            &format!(
                "        self.wfile.write(body)\n        \
                 time.sleep({pause_ms} / 1000)\n        \
                 with KEPT_LOCK:\n            \
                 if GROWS and len(KEPT) * {kib} < {cap_mib} * 1024:\n                \
                 KEPT.append(b'x' * ({kib} * 1024))\n"
            ),
        );
    assert!(patched.contains("KEPT.append") && patched.contains("GROWS ="));
    patched
}

/// `restbench bench --cmd` of `server` (written to `dir/grow.py`) on plaintext in `scenarios`,
/// three slices of `duration` in one server process, 2 connections, no warm-up or calibration, with `extra` flags, into
/// `dir/out`; returns the output and results.json.
fn bench(
    python: &str,
    dir: &Path,
    server: &str,
    scenarios: &str,
    duration: &str,
    extra: &[&str],
) -> (Output, serde_json::Value) {
    std::fs::write(dir.join("grow.py"), server).unwrap();
    let out = dir.join("out");
    let o = restbench()
        .current_dir(dir)
        .env("RESTBENCH_CACHE", dir.join("cache"))
        .args(["bench", "--cmd", &format!("exec {python} grow.py {{port}}")])
        .args(["--name", "grower", "--workloads", "plaintext"])
        .args(["--scenarios", scenarios, "--warmup", "0s"])
        .args(["--duration", duration, "--repeats", "3", "-c", "2"])
        .args(["--max-rounds", "3", "--restarts", "1", "--no-calibrate"])
        .args(extra)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let results = serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap())
        .unwrap_or_else(|e| panic!("{e}: {}", o.stderr_text()));
    (o, results)
}

fn cell<'a>(results: &'a serde_json::Value, scenario: &str) -> &'a serde_json::Value {
    results["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["scenario"] == scenario)
        .unwrap_or_else(|| panic!("no {scenario} cell: {results}"))
}

fn flags(cell: &serde_json::Value) -> Vec<&str> {
    cell["flags"]
        .as_array()
        .map(|f| f.iter().filter_map(|f| f.as_str()).collect())
        .unwrap_or_default()
}

/// A server that keeps 128 KiB of every request (up to 640 MiB) rises through its three slices
/// by far more than half again and 64 MiB: its cell is flagged `memory_growing`, in
/// results.json and in the printed report's flags and legend; the same server holding nothing
/// is not.
#[test]
#[ignore = "slow: three 2 s slices of a server grown to hundreds of MiB"]
fn a_server_that_keeps_what_it_is_sent_is_flagged_memory_growing() {
    let _turn = turn::take(module_path!());
    let Some(python) = python() else {
        eprintln!("skipped: python3 is not installed, so there is no test server");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = growing_server(128, 640, "single-thread", 2);
    let (o, results) = bench(
        python,
        dir.path(),
        &server,
        "single-thread,all-cores",
        "2s",
        &["--no-cgroups"],
    );
    o.assert_exit(0);
    let grown = cell(&results, "single-thread");
    assert_eq!(grown["status"], "ok", "{grown}");
    assert!(flags(grown).contains(&"memory_growing"), "{grown}");
    let peak = grown["server"]["rss_peak_bytes"].as_u64().unwrap();
    assert!(peak > 64 * MIB, "{peak}");
    let flat = cell(&results, "all-cores");
    assert!(!flags(flat).contains(&"memory_growing"), "{flat}");
    let text = o.stdout_text();
    assert!(text.contains("memory_growing"), "{text}");
}

/// With `--memory-limit 64MiB`, a server that keeps 256 KiB of every request is killed by the
/// kernel at its cgroup's limit: its cell fails with "killed at its memory limit of 64 MiB",
/// its placement records the limit, and the run goes on to the next scenario's cell (the same
/// server holding nothing there), which is measured and ok. Where no cgroup memory controller
/// is writable, the limit is said not to be enforced, and the rest is skipped with a line.
#[test]
#[ignore = "slow: a server grown to its memory limit and killed there"]
fn a_server_past_its_memory_limit_is_killed_there_and_fails_its_cell_with_why() {
    let _turn = turn::take(module_path!());
    let Some(python) = python() else {
        eprintln!("skipped: python3 is not installed, so there is no test server");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = growing_server(256, 4096, "single-thread", 0);
    let (o, results) = bench(
        python,
        dir.path(),
        &server,
        "single-thread,all-cores",
        "1s",
        &["--memory-limit", "64MiB"],
    );
    let killed = cell(&results, "single-thread");
    let placement = &killed["placement"];
    let enforcement = placement["enforcement"].as_str().unwrap_or_default();
    if placement["memory_limit_bytes"].is_null() {
        assert!(
            enforcement.contains("memory limit 64 MiB not enforced"),
            "{killed}"
        );
        eprintln!("skipped: no writable cgroup memory controller here ({enforcement})");
        return;
    }
    assert_eq!(placement["memory_limit_bytes"], 64 * MIB, "{placement}");
    assert!(
        enforcement.contains("memory limit 64 MiB (memory."),
        "{enforcement}"
    );
    assert_eq!(killed["status"], "failed", "{killed}");
    let reason = killed["reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("killed at its memory limit of 64 MiB: the kernel's OOM killer"),
        "{reason}"
    );
    // The run went on: the next scenario's server, holding nothing, was measured.
    let next = cell(&results, "all-cores");
    assert_eq!(next["status"], "ok", "{next}: {}", o.stderr_text());
    assert!(next["requests"].as_u64().unwrap() > 0, "{next}");
    assert_eq!(next["placement"]["memory_limit_bytes"], 64 * MIB);
}
