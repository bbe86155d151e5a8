//! restbench's exporters: the same results as terminal text, Markdown and HTML.
//!
//! Everything here is a pure function of the model's documents, so a report can be rendered again
//! from `results.json` at any time (`restbench report DIR`). What is written to disk is the
//! model's: the comparisons this crate computes are `restbench_model::documents::comparison`
//! documents.
//!
//! The modules form layers, each using only those above it:
//! - leaves: [`escape`], [`units`], [`noise`], [`cells`], [`vocabulary`], [`document`],
//!   [`mod@conformance`] (its words, and the rule that ranks nonconformant cells apart);
//! - computing (data in, data out, no markup): [`mod@compare`], [`load_compare`],
//!   [`tfb_ratios`] (`study tfb`'s tables: ours and Round 23's per TechEmpower test type, as
//!   ratios to one baseline, with Kendall's tau-b and the reversals),
//!   [`study_ratios`] (a study's ratio tables: published and measured figures as ratios to its
//!   baseline; the A/B ratios are the model's `statistics::ab_ratios`), [`open_loop`], [`timeline`], [`rankings`] (a group's rounds: rankings with ties, the
//!   efficiency ranking, intervals, rounds needed, unsettled ratios, contended cells),
//!   [`profiles`] (the profiled cells by workload), [`profile_pairs`] (two cells' profiles
//!   compared per request: `run --explain`'s neighbours and a study's reversals, the sentence
//!   drawn from their figures, the per-request differential stacks, a JIT still compiling);
//! - plain lines, said alike by text and Markdown: [`lines`] (a comparison's heading, rows and
//!   verdicts) and [`capacity_text`] (a capacity search, and a comparison's open-loop lines);
//! - rendering, three siblings that never import each other: [`text`] (wrk-style load report,
//!   the fitted cell table, comparisons, conformance; aligned by one [`text::TextTable`]),
//!   [`markdown`] (report.md with its study and conformance sections, comparisons), [`html`]
//!   (report.html, its SVG charts drawn on [`html::svg::Axes`], its conformance section);
//! - exporting: [`export`] (`--export-json`, `--export-csv`, `--export-markdown`, hyperfine's
//!   formats over one column table; the Markdown one is [`export::markdown_table`], apart from
//!   report.md's [`markdown`]), over the renderers; the only module that writes files, and only
//!   those it was given.
//!
//! Tests beside the code: `snapshot_tests` (the text and Markdown outputs pinned by insta) and
//! `hostile_text_tests` (hostile strings in every document field, through every output kind).

pub mod capacity_text;
pub mod cells;
pub mod compare;
pub mod conformance;
pub mod document;
pub mod escape;
pub mod export;
pub mod html;
pub mod lines;
pub mod load_compare;
pub mod markdown;
pub mod noise;
pub mod open_loop;
pub mod profile_pairs;
pub mod profiles;
pub mod rankings;
pub mod study_ratios;
pub mod text;
pub mod tfb_ratios;
pub mod timeline;
pub mod units;
pub mod vocabulary;

pub use cells::{CellLabel, cell_labels, first_line, per_cpu_second, per_mb};
pub use compare::{Comparison, compare};
pub use document::DocumentKind;
pub use load_compare::{LoadComparison, compare_loads};

#[cfg(test)]
mod hostile_text_tests;
#[cfg(test)]
mod snapshot_tests;

#[cfg(test)]
pub(crate) mod test_support {
    use restbench_model::{
        Cell, CellSubject, ErrorCounts, LatencySummary, LoadResult, LoadSettings, RpsStats,
    };

