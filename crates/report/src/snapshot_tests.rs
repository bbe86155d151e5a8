//! Snapshots of the rendered text and Markdown, hyperfine's way: each renderer's whole output for
//! a fixed document, so a change in any byte shows as a diff to review (`cargo insta review`, or
//! `INSTA_UPDATE=always` and read the diff). Rules worth a name keep their own asserts beside
//! the renderers.

use insta::assert_snapshot;
use restbench_model::{
    BoundBy, Cell, CellStatus, LatencySummary, RunResults, StudyInfo, Versioned,
};

use crate::compare::tests::run;
use crate::open_loop::tests::with_open_loop;
use crate::test_support::{cell, load_result};

/// A load run with every optional line: a rate, HTTP/2, the uncorrected distribution, errors of
/// every kind, TLS handshakes, requests in flight and a lag behind schedule.
fn busy_load() -> restbench_model::LoadResult {
    let mut r = load_result();
    r.settings.rate = Some(2_500.0);
    r.settings.http_version = "2".into();
    r.settings.max_streams = Some(8);
    r.settings.unix_socket = Some("/tmp/s.sock".into());
    r.uncorrected_latency_us = Some(LatencySummary {
        p50: 400,
        p75: 500,
        p90: 700,
        p99: 1_200,
        p999: 2_000,
        ..r.latency_us
    });
    r.thread_rps.mean = 1_000.0;
    r.thread_rps.stdev = 12.5;
    r.thread_rps.max = 1_030.0;
    r.thread_rps.within_stdev_pct = 68.27;
    r.errors.connect = 1;
    r.errors.read = 2;
    r.errors.timeout = 3;
    r.errors.parse = 4;
    r.errors.protocol = 5;
    r.errors.status = 6;
    r.errors.tls = 7;
    r.errors.reset = 8;
    r.goaways = 1;
    r.tls_error = Some("certificate expired".into());
    r.tls_handshake_us = Some(LatencySummary {
        p50: 900,
        p99: 2_500,
        max: 3_100,
        mean: 1_000.0,
        ..Default::default()
    });
    r.in_flight = 3;
    r.sent = 2_040;
    r.max_schedule_lag_us = Some(4_200);
    r.interrupted = true;
    r.interrupted_after_s = Some(0.75);
    r
}

/// The cells of the terminal table: a fast cell with flags, one without variation, a failure
/// with a long reason.
fn table_cells() -> Vec<Cell> {
    let mut a = cell("rust-axum", "plaintext", "single-thread", 120_345.0);
    a.latency_us.p50 = 442;
    a.latency_us.p99 = 1_830;
    a.server.cpu_cores = 0.98;
    a.server.cpu_us_per_req = 8.1;
    a.server.rss_peak_bytes = 12 << 20;
    a.flags = vec!["client_bound".into()];
    let mut b = cell(
        "java-spring-boot-webflux",
        "plaintext",
        "all-cores",
        40_000.0,
    );
    b.rps.cv = 0.0;
    b.latency_us.p50 = 2_100;
    b.latency_us.p99 = 9_700;
    let mut c = cell("node-express-cluster", "plaintext", "all-cores", 0.0);
    c.status = CellStatus::Failed;
    c.reason = Some(
        "build failed: npm ci exited with status 1 after fetching 312 packages from the registry"
            .into(),
    );
    vec![a, b, c]
}

/// A run with two workloads, a failure, an open-loop cell, toolchains and a finding.
fn run_document() -> RunResults {
    let mut cells = table_cells();
    cells.push(with_open_loop("go-nethttp", 30_000.0, BoundBy::Server));
    let mut echo = cell("node-http", "echo", "all-cores", 20_000.0);
    echo.findings.push(restbench_model::Finding {
        level: restbench_model::FindingLevel::Warn,
        check: "content-type".into(),
        message: "text/plain without a charset".into(),
    });
    cells.push(echo);
    let mut r = run(cells);
    r.environment.kernel = "6.1.0".into();
    r.environment.restbench_version = "0.1.0".into();
    r.environment.backend_reason = "cgroup v2 delegated".into();
    r.environment
        .toolchains
        .insert("rustc".into(), "1.88.0".into());
    r.protocol.connections = 64;
    r.protocol.threads = 2;
    r.protocol.duration_s = Some(10.0);
    r.protocol.repeats = 3;
    r.protocol.warmup_s = 2.0;
    r.protocol.http_version = "1.1".into();
    r.protocol.keepalive = true;
    r.protocol.timeout_s = 2.0;
    r.protocol.db_pool_total = 100;
    r.noisy_machine = Some("load average 3.2 before the run".into());
    r
}

