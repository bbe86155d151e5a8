//! `report.html` in a real browser: Debian's chromium, headless, renders a realistic report; the
//! screenshot must not be blank, the DOM must hold every chart and table, and the page must raise
//! no error. The browser test is `#[ignore]`d with the reason (`cargo test -- --include-ignored`
//! runs it, as CI does); the structure check without a browser always runs.
//!
//! RESTBENCH_CHROMIUM overrides the browser path; RESTBENCH_REPORT_KEEP=DIR keeps report.html,
//! report.md and shot.png there for a look.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use restbench_model::documents::histogram::{encode, new_latency_histogram};
use restbench_model::{
    BoundBy, Capacity, CapacityProbe, CaseLevel, CaseResult, CaseVerdict, Cell, CellStatus,
    CellSubject, Document, Environment, ErrorCounts, Finding, LatencySummary, LoadgenUsage,
    RateStep, RepeatResult, RpsStats, RunProtocol, RunResults, SecondSample, ServerUsage, Slo,
    StepServer, StudyInfo, SubjectConformance,
};

/// A small deterministic generator (xorshift), so the histograms are the same every time.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Log-normal-ish latency around `median_us` with a tail.
    fn latency(&mut self, median_us: f64, spread: f64) -> u64 {
        let u1 = self.next().max(1e-12);
        let u2 = self.next();
        let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
        let mut v = median_us * (spread * z).exp();
        if self.next() < 0.002 {
            v *= 8.0 + 40.0 * self.next();
        }
        v.max(1.0) as u64
    }
}

struct Spec<'a> {
    subject: &'a str,
    framework: &'a str,
    language: &'a str,
    workload: &'a str,
    scenario: &'a str,
    rps: f64,
    cpu_cores: f64,
    rss_mb: f64,
    settings: &'a [(&'a str, &'a str)],
    flags: &'a [&'a str],
}

fn ok_cell(s: &Spec<'_>, seed: u64) -> Cell {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut h = new_latency_histogram();
    let median = 10.0 * 1e6 / s.rps; // 10 connections, closed loop
    for _ in 0..20_000 {
        h.saturating_record(rng.latency(median, 0.35));
    }
    let p99 = LatencySummary::from_histogram(&h).p99;
    let repeats: Vec<RepeatResult> = [0.99, 1.0, 1.012]
        .iter()
        .map(|k| RepeatResult {
            rps: s.rps * k,
            requests: (s.rps * k * 10.0) as u64,
            duration_s: 10.0,
            latency_us: LatencySummary::from_histogram(&h),
            errors: ErrorCounts::default(),
            server_cpu_cores: s.cpu_cores,
            loadgen_cpu_cores: 0.8,
            // Ten seconds, with a pause (a GC, say) now and then.
            round: None,
            saturation: None,
            timeseries: (0..10)
                .map(|i| {
                    let pause = rng.next() < 0.1;
                    let rate = s.rps * k * (0.95 + 0.1 * rng.next());
                    SecondSample {
                        second: i,
                        requests: (rate * if pause { 0.7 } else { 1.0 }) as u64,
                        errors: 0,
                        p50_us: Some((median as u64).max(1)),
                        p99_us: Some(p99 * if pause { 6 } else { 1 }),
                    }
                })
                .collect(),
        })
        .collect();
    let noisy = s.flags.contains(&"noisy");
    let who = CellSubject {
        id: s.subject.into(),
        language: s.language.into(),
        framework: s.framework.into(),
        framework_version: "1.0".into(),
    };
    let workload = s.workload.parse().expect("a workload name");
    let scenario = s.scenario.parse().expect("a scenario name");
    Cell {
        rps: RpsStats {
            median: s.rps,
            min: s.rps * if noisy { 0.8 } else { 0.99 },
            max: s.rps * if noisy { 1.15 } else { 1.012 },
            cv: if noisy { 0.14 } else { 0.011 },
            ci95: Some([s.rps * 0.99, s.rps * 1.012]),
        },
        latency_us: LatencySummary::from_histogram(&h),
        errors: ErrorCounts {
            read: if s.flags.contains(&"errors") { 12 } else { 0 },
            ..Default::default()
        },
        requests: (s.rps * 30.0) as u64,
        bytes_per_s: s.rps * 4_400.0,
        server: ServerUsage {
            cpu_cores: s.cpu_cores,
            cpu_us_per_req: s.cpu_cores * 1e6 / s.rps,
            rss_peak_bytes: (s.rss_mb * 1024.0 * 1024.0) as u64,
            rss_mean_bytes: (s.rss_mb * 0.85 * 1024.0 * 1024.0) as u64,
            cpu_limit_cores: (s.scenario == "one-cpu").then_some(1.0),
            ..Default::default()
        },
        loadgen: LoadgenUsage {
            cpu_cores: 0.8,
            cpu_us_per_req: 0.8e6 / s.rps,
            client_bound: s.flags.contains(&"client_bound"),
        },
        findings: vec![Finding::pass("body", "the echo matches")],
        flags: s.flags.iter().map(|f| f.to_string()).collect(),
        settings: s
            .settings
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        repeats,
        histogram: Some(encode(&h)),
        ..Cell::new(&who, workload, scenario)
    }
}

