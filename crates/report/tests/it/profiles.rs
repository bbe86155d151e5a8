//! Profiles in the reports: a profile never changes a ranked figure, report.md gets a split
//! table per workload, and report.html's flame graphs (inferno's SVG, in iframes of their own)
//! render with their script running in headless Chromium.

use std::time::Duration;

use restbench_model::{CellProfile, CellStatus, CpuSplit, RunResults, TopSymbol, encode_folded};

use super::browser::{chromium, run_bounded, sample};

const FOLDED: &str = "server;main;serve;handle_request 40\n\
                      server;main;serve;write_answer;__libc_write;entry_SYSCALL_64_[k];tcp_sendmsg_[k] 50\n\
                      server;main;JS:*handler /srv/server.js:3:1_[j] 7\n\
                      server;main;[unknown] 3\n";

fn profile(slice_rps: f64) -> CellProfile {
    CellProfile {
        rps: slice_rps,
        duration_s: 5.0,
        samples: 100,
        recorder: "perf record -e cpu-clock --call-graph fp -F 499 over the server's 1 pids".into(),
        split: CpuSplit {
            kernel_network: 0.5,
            own: 0.47,
            unknown: 0.03,
            ..CpuSplit::default()
        },
        top_symbols: vec![TopSymbol {
            symbol: "tcp_sendmsg".into(),
            part: "kernel network".into(),
            share: 0.5,
        }],
        syscalls_per_request: Some(2.5),
        voluntary_switches_per_request: Some(0.01),
        involuntary_switches_per_request: Some(0.002),
        minor_faults_per_request: Some(0.0),
        major_faults_per_request: Some(0.0),
        folded_gz: encode_folded(FOLDED),
        notes: vec!["a <note> to escape".into()],
    }
}

/// The sample run with every measured cell profiled at half its measured rate.
fn profiled() -> RunResults {
    let mut r = sample();
    for c in r.cells.iter_mut().filter(|c| c.status == CellStatus::Ok) {
        c.profile = Some(profile(c.rps.median / 2.0));
    }
    r
}

fn cells(r: &RunResults) -> Vec<&restbench_model::Cell> {
    r.cells.iter().collect()
}

#[test]
fn a_profile_changes_no_ranked_figure() {
    let (plain, with) = (sample(), profiled());
    assert_eq!(
        restbench_report::markdown::cell_table(&cells(&plain)),
        restbench_report::markdown::cell_table(&cells(&with)),
        "the slice's own rate is not the cell's"
    );
    assert_eq!(
        restbench_report::text::cell_table(&cells(&plain), 120),
        restbench_report::text::cell_table(&cells(&with), 120)
    );
    let md = restbench_report::markdown::report(&with);
    assert!(!restbench_report::markdown::report(&plain).contains("## Profiles"));
    let section = &md[md.find("## Profiles").expect("a profiles section")..];
    assert!(section.contains("| kernel net |"));
    assert!(section.contains("50.0%") && section.contains("2.50"));
    assert!(
        section.contains("(0.50×)"),
        "the slice's rate beside the measured one"
    );
}

#[test]
fn report_html_draws_a_flame_graph_and_split_per_profiled_cell() {
    let r = profiled();
    let html = restbench_report::html::render(&r);
    let profiled = r.cells.iter().filter(|c| c.profile.is_some()).count();
    assert!(html.contains("<section id=\"profiles\" data-profiles>"));
    // One graph per profiled cell, and one per reversal the study compares profile to profile.
    assert_eq!(
        html.matches("<iframe class=\"flame\" data-flame").count(),
        profiled + html.matches("data-profile-pair>").count()
    );
    assert!(
        html.matches("data-profile-pair>").count() > 0,
        "the sample study's reversal is compared profile to profile"
    );
    let md = restbench_report::markdown::report(&r);
    assert!(
        md.contains(" beside ") && md.contains("| system calls |"),
        "{md}"
    );
    assert!(html.contains("data-chart=\"cpu-split\""));
    assert!(html.contains("a &lt;note&gt; to escape"));
    assert!(
        !restbench_report::html::render(&sample()).contains("data-profiles"),
        "no section without profiles"
    );
}