/// Study A's cells: go overtakes node, which the study table marks as reversed.
fn study_document() -> RunResults {
    let with = |mut c: Cell, k: &str, v: &str| {
        c.settings.insert(k.into(), v.into());
        c
    };
    let mut r = run(vec![
        cell("node-http", "echo", "single-thread", 10_000.0),
        with(
            cell("go-nethttp", "echo", "single-thread", 15_000.0),
            "GOMAXPROCS",
            "1",
        ),
        with(
            cell("go-nethttp-dynamic", "echo", "single-thread", 9_000.0),
            "GOMAXPROCS",
            "1",
        ),
        cell("rust-axum", "echo", "single-thread", 40_000.0),
        cell("go-nethttp", "echo", "one-cpu", 600.0),
    ]);
    r.kind = "study a".into();
    r.study = StudyInfo::new("a", true, "10 s instead of 60 s");
    r
}

fn json<T: serde::Serialize + restbench_model::Document>(document: T) -> String {
    serde_json::to_string_pretty(&Versioned::new(document)).expect("a comparison serializes")
}

#[test]
fn load_report() {
    let plain = load_result();
    assert_snapshot!("load_report_plain", crate::text::load_report(&plain, false));
    assert_snapshot!(
        "load_report_distribution",
        crate::text::load_report(&plain, true)
    );
    assert_snapshot!(
        "load_report_busy",
        crate::text::load_report(&busy_load(), true)
    );
}

#[test]
fn cell_table() {
    let cells = table_cells();
    let refs: Vec<&Cell> = cells.iter().collect();
    for width in [40, 80, 100, 120, 200] {
        assert_snapshot!(
            format!("cell_table_{width}"),
            crate::text::cell_table(&refs, width)
        );
    }
    assert_snapshot!("cell_table_markdown", crate::markdown::cell_table(&refs));
}

#[test]
fn report_md() {
    assert_snapshot!("report_md", crate::markdown::report(&run_document()));
    assert_snapshot!(
        "report_md_study",
        crate::markdown::report(&study_document())
    );
    let unknown = RunResults {
        study: Some(StudyInfo {
            id: "zz".into(),
            title: "?".into(),
            seed: "999".into(),
            shortened: false,
            note: String::new(),
        }),
        ..run(vec![])
    };
    assert_snapshot!("report_md_unknown_study", crate::markdown::report(&unknown));
}

#[test]
fn run_comparison() {
    let c = crate::compare::tests::sample();
    assert_snapshot!("comparison_text", crate::text::comparison(&c));
    assert_snapshot!("comparison_markdown", crate::markdown::comparison(&c));
    assert_snapshot!("comparison_json", json(&c));
    let open = crate::compare::compare(
        &run(vec![
            with_open_loop("x", 10_000.0, BoundBy::Server),
            with_open_loop("y", 30_000.0, BoundBy::Server),
        ]),
        &run(vec![
            with_open_loop("x", 12_000.0, BoundBy::Server),
            with_open_loop("y", 40_000.0, BoundBy::Generator),
        ]),
    );
    assert_snapshot!("comparison_open_loop_text", crate::text::comparison(&open));
    assert_snapshot!(
        "comparison_open_loop_markdown",
        crate::markdown::comparison(&open)
    );
    assert_snapshot!("comparison_open_loop_json", json(&open));
}

#[test]
fn load_comparison() {
    let c = crate::load_compare::tests::sample();
    assert_snapshot!("load_comparison_text", crate::text::load_comparison(&c));
    assert_snapshot!(
        "load_comparison_markdown",
        crate::markdown::load_comparison(&c)
    );
    assert_snapshot!("load_comparison_json", json(&c));
}