fn not_ok(subject: &str, workload: &str, scenario: &str, status: CellStatus, reason: &str) -> Cell {
    let mut c = ok_cell(
        &Spec {
            subject,
            framework: subject,
            language: "java",
            workload,
            scenario,
            rps: 1.0,
            cpu_cores: 0.0,
            rss_mb: 0.0,
            settings: &[],
            flags: &[],
        },
        1,
    );
    c.status = status;
    c.reason = Some(reason.into());
    c.rps = RpsStats::default();
    c.latency_us = LatencySummary::default();
    c.histogram = None;
    c.repeats.clear();
    c.server = ServerUsage::default();
    c
}

/// A study-a run on an 8-core machine: three scenarios of echo, a plaintext extra, a failed and
/// a skipped cell, variants told apart by GOMAXPROCS, and a reason that tries to inject HTML.
pub(crate) fn sample() -> RunResults {
    let specs = [
        (
            "node-http",
            "node:http",
            "node",
            "echo",
            "single-thread",
            14_200.0,
            1.0,
            72.0,
            &[][..],
            &[][..],
        ),
        (
            "go-nethttp",
            "net/http",
            "go",
            "echo",
            "single-thread",
            16_900.0,
            1.0,
            12.0,
            &[("GOMAXPROCS", "1")][..],
            &[][..],
        ),
        (
            "go-nethttp-dynamic",
            "net/http (dynamic)",
            "go",
            "echo",
            "single-thread",
            9_800.0,
            1.0,
            13.0,
            &[("GOMAXPROCS", "1")][..],
            &[][..],
        ),
        (
            "rust-axum",
            "axum",
            "rust",
            "echo",
            "single-thread",
            41_000.0,
            1.0,
            6.5,
            &[("WORKERS", "1")][..],
            &[][..],
        ),
        (
            "node-http",
            "node:http",
            "node",
            "echo",
            "one-cpu",
            11_100.0,
            0.99,
            70.0,
            &[][..],
            &["noisy"][..],
        ),
        (
            "go-nethttp",
            "net/http",
            "go",
            "echo",
            "one-cpu",
            14_800.0,
            1.0,
            12.5,
            &[("GOMAXPROCS", "1")][..],
            &[][..],
        ),
        (
            "go-nethttp",
            "net/http",
            "go",
            "echo",
            "one-cpu",
            12_300.0,
            1.0,
            14.0,
            &[("GOMAXPROCS", "8")][..],
            &[][..],
        ),
        (
            "rust-axum",
            "axum",
            "rust",
            "echo",
            "one-cpu",
            39_500.0,
            1.0,
            7.0,
            &[][..],
            &[][..],
        ),
        (
            "node-http",
            "node:http",
            "node",
            "echo",
            "all-cores",
            52_000.0,
            5.6,
            310.0,
            &[("CLUSTER_WORKERS", "6")][..],
            &[][..],
        ),
        (
            "go-nethttp",
            "net/http",
            "go",
            "echo",
            "all-cores",
            71_000.0,
            5.8,
            19.0,
            &[("GOMAXPROCS", "6")][..],
            &[][..],
        ),
        (
            "rust-axum",
            "axum",
            "rust",
            "echo",
            "all-cores",
            182_000.0,
            5.1,
            11.0,
            &[("WORKERS", "6")][..],
            &["client_bound"][..],
        ),
        (
            "rust-hyper",
            "hyper",
            "rust",
            "echo",
            "all-cores",
            176_000.0,
            5.0,
            9.0,
            &[("WORKERS", "6")][..],
            &["client_bound", "errors", "nonconformant"][..],
        ),
        (
            "rust-axum",
            "axum",
            "rust",
            "plaintext",
            "all-cores",
            402_000.0,
            5.9,
            8.0,
            &[][..],
            &["client_bound"][..],
        ),
        (
            "go-nethttp",
            "net/http",
            "go",
            "plaintext",
            "all-cores",
            188_000.0,
            6.0,
            15.0,
            &[][..],
            &[][..],
        ),
    ];
    let mut cells: Vec<Cell> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            ok_cell(
                &Spec {
                    subject: s.0,
                    framework: s.1,
                    language: s.2,
                    workload: s.3,
                    scenario: s.4,
                    rps: s.5,
                    cpu_cores: s.6,
                    rss_mb: s.7,
                    settings: s.8,
                    flags: s.9,
                },
                i as u64 + 7,
            )
        })
        .collect();
    cells[4]
        .findings
        .push(Finding::warn("date", "Date header <missing> & cached"));
    // The echo single-thread group also ran open loop: one subject bound by the server, one whose
    // capacity is the generator's floor, one that cannot hold the equal-load rate.
    let mut open = 0;
    for c in cells
        .iter_mut()
        .filter(|c| c.workload == "echo" && c.scenario == "single-thread")
    {
        let (rate, bound) = match open {
            0 => (12_000.0, BoundBy::Server),
            1 => (38_000.0, BoundBy::Generator),
            _ => (8_000.0, BoundBy::Server),
        };
        with_open_loop(c, rate, bound);
        open += 1;
    }
    assert!(open >= 3, "the sample has an echo single-thread group");
    cells.push(not_ok(
        "java-spring-boot",
        "echo",
        "all-cores",
        CellStatus::Failed,
        "did not answer on 127.0.0.1:40123 within 60 s: <script>alert(1)</script> & exit status 1\nlog tail:\n  Error: Unable to access jarfile target/app.jar",
    ));
    cells.push(not_ok(
        "haskell-warp",
        "plaintext",
        "all-cores",
        CellStatus::Skipped,
        "ghc is not on PATH: install GHC 9.x",
    ));
    RunResults {
        schema_version: RunResults::SCHEMA_VERSION,
        kind: "study a".into(),
        started_at: "2026-11-29T19:01:24Z".into(),
        finished_at: Some("2026-11-29T19:19:02Z".into()),
        interrupted: false,
        environment: Environment {
            restbench_version: "0.1.0".into(),
            cpu_model: "AMD EPYC 7B13 64-Core Processor".into(),
            cores: 8,
            kernel: "6.1.0-28-cloud-amd64".into(),
            hostname: "bench-1".into(),
            memory_bytes: 32 * 1024 * 1024 * 1024,
            backend: "cgroup-v2".into(),
            backend_reason: "cgroup v2 with cpu and cpuset controllers delegated".into(),
            loadgen_cpus: vec![0, 1],
            server_cpus: vec![2, 3, 4, 5, 6, 7],
            toolchains: BTreeMap::from([
                ("go".into(), "go version go1.26.0 linux/amd64".into()),
                ("node".into(), "v20.20.2".into()),
                ("rust".into(), "rustc 1.95.0 (2026-03-21)".into()),
            ]),
            loadgen_ceiling_rps: Some(520_000.0),
            loadgen_ceiling_start_rps: Some(520_000.0),
            loadgen_ceiling_end_rps: Some(430_000.0),
        },
        protocol: RunProtocol {
            connections: 10,
            threads: 2,
            duration_s: Some(10.0),
            requests: None,
            warmup_s: 3.0,
            warmup_requests: None,
            repeats: 3,
            keepalive: true,
            http_version: "1.1".into(),
            timeout_s: 2.0,
            db_pool_total: 100,
            note: Some("study a: wrk's 2 threads and 10 connections".into()),
            restarts: None,
            rounds: None,
            explain: false,
        },
        cells,
        study: StudyInfo::new(
            "a",
            true,
            "10 s per repeat instead of the seed's single 20 s run; 3 repeats",
        ),
        noisy_machine: restbench_model::documents::run::ceiling_drift(520_000.0, 430_000.0),
        conformance: conformance(),
        groups: Vec::new(),
        unserved: Vec::new(),
    }
}

