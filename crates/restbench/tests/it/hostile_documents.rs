//! Hostile documents against `merge`, `report` and `compare` (issue 26 items 6 and 7): results
//! and load results that lie about their sizes, times, shards and counts, and that carry text
//! meant for a terminal, a Markdown renderer or a browser. One row per case, with the verdict
//! expected; every document is made inside the test, in a temporary folder. Each command runs
//! under an address-space limit, so a document that makes it allocate gigabytes fails its row
//! rather than the machine.

use std::path::Path;
use std::process::{Command, Output};

use restbench_model::documents::histogram;
use restbench_model::{
    Document, ErrorCounts, LatencySummary, LoadResult, LoadSettings, LoadgenCpu, RunResults,
    SecondSample, Shard, ThreadRps,
};
use restbench_testkit::fixtures::{cell, run_results};
use restbench_testkit::turn;

/// The address space every command may take (1 GiB: a debug build merging or rendering a small
/// document needs a few tens of MiB).
const ADDRESS_SPACE_KIB: u64 = 1 << 20;

/// What a case must come to.
enum Expect {
    /// Exit 1, one line on stderr holding every needle (the file and the field).
    Refused(&'static [&'static str]),
    /// Exit 0, and none of these in stdout nor in any file the command wrote.
    Clean(&'static [&'static str]),
}

/// One hostile document and the command given it.
struct Case {
    name: &'static str,
    /// Writes the documents into the folder and returns the command's arguments.
    setup: fn(&Path) -> Vec<String>,
    expect: Expect,
}

const ESC: &str = "\u{1b}";
/// What report.html must never hold of a hostile document (it escaped HTML before item 7).
const HTML_FORBIDDEN: &[&str] = &["<script>alert", "<img src=x", ESC];