/// The SVG charts, drawn from fixed series: the axes, grids and ticks of every kind of chart.
#[test]
fn svg_charts() {
    use crate::html::svg::{Bar, BarChart, Curve, RateCurve, bar_chart, latency_chart};
    let bars = [
        Bar {
            label: "rust-axum".into(),
            value: 120_000.0,
            whisker: Some([118_000.0, 121_000.0]),
            marker: None,
            color: "#4e79a7".into(),
            text: "120,000".into(),
            title: "rust-axum".into(),
        },
        Bar {
            label: "a-subject-with-a-name-longer-than-any-label".into(),
            value: 40_000.0,
            whisker: None,
            marker: Some(60_000.0),
            color: "#f28e2b".into(),
            text: "40,000".into(),
            title: "long".into(),
        },
    ];
    let bar = bar_chart(&BarChart {
        bars: &bars,
        tick_label: &crate::units::si,
        axis_title: "req/s",
        marker_title: "the CPU limit",
    });
    assert_snapshot!("svg_bar_chart", bar);
    let latency = latency_chart(
        &[
            Curve {
                label: "a".into(),
                style: 0,
                points: vec![(0.5, 100.0), (0.99, 1_000.0), (0.999, 5_000.0)],
            },
            Curve {
                label: "b".into(),
                style: 11,
                points: vec![(0.5, 300.0), (0.9, 700.0), (0.99, 2_000.0)],
            },
        ],
        300.0,
    );
    assert_snapshot!("svg_latency_chart", latency);
    let rate = crate::html::svg::rate_latency_chart(
        &[RateCurve {
            label: "x".into(),
            style: 1,
            points: vec![
                (1_000.0, 100.0, 400.0, true),
                (2_000.0, 300.0, 9_000.0, false),
            ],
        }],
        &[("p99".into(), 5_000.0)],
        Some(1_800.0),
        300.0,
    );
    assert_snapshot!("svg_rate_latency_chart", rate);
    let mut c = cell("a", "plaintext", "all-cores", 1000.0);
    c.repeats = (0..2)
        .map(|r| restbench_model::RepeatResult {
            rps: 1000.0,
            requests: 3000,
            duration_s: 3.0,
            latency_us: Default::default(),
            errors: Default::default(),
            server_cpu_cores: 1.0,
            loadgen_cpu_cores: 1.0,
            round: None,
            saturation: None,
            timeseries: (0..3)
                .map(|i| restbench_model::SecondSample {
                    second: i,
                    requests: 900 + u64::from(i + r) * 50,
                    errors: 0,
                    p50_us: Some(100),
                    p99_us: Some(900 + u64::from(i) * 100),
                })
                .collect(),
        })
        .collect();
    let labels = crate::cells::cell_labels(&[&c]);
    let panels = crate::html::timeline::panels(&[(&c, &labels[0])], &|_| 2);
    assert_snapshot!("svg_timeline", panels.expect("the cell has seconds"));
}

/// One subject that passes (with a warning) and one that reads a request in a single read and
/// ignores `Connection: close`; the seen texts carry markup that every renderer must escape.
fn conformance_document() -> restbench_model::ConformanceReport {
    use restbench_model::{CaseLevel, CaseResult, CaseVerdict, SubjectConformance};
    let case = |case: &str, level, verdict, seen: &str| CaseResult {
        case: case.into(),
        level,
        verdict,
        seen: seen.into(),
    };
    restbench_model::ConformanceReport::new(vec![
        SubjectConformance {
            subject: "rust-axum".into(),
            build: "3f2a9c1e".into(),
            cases: vec![
                case(
                    "split-every-offset/plaintext",
                    CaseLevel::Fail,
                    CaseVerdict::Pass,
                    "answered at every one of 38 offsets",
                ),
                case(
                    "connection-close",
                    CaseLevel::Fail,
                    CaseVerdict::Pass,
                    "answered, then closed",
                ),
                case(
                    "unknown-method",
                    CaseLevel::Warn,
                    CaseVerdict::Warn,
                    "404 where 405 fits",
                ),
            ],
            error: None,
        },
        SubjectConformance {
            subject: "cheat-http".into(),
            build: "77b0d4aa".into(),
            cases: vec![
                case(
                    "split-every-offset/plaintext",
                    CaseLevel::Fail,
                    CaseVerdict::Fail,
                    "no answer within 2 s after the split at byte 1 (\"G\" | \"ET / HTTP/1.1\")",
                ),
                case(
                    "connection-close",
                    CaseLevel::Fail,
                    CaseVerdict::Fail,
                    "answered but kept the connection open for 2 s",
                ),
                case(
                    "header-16k",
                    CaseLevel::Warn,
                    CaseVerdict::Warn,
                    "answered 400 <not 431> | closed",
                ),
                case(
                    "head-plaintext",
                    CaseLevel::Fail,
                    CaseVerdict::Pass,
                    "no body",
                ),
            ],
            error: None,
        },
    ])
}

#[test]
fn conformance() {
    let report = conformance_document();
    for width in [60, 100, 160] {
        assert_snapshot!(
            format!("conformance_text_{width}"),
            crate::text::conformance(&report, width)
        );
    }
    assert_snapshot!(
        "conformance_markdown",
        crate::markdown::conformance(&report)
    );
    let mut html = String::new();
    crate::html::conformance::section(&mut html, &report.subjects);
    assert_snapshot!("conformance_html", html.replace("><", ">\n<"));
}

