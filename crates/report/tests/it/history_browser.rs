//! The `history show` timeline in a real browser: headless Chromium renders six runs with a
//! change of kernel between them; the page raises no error, draws a chart per measure with a
//! point per run and one machine-change line, and the screenshot is not blank. `#[ignore]`d with
//! the reason, as the report's browser test is; RESTBENCH_CHROMIUM overrides the browser path,
//! RESTBENCH_HISTORY_KEEP=DIR keeps history.html and shot.png there.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use restbench_model::documents::history::{HistoryPoint, MachineFacts, StoredFigure};
use restbench_model::statistics::ab_ratios::Measure;

fn points() -> Vec<HistoryPoint> {
    (1..=6u32)
        .map(|day| {
            let k = 1.0 + 0.01 * f64::from(day % 3);
            let figures = Measure::ALL
                .iter()
                .map(|&measure| {
                    let value = match measure {
                        Measure::Rps => 50_000.0 * k,
                        Measure::P50 => 1_200.0 / k,
                        Measure::P99 => 3_500.0 / k,
                        Measure::CpuUsPerReq => 19.0 / k,
                        Measure::Rss => 12e6,
                    };
                    let spread = (measure != Measure::Rss).then_some(0.03 * value);
                    StoredFigure {
                        measure,
                        value,
                        low: spread.map(|s| value - s),
                        high: spread.map(|s| value + s),
                    }
                })
                .collect();
            HistoryPoint {
                run: format!("run{day}"),
                started_at: format!("2026-03-{day:02}T10:00:00Z"),
                subject: "rust-hyper".into(),
                revision: Some(format!("{day:07x}")),
                source_hash: String::new(),
                workload: "plaintext".into(),
                scenario: "single-thread".into(),
                protocol: "h1".into(),
                machine: MachineFacts {
                    cpu_model: "Test CPU".into(),
                    cores: 2,
                    kernel: if day <= 3 { "6.1" } else { "6.8" }.into(),
                    backend: "cgroup-v2".into(),
                },
                restbench_version: "0.1.0".into(),
                duet: false,
                figures,
            }
        })
        .collect()
}

fn run_bounded(browser: &PathBuf, args: &[String]) -> String {
    let mut child = Command::new(browser)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut out, &mut s);
        s
    });
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium failed: {status}");
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    reader.join().unwrap()
}

#[test]
#[ignore = "slow: starts headless Chromium; cargo test -- --include-ignored runs it (CI does)"]
fn the_timeline_renders_in_headless_chromium() {
    let browser = std::env::var_os("RESTBENCH_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        browser.exists(),
        "chromium is missing: install it with `apt-get install -y chromium` (or set RESTBENCH_CHROMIUM)"
    );
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("history.html");
    let html = restbench_report::html::history::page(
        &points(),
        Some("https://example.invalid/commit/{rev}"),
    );
    std::fs::write(&page, html).unwrap();
    let shot = dir.path().join("shot.png");
    let common = |profile: &str| -> Vec<String> {
        vec![
            "--headless".into(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--no-first-run".into(),
            format!("--user-data-dir={}", dir.path().join(profile).display()),
        ]
    };
    let url = format!("file://{}", page.display());
    let mut args = common("shot");
    args.extend([
        format!("--screenshot={}", shot.display()),
        "--window-size=1000,2000".into(),
        url.clone(),
    ]);
    run_bounded(&browser, &args);
    let mut args = common("dom");
    args.extend([
        "--virtual-time-budget=2000".into(),
        "--dump-dom".into(),
        url,
    ]);
    let dom = run_bounded(&browser, &args);
    if let Some(keep) = std::env::var_os("RESTBENCH_HISTORY_KEEP") {
        let keep = PathBuf::from(keep);
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::copy(&page, keep.join("history.html")).unwrap();
        let _ = std::fs::copy(&shot, keep.join("shot.png"));
    }
    let png = std::fs::read(&shot).expect("chromium wrote the screenshot");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert!(
        png.len() > 20 * 1024,
        "the screenshot is {} bytes: blank?",
        png.len()
    );
    let head = &dom[..dom.find("<head").expect("a head")];
    assert!(
        head.contains("data-ready=\"1\""),
        "the load hook did not run: {head}"
    );
    assert!(
        !head.contains("data-errors"),
        "the page raised errors: {head}"
    );
    assert_eq!(
        dom.matches("data-chart=\"history\"").count(),
        5,
        "a chart per measure"
    );
    assert_eq!(
        dom.matches("data-point").count(),
        5 * 6,
        "a point per run and measure"
    );
    assert_eq!(
        dom.matches("data-machine-change").count(),
        5,
        "the kernel change, per chart"
    );
    assert!(dom.contains("href=\"https://example.invalid/commit/0000004\""));
}