// The table: hostile document → expected verdict.
const CASES: &[Case] = &[
    // Item 6: documents that lie.
    Case {
        name: "a 40-byte histogram promising 4 GiB, merged",
        setup: |d| merge_of(d, &[with_lying_histogram(load(0)), load(1)]),
        expect: Expect::Refused(&["a.json", "histogram", "4294967295-byte payload"]),
    },
    Case {
        name: "a 40-byte histogram promising 4 GiB, in a run's cell, reported",
        setup: |d| {
            let mut run = run_results(vec![cell("rust-axum", 1000.0)]);
            run.cells[0].histogram = Some(lying_histogram());
            write_run(d, "run", &run);
            args(&["report", &path(d, "run")])
        },
        expect: Expect::Refused(&["results.json", "cells[0].histogram", "payload"]),
    },
    Case {
        name: "a second of 4294967295 in a shard's series",
        setup: |d| {
            let mut a = load(0);
            a.timeseries[0].second = u32::MAX;
            merge_of(d, &[a, load(1)])
        },
        expect: Expect::Refused(&["a.json", "timeseries[0].second", "one week"]),
    },
    Case {
        name: "a shard starting in the far future",
        setup: |d| {
            let mut b = load(1);
            b.started_at_unix_ms = Some(250_000_000_000_000); // the year 9892
            merge_of(d, &[load(0), b])
        },
        expect: Expect::Refused(&["b.json", "started_at_unix_ms"]),
    },
    Case {
        name: "two shards of 2^64-1 requests each",
        setup: |d| {
            let huge = |i| {
                let mut r = load(i);
                (r.requests, r.sent, r.in_flight) = (u64::MAX, u64::MAX, 0);
                r
            };
            merge_of(d, &[huge(0), huge(1)])
        },
        expect: Expect::Refused(&["b.json", "2^64"]),
    },
    Case {
        name: "shard 5 of 2",
        setup: |d| {
            let mut b = load(1);
            b.shard = Some(Shard { index: 5, count: 2 });
            merge_of(d, &[load(0), b])
        },
        expect: Expect::Refused(&["b.json", "shard.index", "5 of 2"]),
    },
    Case {
        name: "shard 0 of 0",
        setup: |d| {
            let mut b = load(1);
            b.shard = Some(Shard { index: 0, count: 0 });
            merge_of(d, &[load(0), b])
        },
        expect: Expect::Refused(&["b.json", "shard.count"]),
    },
    Case {
        name: "a 40-byte histogram promising 4 GiB, compared",
        setup: |d| {
            write_load(d, "a.json", &with_lying_histogram(load(0)));
            write_load(d, "b.json", &load(1));
            args(&["compare", &path(d, "a.json"), &path(d, "b.json")])
        },
        expect: Expect::Refused(&["a.json", "histogram"]),
    },
    // Item 7: text that reaches a renderer raw.
    Case {
        name: "HTML and a forged heading in the machine's facts, report.md",
        setup: |d| {
            let mut run = run_results(vec![cell("rust-axum", 1000.0)]);
            let e = &mut run.environment;
            e.cpu_model = "<script>alert(1)</script>".into();
            e.kernel = "6.1\n# forged heading".into();
            e.hostname = "<img src=x onerror=alert(1)>".into();
            e.backend_reason = "<script>alert(2)</script>".into();
            run.protocol.note = Some("# forged note heading\n<script>alert(3)</script>".into());
            write_run(d, "run", &run);
            args(&["report", &path(d, "run")])
        },
        expect: Expect::Clean(&["<script>", "\n# forged", "<img"]),
    },
    Case {
        name: "terminal escapes in the machine's facts, report --stdout",
        setup: |d| {
            let mut run = run_results(vec![cell("rust-axum", 1000.0)]);
            run.environment.cpu_model = format!("{ESC}]0;owned{ESC}\\ {ESC}[2J");
            run.protocol.note = Some(format!("{ESC}[31mred"));
            write_run(d, "run", &run);
            args(&["report", "--stdout", &path(d, "run")])
        },
        expect: Expect::Clean(&[ESC, "\u{9b}"]),
    },
    Case {
        name: "terminal escapes in two runs, compare",
        setup: |d| {
            let mut run = run_results(vec![cell(&format!("axum{ESC}[2J"), 1000.0)]);
            run.environment.cpu_model = format!("{ESC}]0;owned\u{7}");
            run.environment.hostname = "host\u{9b}31m".to_string();
            write_run(d, "a", &run);
            write_run(d, "b", &run);
            args(&["compare", &path(d, "a"), &path(d, "b")])
        },
        expect: Expect::Clean(&[ESC, "\u{9b}", "\u{7}"]),
    },
    Case {
        name: "terminal escapes in two load results, compare",
        setup: |d| {
            let mut a = load(0);
            a.settings.url = format!("http://x/{ESC}]0;owned\u{7}");
            write_load(d, "a.json", &a);
            write_load(d, "b.json", &a);
            args(&["compare", &path(d, "a.json"), &path(d, "b.json")])
        },
        expect: Expect::Clean(&[ESC, "\u{7}"]),
    },
    Case {
        name: "terminal escapes in a generator's name, merge",
        setup: |d| {
            let mut a = load(0);
            a.shards = vec![restbench_model::ShardSummary {
                generator: format!("gen{ESC}[2J"),
                shard: a.shard,
                requests: a.requests,
                errors: 0,
                duration_s: a.duration_s,
                rps: a.rps,
                started_at_unix_ms: a.started_at_unix_ms,
                loadgen_cpu: a.loadgen_cpu,
            }];
            merge_of(d, &[a, load(1)])
        },
        expect: Expect::Clean(&[ESC]),
    },
];

#[test]
fn hostile_documents_against_merge_report_and_compare() {
    let _turn = turn::take(module_path!());
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|case| check(case).err().map(|e| format!("{}: {e}", case.name)))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn check(case: &Case) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let argv = (case.setup)(dir.path());
    let o = run_limited(&argv);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    match case.expect {
        Expect::Refused(needles) => {
            if o.status.code() != Some(1) || lines.len() != 1 {
                return Err(format!("exit {:?}, stderr {lines:?}", o.status.code()));
            }
            match needles.iter().find(|n| !lines[0].contains(*n)) {
                Some(n) => Err(format!("{n:?} missing from {lines:?}")),
                None => Ok(()),
            }
        }
        Expect::Clean(forbidden) => {
            if !o.status.success() {
                return Err(format!("exit {:?}, stderr {lines:?}", o.status.code()));
            }
            let mut outputs = vec![("stdout".to_string(), o.stdout.clone())];
            for f in written(dir.path()) {
                outputs.push((f.display().to_string(), std::fs::read(&f).unwrap()));
            }
            for (name, bytes) in outputs {
                let text = String::from_utf8_lossy(&bytes);
                // HTML keeps line breaks inside elements; what it must not hold is markup.
                let forbidden = if name.ends_with(".html") {
                    HTML_FORBIDDEN
                } else {
                    forbidden
                };
                if let Some(f) = forbidden.iter().find(|f| text.contains(*f)) {
                    return Err(format!("{f:?} reached {name}"));
                }
            }
            Ok(())
        }
    }
}