/// The first iframe's document, unescaped from its srcdoc.
fn first_srcdoc(html: &str) -> String {
    let at = html.find("srcdoc=\"").expect("a srcdoc") + "srcdoc=\"".len();
    let escaped = &html[at..at + html[at..].find('"').unwrap()];
    escaped
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[test]
#[ignore = "slow: starts headless Chromium; cargo test -- --include-ignored runs it (CI does)"]
fn flame_graphs_run_their_script_in_headless_chromium() {
    let browser = chromium().expect("chromium (apt-get install -y chromium)");
    let dir = tempfile::tempdir().unwrap();
    let html = restbench_report::html::render(&profiled());
    let page = dir.path().join("report.html");
    std::fs::write(&page, &html).unwrap();
    let frame = dir.path().join("frame.html");
    std::fs::write(&frame, first_srcdoc(&html)).unwrap();
    let dump = |url: &std::path::Path, profile: &str| {
        let args = vec![
            "--headless".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--no-first-run".into(),
            format!("--user-data-dir={}", dir.path().join(profile).display()),
            "--virtual-time-budget=2000".into(),
            "--dump-dom".into(),
            format!("file://{}", url.display()),
        ];
        run_bounded(&browser, &args, Duration::from_secs(60)).0
    };
    let dom = dump(&page, "p1");
    let html_tag = &dom[..dom.find("<head").expect("a head")];
    assert!(html_tag.contains("data-ready=\"1\""), "{html_tag}");
    assert!(
        !html_tag.contains("data-errors"),
        "the page raised errors: {html_tag}"
    );
    assert!(dom.contains("data-flame"));
    // Inside the iframe, inferno's init() ran: it makes the SVG fluid (drops `width`) and
    // its frames carry their names for search.
    let inner = dump(&frame, "p2");
    let svg_tag = &inner[inner.find("<svg").expect("the flame graph")..];
    let svg_tag = &svg_tag[..svg_tag.find('>').unwrap()];
    assert!(
        !svg_tag.contains(" width="),
        "inferno's script did not run: {svg_tag}"
    );
    assert!(inner.contains("handle_request") && inner.contains("[unknown]"));
    assert!(
        inner.contains("id=\"search\""),
        "the search button is there"
    );
}

#[test]
fn explain_compares_each_rankings_neighbours_in_both_reports_and_only_when_asked() {
    let mut with = profiled();
    // Only when the run asked for it (`run --explain`).
    assert!(!restbench_report::markdown::report(&with).contains("## Profiles compared"));
    with.protocol.explain = true;
    // Make one side of each group cost more system calls, so the sentence has a figure.
    for (i, c) in with.cells.iter_mut().enumerate() {
        if let Some(p) = c.profile.as_mut() {
            p.syscalls_per_request = Some(2.5 + i as f64 * 3.0);
        }
    }
    let pairs = restbench_report::profile_pairs::neighbour_pairs(&with);
    assert!(
        !pairs.is_empty(),
        "the sample has a group with two profiled cells"
    );
    let md = restbench_report::markdown::report(&with);
    let section = &md[md
        .find("## Profiles compared")
        .expect("the compared section")..];
    let (a, b) = pairs[0].1[0];
    let sentence = restbench_report::profile_pairs::pair_of(a, b)
        .expect("both profiled")
        .paired
        .sentence();
    assert!(section.contains(&sentence), "{section}");
    assert!(sentence.contains("system calls per request"), "{sentence}");
    assert!(section.contains("| system calls |"));
    assert!(
        section.contains("perf's overhead"),
        "the slice's rate against the measured one is stated as perf's overhead"
    );
    let html = restbench_report::html::render(&with);
    assert!(html.contains("data-profiles-compared") && html.contains("data-profile-pair"));
    assert!(
        !md.contains("JIT still compiling"),
        "no JIT in the sample's stacks"
    );
    // A cell profiled while C2 compiled is flagged, in its own panel and beside its pair.
    let compiling = "java;C2 CompilerThre;Compile::Compile;PhaseChaitin::Register_Allocate 30\n\
                     java;Thread::run;Handler::handle 70\n";
    for c in with.cells.iter_mut() {
        if let Some(p) = c.profile.as_mut() {
            p.folded_gz = encode_folded(compiling);
        }
    }
    let md = restbench_report::markdown::report(&with);
    assert!(
        md.contains("JIT still compiling: 30 % of the samples"),
        "{md}"
    );
    assert!(restbench_report::html::render(&with).contains("data-jit-compiling"));
    assert!(
        html.contains("samples per million requests"),
        "a differential flame graph per request"
    );
}