/// Every subject of the sample checked: rust-hyper fails two fail cases (so its cells are
/// flagged nonconformant), node-http warns, and a seen text tries to inject HTML.
fn conformance() -> Vec<SubjectConformance> {
    let case = |case: &str, level, verdict, seen: &str| CaseResult {
        case: case.into(),
        level,
        verdict,
        seen: seen.into(),
    };
    let passing = || {
        vec![
            case(
                "split-every-offset/echo",
                CaseLevel::Fail,
                CaseVerdict::Pass,
                "answered at every offset",
            ),
            case(
                "connection-close",
                CaseLevel::Fail,
                CaseVerdict::Pass,
                "answered, then closed",
            ),
        ]
    };
    let subject = |name: &str, cases: Vec<CaseResult>| SubjectConformance {
        subject: name.into(),
        build: format!("build-of-{name}"),
        cases,
        error: None,
    };
    let mut node = passing();
    node.push(case(
        "header-16k",
        CaseLevel::Warn,
        CaseVerdict::Warn,
        "answered 400, not 431",
    ));
    vec![
        subject("node-http", node),
        subject("go-nethttp", passing()),
        subject("go-nethttp-dynamic", passing()),
        subject("rust-axum", passing()),
        subject(
            "rust-hyper",
            vec![
                case(
                    "split-every-offset/echo",
                    CaseLevel::Fail,
                    CaseVerdict::Fail,
                    "no answer after the split at byte 3: <img src=x onerror=alert(2)>",
                ),
                case(
                    "cl-and-te",
                    CaseLevel::Fail,
                    CaseVerdict::Fail,
                    "the second request got the first one's answer",
                ),
            ],
        ),
    ]
}