/// A run where the fastest subject is nonconformant: report.md shows it, flagged, after the
/// others, and so does the terminal table, each with the sentence why.
#[test]
fn report_md_conformance() {
    let r = conformance_run();
    assert_snapshot!("report_md_conformance", crate::markdown::report(&r));
    let cells: Vec<&Cell> = r.cells.iter().collect();
    assert_snapshot!(
        "cell_table_nonconformant",
        crate::text::cell_table(&cells, 100)
    );
}

fn conformance_run() -> RunResults {
    let mut cheat = cell("cheat-http", "plaintext", "all-cores", 900_000.0);
    cheat.flags.push("nonconformant".into());
    let mut r = run(vec![
        cheat,
        cell("rust-axum", "plaintext", "all-cores", 300_000.0),
        cell("go-nethttp", "plaintext", "all-cores", 200_000.0),
    ]);
    r.conformance = conformance_document().subjects;
    r
}

#[test]
fn a_nonconformant_subject_is_ranked_after_the_conformant_ones() {
    let r = conformance_run();
    let position = |text: &str, needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle} missing in {text}"))
    };
    let md = crate::markdown::report(&r);
    let table = &md[position(&md, "## plaintext")..];
    assert!(position(table, "| go-nethttp |") < position(table, "| cheat-http |"));
    assert!(position(table, "| rust-axum |") < position(table, "| go-nethttp |"));
    assert!(table.contains("Ranked apart, after the others: cheat-http"));

    let html = crate::html::render(&r);
    let cells = &html[position(&html, "<table class=\"cells\"")..];
    assert!(
        position(cells, "go-nethttp") < position(cells, "cheat-http"),
        "{cells}"
    );
    assert!(html.contains("data-ranked-apart"));
    let chart = &html[position(&html, "data-chart=\"rps\"")..];
    assert!(chart[..position(chart, "</figure>")].contains("⚠ cheat-http"));
    assert!(html.contains("<section id=\"conformance\" data-conformance>"));
    let cheat = &html[position(&html, "<details data-subject=\"cheat-http\"")..];
    assert!(cheat.starts_with("<details data-subject=\"cheat-http\" open>"));
    assert!(cheat.contains("&lt;not 431&gt;") && !cheat.contains("<not 431>"));

    let extras = crate::study_ratios::tables(
        &restbench_model::published_study("a").expect("study a"),
        &[
            {
                let mut c = cell("cheat-http", "echo", "single-thread", 90_000.0);
                c.flags.push("nonconformant".into());
                c
            },
            cell("rust-axum", "echo", "single-thread", 40_000.0),
        ],
    );
    let rows = &extras[0].rows;
    let at = |s: &str| {
        rows.iter()
            .position(|r| r.subject.as_deref() == Some(s))
            .unwrap_or_else(|| panic!("{s} missing"))
    };
    assert!(at("rust-axum") < at("cheat-http"));
    assert!(crate::study_ratios::ranked_apart_note(&extras[0]).is_some());
}

/// A run measured in rounds: groups, ties, a floor, a contended cell, unsettled ratios, one
/// group of a single round; its report.md, its terminal rankings at 80 columns, and a
/// comparison with itself made slower in one cell.
#[test]
fn rounds_reports() {
    let r = crate::rankings::tests::rounds_run();
    assert_snapshot!("report_md_rounds", crate::markdown::report(&r));
    assert_snapshot!("rankings_text_80", crate::text::rankings(&r, 80));
    let cells: Vec<&Cell> = r.cells.iter().collect();
    for width in [80, 120] {
        let table = crate::text::cell_table(&cells, width);
        assert!(table.lines().all(|l| l.chars().count() <= width), "{table}");
        assert_snapshot!(format!("cell_table_rounds_{width}"), table);
    }
    let mut b = r.clone();
    for rep in &mut b.cells[2].repeats {
        rep.rps *= 0.5;
    }
    b.cells[2].rps.median *= 0.5;
    b.cells[2].server.cpu_us_per_req *= 2.0;
    let c = crate::compare::compare(&r, &b);
    assert_snapshot!("comparison_rounds_text", crate::text::comparison(&c));
    assert_snapshot!(
        "comparison_rounds_markdown",
        crate::markdown::comparison(&c)
    );
    let html = crate::html::render(&r);
    assert_eq!(html.matches("<table class=\"ranking\">").count(), 2);
    assert!(html.contains("<b>=1</b>") && html.contains("data-not-ranked"));
    assert!(html.contains("seed 42"), "the seed of the orders");
    assert!(html.contains("title=\"95 % interval over 4 rounds\""));
}