/// `restbench ARGS` under [`ADDRESS_SPACE_KIB`].
fn run_limited(argv: &[String]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_restbench"))
        .args(argv)
        .output()
        .unwrap()
}

/// The reports a command wrote (the documents given it are JSON).
fn written(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(written(&p));
        } else if p.extension().is_some_and(|e| e == "md" || e == "html") {
            out.push(p);
        }
    }
    out
}

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

fn path(d: &Path, name: &str) -> String {
    d.join(name).display().to_string()
}

/// `merge a.json b.json …` of `parts`, named a.json, b.json in order.
fn merge_of(d: &Path, parts: &[LoadResult]) -> Vec<String> {
    let mut argv = vec!["merge".to_string()];
    for (i, r) in parts.iter().enumerate() {
        let name = format!("{}.json", (b'a' + i as u8) as char);
        write_load(d, &name, r);
        argv.push(path(d, &name));
    }
    argv
}

fn write_load(d: &Path, name: &str, r: &LoadResult) {
    std::fs::write(d.join(name), serde_json::to_string(r).unwrap()).unwrap();
}

fn write_run(d: &Path, folder: &str, r: &RunResults) {
    std::fs::create_dir_all(d.join(folder)).unwrap();
    restbench_model::write_results(&d.join(folder), r).unwrap();
}

/// 40 bytes: a V2 header of restbench's bounds whose payload length is 4 GiB − 1.
fn lying_histogram() -> String {
    let mut b = 0x1c84_9313u32.to_be_bytes().to_vec();
    b.extend_from_slice(&u32::MAX.to_be_bytes());
    b.extend_from_slice(&0u32.to_be_bytes());
    b.extend_from_slice(&3u32.to_be_bytes());
    b.extend_from_slice(&1u64.to_be_bytes());
    b.extend_from_slice(&60_000_000u64.to_be_bytes());
    b.extend_from_slice(&1.0f64.to_be_bytes());
    histogram::encode_bytes(&b)
}

fn with_lying_histogram(mut r: LoadResult) -> LoadResult {
    r.histogram = lying_histogram();
    r
}

/// Shard `index` of 2 of a two-second load: 100 requests, started at the same instant.
fn load(index: u32) -> LoadResult {
    let mut h = histogram::new_latency_histogram();
    for v in 1..=100 {
        h.record(v * 10).unwrap();
    }
    LoadResult {
        schema_version: LoadResult::SCHEMA_VERSION,
        restbench_version: "0".into(),
        settings: LoadSettings {
            url: "http://10.0.0.1:8080/".into(),
            method: "GET".into(),
            connections: 2,
            threads: 1,
            duration_s: Some(2.0),
            requests: None,
            rate: None,
            pipeline: 1,
            keepalive: true,
            http_version: "1.1".into(),
            timeout_s: 2.0,
            warmup_s: 0.0,
            body_bytes: 0,
            max_streams: None,
            unix_socket: None,
            rate_end: None,
            deadline_s: None,
            requests_per_connection: None,
            script: None,
        },
        sent: 100,
        requests: 100,
        in_flight: 0,
        duration_s: 2.0,
        rps: 50.0,
        bytes: 1_000,
        bytes_per_s: 500.0,
        connections_opened: 2,
        latency_us: LatencySummary::from_histogram(&h),
        uncorrected_latency_us: None,
        errors: ErrorCounts::default(),
        status_counts: [("200".to_string(), 100)].into(),
        histogram: histogram::encode(&h),
        uncorrected_histogram: None,
        timeseries: vec![
            SecondSample {
                second: 0,
                requests: 50,
                ..Default::default()
            },
            SecondSample {
                second: 1,
                requests: 50,
                ..Default::default()
            },
        ],
        thread_rps: ThreadRps::default(),
        loadgen_cpu: LoadgenCpu::default(),
        max_schedule_lag_us: None,
        capacity: None,
        interrupted: false,
        interrupted_after_s: None,
        started_at_unix_ms: Some(1_764_442_884_000),
        shard: Some(Shard { index, count: 2 }),
        shards: Vec::new(),
        tls_handshake_us: None,
        connect_us: None,
        overload: None,
        tls_error: None,
        goaways: 0,
        pacing: None,
        script: None,
    }
}