/// One open-loop step with a histogram around `p99_us`.
fn rate_step(target: f64, achieved: f64, p99_us: u64, pass: bool, saturated: bool) -> RateStep {
    let mut rng = Rng(target as u64 | 1);
    let mut h = new_latency_histogram();
    for _ in 0..2_000 {
        h.record(rng.latency(p99_us as f64 / 4.0, 0.6).max(1))
            .unwrap();
    }
    let latency = LatencySummary {
        p50: p99_us / 4,
        p90: p99_us / 2,
        p99: p99_us,
        p999: p99_us * 2,
        ..LatencySummary::from_histogram(&h)
    };
    RateStep {
        target_rps: target,
        achieved_rps: achieved,
        duration_s: 3.0,
        sent: (achieved * 3.0) as u64,
        requests: (achieved * 3.0) as u64,
        errors: ErrorCounts::default(),
        errors_percent: 0.0,
        latency_us: latency,
        pass,
        failed: if pass {
            vec![]
        } else {
            vec![format!("p99<=5ms (was {p99_us}us)")]
        },
        loadgen_cpu_cores: if saturated { 1.95 } else { 0.4 },
        generator_saturated: saturated,
        max_schedule_lag_us: 0,
        histogram: encode(&h),
        server: Some(StepServer {
            cpu_cores: 0.9,
            cpu_us_per_req: 0.9e6 / achieved,
            rss_peak_bytes: 20 << 20,
            cgroup_memory_peak_bytes: None,
        }),
    }
}