    /// A small load result: 2,000 requests in 1 s, p50 442 µs, p99 1.83 ms.
    pub fn load_result() -> LoadResult {
        LoadResult {
            schema_version: <LoadResult as restbench_model::Document>::SCHEMA_VERSION,
            restbench_version: "0".into(),
            settings: LoadSettings {
                url: "http://127.0.0.1:8080/".into(),
                method: "GET".into(),
                connections: 10,
                threads: 2,
                duration_s: Some(1.0),
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
            sent: 2_000,
            requests: 2_000,
            in_flight: 0,
            duration_s: 1.0,
            rps: 2_000.0,
            bytes: 200_000,
            bytes_per_s: 200_000.0,
            connections_opened: 10,
            latency_us: LatencySummary {
                min: 100,
                p50: 442,
                p75: 600,
                p90: 900,
                p99: 1_830,
                p999: 3_000,
                max: 4_000,
                mean: 500.0,
                stdev: 200.0,
            },
            uncorrected_latency_us: None,
            errors: ErrorCounts::default(),
            status_counts: [("200".to_string(), 2_000)].into_iter().collect(),
            histogram: String::new(),
            uncorrected_histogram: None,
            timeseries: vec![],
            thread_rps: Default::default(),
            loadgen_cpu: Default::default(),
            max_schedule_lag_us: None,
            capacity: None,
            tls_handshake_us: None,
            connect_us: None,
            overload: None,
            tls_error: None,
            goaways: 0,
            pacing: None,
            script: None,
            interrupted: false,
            interrupted_after_s: None,
            started_at_unix_ms: None,
            shard: None,
            shards: Vec::new(),
        }
    }

    /// A repeat (one round's slice) at `rps`, with the server's CPU at `cores`.
    pub fn repeat(round: u32, rps: f64, cores: f64) -> restbench_model::RepeatResult {
        restbench_model::RepeatResult {
            rps,
            requests: (rps * 2.0) as u64,
            duration_s: 2.0,
            latency_us: LatencySummary::default(),
            errors: ErrorCounts::default(),
            server_cpu_cores: cores,
            loadgen_cpu_cores: 0.5,
            timeseries: Vec::new(),
            round: Some(round),
            saturation: Some(restbench_model::Saturation::Server),
        }
    }

    /// A cell measured in rounds: one repeat per value, its median and intervals from them.
    pub fn rounds_cell(subject: &str, workload: &str, scenario: &str, rps: &[f64]) -> Cell {
        use restbench_model::statistics::interval::log_interval;
        let mut c = cell(subject, workload, scenario, 0.0);
        c.repeats = rps
            .iter()
            .enumerate()
            .map(|(i, v)| repeat(i as u32, *v, 0.95))
            .collect();
        let mut sorted = rps.to_vec();
        sorted.sort_by(f64::total_cmp);
        c.rps.median = sorted[sorted.len() / 2];
        c.rps.min = sorted[0];
        c.rps.max = sorted[sorted.len() - 1];
        c.rps.ci95 = None;
        let mean = rps.iter().sum::<f64>() / rps.len() as f64;
        let var = rps.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (rps.len() as f64 - 1.0);
        c.rps.cv = if rps.len() > 1 {
            var.sqrt() / mean
        } else {
            0.0
        };
        c.server.cpu_cores = 0.95;
        c.server.cpu_us_per_req = 0.95e6 / c.rps.median;
        c.intervals = log_interval(rps).map(|i| restbench_model::CellIntervals {
            rps: i,
            p99_us: None,
            cpu_us_per_req: log_interval(&rps.iter().map(|v| 0.95e6 / v).collect::<Vec<_>>()),
            rounds: rps.len() as u32,
            contended_rounds: 0,
        });
        c
    }

    /// A measured cell with a tight confidence interval (±0.5 %).
    pub fn cell(subject: &str, workload: &str, scenario: &str, rps: f64) -> Cell {
        let who = CellSubject {
            id: subject.into(),
            language: "x".into(),
            framework: subject.into(),
            framework_version: "1".into(),
        };
        let workload = workload.parse().expect("a workload name");
        let scenario = scenario.parse().expect("a scenario name");
        Cell {
            rps: RpsStats {
                median: rps,
                min: rps * 0.99,
                max: rps * 1.01,
                cv: 0.005,
                ci95: Some([rps * 0.995, rps * 1.005]),
            },
            requests: 1000,
            ..Cell::new(&who, workload, scenario)
        }
    }
}