/// Gives a cell a capacity search (bound by `bound`) and one equal-load point at 10,000/s.
fn with_open_loop(c: &mut Cell, capacity: f64, bound: BoundBy) {
    let saturated = bound == BoundBy::Generator;
    let steps = vec![
        rate_step(capacity * 1.3, capacity * 1.1, 40_000, false, saturated),
        rate_step(capacity * 0.8, capacity * 0.8, 1_200, true, false),
        rate_step(capacity * 1.05, capacity * 1.0, 9_000, false, saturated),
        rate_step(capacity, capacity, 4_100, true, false),
    ];
    c.capacity = Some(Capacity {
        slo: Slo::parse_all(&["p99<=5ms"]).unwrap(),
        rate: Some(capacity),
        bound_by: bound,
        reason: format!("at {:.0} req/s the step failed", capacity * 1.05),
        probe: CapacityProbe {
            rps: capacity * 1.3,
            connections: 10,
            duration_s: 3.0,
            loadgen_cpu_cores: 0.5,
            generator_saturated: saturated,
        },
        resolution: 0.02,
        hold_fraction: 0.97,
        step_duration_s: 3.0,
        step_warmup_s: 1.0,
        generator_cores: Some(2.0),
        steps,
        interrupted: false,
    });
    let held = capacity >= 10_000.0;
    c.at_rate = vec![rate_step(
        10_000.0,
        capacity.min(10_000.0),
        if held { 900 } else { 60_000 },
        held,
        false,
    )];
}

/// (workload, scenario) groups that have at least one measured cell, and all groups.
fn group_counts(r: &RunResults) -> (usize, usize) {
    let mut all: Vec<(&str, &str)> = r
        .cells
        .iter()
        .map(|c| (c.workload.as_str(), c.scenario.as_str()))
        .collect();
    all.sort();
    all.dedup();
    let measured = all
        .iter()
        .filter(|(w, s)| {
            r.cells
                .iter()
                .any(|c| c.workload == *w && c.scenario == *s && c.status == CellStatus::Ok)
        })
        .count();
    (measured, all.len())
}

#[test]
fn report_holds_every_chart_and_table_and_escapes_text() {
    let r = sample();
    let html = restbench_report::html::render(&r);
    let (measured, all) = group_counts(&r);
    assert_eq!(
        html.matches("<figure class=\"chart\"").count(),
        5 * measured + 1
    );
    assert_eq!(html.matches("data-chart=\"latency-throughput\"").count(), 1);
    assert_eq!(html.matches("<table class=\"capacity\"").count(), 1);
    assert_eq!(html.matches("<table class=\"equal-load\"").count(), 1);
    assert!(
        html.contains("≥ 38,000"),
        "a generator-bound capacity is a floor"
    );
    assert!(html.contains("not held"));
    assert!(html.contains("at saturation, closed loop, 10 connections"));
    assert!(
        html.contains("data-noisy-machine"),
        "the drift of the ceiling is at the top"
    );
    for kind in ["rps", "latency", "cpu", "memory", "timeline"] {
        assert_eq!(
            html.matches(&format!("data-chart=\"{kind}\"")).count(),
            measured,
            "{kind}"
        );
    }
    assert_eq!(html.matches("<table class=\"cells\"").count(), all);
    assert_eq!(html.matches("<table class=\"ratios\"").count(), 3);
    assert!(!html.contains("<script>alert"), "reasons must be escaped");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("Date header &lt;missing&gt; &amp; cached"));
    assert!(
        !html.contains("http://") || !html.contains("src=\"http"),
        "no external resources"
    );
    assert!(!html.contains("<link") && !html.contains("@import"));
    assert!(
        html.contains("⇅"),
        "node-http vs go-nethttp order is reversed in the sample"
    );
    let md = restbench_report::markdown::report(&r);
    assert!(md.contains("## Study a"));
    assert!(md.contains("at saturation, closed loop, 10 connections"));
    assert!(md.contains("### Capacity under the SLO") && md.contains("≥ 38,000"));
    assert!(md.contains("### Equal load") && md.contains("**no**"));
    assert!(md.contains("| node-http | echo | single-thread | ok |"));
    assert!(md.contains("go-nethttp [GOMAXPROCS=1]"));
    assert!(md.contains("## Conformance") && md.contains("### Conformance of rust-hyper"));
    assert_eq!(
        html.matches("<section id=\"conformance\" data-conformance>")
            .count(),
        1
    );
    assert!(
        !html.contains("<img src=x"),
        "what was seen must be escaped"
    );
}

/// The conformance section as the browser built it: one summary table, one case table per
/// subject, the nonconformant subject's open, and it ranked after the conformant ones.
fn check_conformance(dom: &str, r: &RunResults) {
    let section = &dom[dom
        .find("<section id=\"conformance\"")
        .expect("the conformance section")..];
    let section = &section[..section.find("</section>").expect("the section closes")];
    assert_eq!(section.matches("<table class=\"conformance\"").count(), 1);
    assert_eq!(
        section
            .matches("<table class=\"conformance-cases\"")
            .count(),
        r.conformance.len()
    );
    for s in &r.conformance {
        let row = format!("<tr data-subject=\"{}\">", s.subject);
        assert!(section.contains(&row), "{row} missing in {section}");
    }
    let summary = &section[section.find("<tr data-subject=\"rust-hyper\">").unwrap()..];
    assert!(summary[..summary.find("</tr>").unwrap()].contains("nonconformant"));
    assert!(section.contains("<details data-subject=\"rust-hyper\" open=\"\">"));
    assert!(section.contains("data-ranked-apart"));
    assert!(section.contains("&lt;img src=x onerror=alert(2)&gt;"));
    assert!(!dom.contains("<img src=x"));
    // echo · all-cores: rust-hyper is faster than go-nethttp and node-http but listed after them.
    let group = &dom[dom.find("id=\"g-echo-all-cores\"").expect("the group")..];
    let table = &group[..group.find("</table>").unwrap()];
    let at = |s: &str| table.find(s).unwrap_or_else(|| panic!("{s} missing"));
    assert!(at("node-http") < at("rust-hyper") && at("go-nethttp") < at("rust-hyper"));
    let first_chart = &group[..group.find("</figure>").unwrap()];
    assert!(first_chart.contains("data-ranked-apart"));
    assert!(first_chart.contains("⚠ rust-hyper"), "the chart marks it");
}

pub(crate) fn chromium() -> Option<PathBuf> {
    let p = std::env::var_os("RESTBENCH_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    p.exists().then_some(p)
}

/// Runs chromium with `args`, killing it after `limit`; returns (stdout, stderr).
pub(crate) fn run_bounded(browser: &Path, args: &[String], limit: Duration) -> (String, String) {
    let mut child = Command::new(browser)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chromium starts");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait for chromium") {
            break st;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within {limit:?}: {args:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let (o, e) = (t_out.join().unwrap(), t_err.join().unwrap());
    assert!(status.success(), "chromium failed ({status}): {e}");
    (o, e)
}

#[test]
#[ignore = "slow: starts headless Chromium; cargo test -- --include-ignored runs it (CI does)"]
fn report_renders_in_headless_chromium() {
    let browser = chromium().unwrap_or_else(|| {
        panic!(
            "chromium is missing: install it with `apt-get install -y chromium` (or set RESTBENCH_CHROMIUM to a Chromium binary)"
        )
    });
    let r = sample();
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    std::fs::write(&page, restbench_report::html::render(&r)).unwrap();
    let shot = dir.path().join("shot.png");
    let url = format!("file://{}", page.display());
    let common = |profile: &str| -> Vec<String> {
        vec![
            "--headless".into(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--disable-background-networking".into(),
            "--disable-extensions".into(),
            "--no-first-run".into(),
            "--hide-scrollbars".into(),
            "--enable-logging=stderr".into(),
            "--v=0".into(),
            format!("--user-data-dir={}", dir.path().join(profile).display()),
        ]
    };
    let limit = Duration::from_secs(60);

    let mut args = common("profile-shot");
    args.push(format!("--screenshot={}", shot.display()));
    args.push("--window-size=1280,4000".into());
    args.push(url.clone());
    let (_, shot_err) = run_bounded(&browser, &args, limit);

    let mut args = common("profile-dom");
    args.push("--virtual-time-budget=2000".into());
    args.push("--dump-dom".into());
    args.push(url);
    let (dom, dom_err) = run_bounded(&browser, &args, limit);

    if let Some(keep) = std::env::var_os("RESTBENCH_REPORT_KEEP") {
        let keep = PathBuf::from(keep);
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::copy(&page, keep.join("report.html")).unwrap();
        let _ = std::fs::copy(&shot, keep.join("shot.png"));
        std::fs::write(
            keep.join("report.md"),
            restbench_report::markdown::report(&r),
        )
        .unwrap();
        std::fs::write(keep.join("dom.html"), &dom).unwrap();
    }

    // The screenshot: a PNG, and far larger than a blank page compresses to.
    let png = std::fs::read(&shot).expect("chromium wrote the screenshot");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert!(
        png.len() > 100 * 1024,
        "the screenshot is {} bytes: the page looks blank",
        png.len()
    );

    // The DOM after scripts ran: every chart drew an SVG, every table is there, no errors.
    let html_tag = &dom[..dom.find("<head").expect("a head")];
    assert!(
        html_tag.contains("data-ready=\"1\""),
        "the load hook did not run: {html_tag}\n{dom_err}"
    );
    assert!(
        !html_tag.contains("data-errors"),
        "the page raised errors: {html_tag}"
    );
    let (measured, all) = group_counts(&r);
    let figures: Vec<&str> = dom.split("<figure class=\"chart\"").skip(1).collect();
    assert_eq!(figures.len(), 5 * measured + 1);
    let lt: Vec<&&str> = figures
        .iter()
        .filter(|f| f.starts_with(" data-chart=\"latency-throughput\""))
        .collect();
    assert_eq!(lt.len(), 1, "the latency–throughput chart");
    assert!(lt[0].contains("data-percentile=\"p99\"") && lt[0].contains("generator-bound"));
    assert_eq!(
        dom.matches("data-chart=\"timeline\"").count(),
        measured,
        "rate and p99 over time for every group"
    );
    for f in &figures {
        let body = &f[..f.find("</figure>").expect("figure closes")];
        assert!(body.contains("<svg"), "a chart without an SVG: {body:.200}");
        assert!(body.contains("<rect") || body.contains("class=\"curve\""));
    }
    assert_eq!(dom.matches("<table class=\"cells\"").count(), all);
    assert_eq!(dom.matches("<table class=\"ratios\"").count(), 3);
    assert!(!dom.contains("<script>alert"));
    check_conformance(&dom, &r);
    for err in [&shot_err, &dom_err] {
        for line in err.lines() {
            assert!(
                !(line.contains("Uncaught") || line.contains(":CONSOLE") && line.contains("ERROR")),
                "page error: {line}"
            );
        }
    }
}
