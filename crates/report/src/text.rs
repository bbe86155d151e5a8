//! Terminal output: a load run in wrk's shape so the two can be set side by side, and a comparison
//! of two runs with aligned columns. Also the plain lines a comparison shares with its Markdown.

use std::fmt::Write;

use restbench_model::histogram;
use restbench_model::{Cell, CellStatus, LoadResult};

use crate::cells::{cell_labels, cv_text, first_line, per_cpu_second, per_mb, status_word};
use crate::compare::{Comparison, RunLabel, Verdict};
use crate::load_compare::{LoadComparison, LoadLabel, LoadMetric, Unit};
use crate::units::{bytes, bytes_short, compact, count, micros, micros_short, ratio, thousands};

/// wrk's report: header, thread stats, optional distribution, totals, errors.
pub fn load_report(r: &LoadResult, distribution: bool) -> String {
    let mut o = String::new();
    let s = &r.settings;
    let what = match (s.duration_s, s.requests) {
        (Some(d), _) => format!("{}s test", trim_float(d)),
        (None, Some(n)) => format!("{n}-request test"),
        _ => "test".into(),
    };
    let _ = writeln!(o, "Running {what} @ {}", s.url);
    let mut shape = format!("  {} threads and {} connections", s.threads, s.connections);
    if let Some(rate) = s.rate {
        let _ = write!(shape, ", {} requests/sec (open loop)", trim_float(rate));
    }
    if s.pipeline > 1 {
        let _ = write!(shape, ", pipeline {}", s.pipeline);
    }
    if !s.keepalive {
        let _ = write!(shape, ", a new connection per request");
    }
    if s.http_version == "1.0" {
        let _ = write!(shape, ", HTTP/1.0");
    }
    if s.http_version == "2" {
        let _ = write!(
            shape,
            ", HTTP/2 with {} streams each",
            s.max_streams.unwrap_or(1)
        );
    }
    if let Some(path) = &s.unix_socket {
        let _ = write!(shape, ", over unix:{path}");
    }
    let _ = writeln!(o, "{shape}");
    if s.rate.is_none() {
        let _ = writeln!(
            o,
            "  Latency {} (a saturated queue: see --rate or --slo for latency at a given load)",
            crate::vocabulary::closed_loop_latency(s.connections)
        );
    }
    let l = &r.latency_us;
    let within = histogram::decode(&r.histogram)
        .ok()
        .filter(|h| !h.is_empty())
        .map(|h| {
            let lo = (l.mean - l.stdev).max(0.0) as u64;
            let hi = (l.mean + l.stdev) as u64;
            100.0 * h.count_between(lo, hi) as f64 / h.len() as f64
        })
        .unwrap_or(0.0);
    let _ = writeln!(o, "  Thread Stats   Avg      Stdev     Max   +/- Stdev");
    let _ = writeln!(
        o,
        "    Latency {:>9} {:>9} {:>9} {:>8.2}%",
        micros(l.mean),
        micros(l.stdev),
        micros(l.max as f64),
        within
    );
    let t = &r.thread_rps;
    let _ = writeln!(
        o,
        "    Req/Sec {:>9} {:>9} {:>9} {:>8.2}%",
        count(t.mean),
        count(t.stdev),
        count(t.max),
        t.within_stdev_pct
    );
    if distribution {
        let title = if r.uncorrected_latency_us.is_some() {
            "  Latency Distribution (from intended send times, corrected for coordinated omission)"
        } else {
            "  Latency Distribution"
        };
        let _ = writeln!(o, "{title}");
        percentiles(&mut o, l);
        if let Some(u) = &r.uncorrected_latency_us {
            let _ = writeln!(
                o,
                "  Uncorrected Latency Distribution (from actual send times)"
            );
            percentiles(&mut o, u);
        }
    }
    let _ = writeln!(
        o,
        "  {} requests in {:.2}s, {} read",
        r.requests,
        r.duration_s,
        bytes(r.bytes as f64)
    );
    if r.interrupted {
        let _ = writeln!(
            o,
            "  Run interrupted after {} (Ctrl-C): the figures cover the load until then",
            r.interrupted_after_s
                .map_or_else(|| "an unknown time".to_string(), |s| format!("{s:.1} s"))
        );
    }
    let e = &r.errors;
    if e.connect + e.read + e.write + e.timeout > 0 {
        let _ = writeln!(
            o,
            "  Socket errors: connect {}, read {}, write {}, timeout {}",
            e.connect, e.read, e.write, e.timeout
        );
    }
    if e.parse > 0 {
        let _ = writeln!(o, "  Malformed responses: {}", e.parse);
    }
    if e.protocol > 0 {
        let _ = writeln!(o, "  Responses no request asked for: {}", e.protocol);
    }
    if e.status > 0 {
        let _ = writeln!(o, "  Non-2xx or 3xx responses: {}", e.status);
    }
    if e.tls > 0 {
        let reason = r.tls_error.as_deref().unwrap_or("no reason recorded");
        let _ = writeln!(o, "  TLS failures: {} ({reason})", e.tls);
    }
    if e.reset > 0 || r.goaways > 0 {
        let _ = writeln!(
            o,
            "  HTTP/2: {} streams reset by the server, {} GOAWAY received",
            e.reset, r.goaways
        );
    }
    if let Some(h) = &r.tls_handshake_us {
        let _ = writeln!(
            o,
            "  TLS handshakes (new connections, not in latency): avg {}, p50 {}, p99 {}, max {}",
            micros(h.mean),
            micros(h.p50 as f64),
            micros(h.p99 as f64),
            micros(h.max as f64)
        );
    }
    if r.in_flight > 0 || e.unanswered() > 0 {
        let _ = writeln!(
            o,
            "  {} sent = {} answered + {} failed + {} in flight at the end",
            r.sent,
            r.requests,
            e.unanswered(),
            r.in_flight
        );
    }
    if let Some(lag) = r.max_schedule_lag_us
        && lag > 1_000
    {
        let _ = writeln!(
            o,
            "  Fell behind schedule by up to {} (raise -c to keep the rate)",
            micros(lag as f64)
        );
    }
    let _ = writeln!(o, "Requests/sec: {:>10.2}", r.rps);
    let _ = writeln!(o, "Transfer/sec: {:>10}", bytes(r.bytes_per_s));
    o
}

fn percentiles(o: &mut String, l: &restbench_model::LatencySummary) {
    for (label, v) in [
        ("50%", l.p50),
        ("75%", l.p75),
        ("90%", l.p90),
        ("99%", l.p99),
        ("99.9%", l.p999),
    ] {
        let _ = writeln!(o, "  {label:>7} {:>9}", micros(v as f64));
    }
}

fn trim_float(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

/// The width a table gets when the terminal's is unknown (output to a file or a pipe).
pub const DEFAULT_WIDTH: usize = 100;

/// The width to fit a table into: `COLUMNS` when it holds a positive number, else the terminal's
/// (`tty_columns`, from the ioctl, when stdout is a terminal), else [`DEFAULT_WIDTH`].
pub fn table_width(columns_env: Option<&str>, tty_columns: Option<u16>) -> usize {
    columns_env
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|c| *c > 0)
        .or_else(|| tty_columns.filter(|c| *c > 0).map(usize::from))
        .unwrap_or(DEFAULT_WIDTH)
}

/// A column of the terminal's cell table.
struct Column {
    head: &'static str,
    right: bool,
    /// 0: never dropped; higher numbers are dropped first when the table is too wide.
    drop_rank: u8,
    /// Text columns that may be cut (with `…`) down to this width; 0 for columns never cut.
    min_cut: usize,
}

const fn col(head: &'static str, right: bool, drop_rank: u8, min_cut: usize) -> Column {
    Column {
        head,
        right,
        drop_rank,
        min_cut,
    }
}

/// The cell table in display order; `drop_rank` says what goes first when space runs out:
/// efficiency ratios, then µs/req and memory, p50, cv, CPU, then errors (the `errors` flag stays
/// in the notes). Name, workload, scenario, req/s (or the status of a cell not measured), p99 and
/// notes always stay; notes and names are cut instead.
const CELL_COLUMNS: [Column; N] = [
    col("subject", false, 0, 12),
    col("workload", false, 0, 0),
    col("scenario", false, 0, 0),
    col("req/s", true, 0, 0),
    col("cv", true, 6, 0),
    col("p50", true, 7, 0),
    col("p99", true, 0, 0),
    col("errors", true, 4, 0),
    col("CPU", true, 5, 0),
    col("µs/req", true, 8, 0),
    col("RSS peak", true, 8, 0),
    col("req/CPU-s", true, 9, 0),
    col("req/s/MB", true, 10, 0),
    col("notes", false, 0, 12),
];

const N: usize = 14;
const NOTES: usize = N - 1;

/// Widest the notes column starts at before anything is dropped: a failure's first line can be
/// long, and report.md has it in full.
const NOTES_START: usize = 40;
/// Notes are cut to this before the figures of the second rank go (two flags fit).
const NOTES_MIDDLE: usize = 24;

fn cell_values(c: &Cell, label: &str) -> [String; N] {
    let dash = || "–".to_string();
    if c.status != CellStatus::Ok {
        let mut v: [String; N] = std::array::from_fn(|_| dash());
        v[0] = label.to_string();
        v[1] = c.workload.clone();
        v[2] = c.scenario.clone();
        v[3] = status_word(c.status).to_string();
        v[NOTES] = first_line(c.reason.as_deref().unwrap_or(""));
        return v;
    }
    [
        label.to_string(),
        c.workload.clone(),
        c.scenario.clone(),
        thousands(c.rps.median),
        cv_text(c),
        micros_short(c.latency_us.p50 as f64),
        micros_short(c.latency_us.p99 as f64),
        thousands(c.errors.total() as f64),
        if c.server.cpu_cores > 0.0 {
            format!("{:.2}", c.server.cpu_cores)
        } else {
            dash()
        },
        if c.server.cpu_us_per_req > 0.0 {
            format!("{:.1}", c.server.cpu_us_per_req)
        } else {
            dash()
        },
        if c.server.rss_peak_bytes > 0 {
            bytes_short(c.server.rss_peak_bytes as f64)
        } else {
            dash()
        },
        per_cpu_second(c).map_or_else(dash, compact),
        per_mb(c).map_or_else(dash, compact),
        c.flags.join(", "),
    ]
}

/// Cuts `s` to `width` characters, ending in `…` when something was cut.
fn cut(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(width.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// The summary of a run for a terminal: one aligned row per cell, fitted into `width` characters
/// by cutting long notes and names and dropping the least important columns (named under the
/// table; report.md has them all). A table that cannot fit even so keeps its essential columns.
pub fn cell_table(cells: &[&Cell], width: usize) -> String {
    let labels = cell_labels(cells);
    let rows: Vec<[String; N]> = cells
        .iter()
        .zip(&labels)
        .map(|(c, l)| cell_values(c, &l.label))
        .collect();
    let len = |s: &str| s.chars().count();
    let mut widths: Vec<usize> = (0..CELL_COLUMNS.len())
        .map(|i| {
            rows.iter()
                .map(|r| len(&r[i]))
                .chain([len(CELL_COLUMNS[i].head)])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut shown = [true; N];
    // A column nobody fills (no cell has notes) is left out whatever the width.
    if rows.iter().all(|r| r[NOTES].is_empty()) {
        shown[NOTES] = false;
    }
    let total = |widths: &[usize], shown: &[bool; N]| {
        let n = shown.iter().filter(|s| **s).count();
        (0..widths.len())
            .filter(|i| shown[*i])
            .map(|i| widths[i])
            .sum::<usize>()
            + 2 * n.saturating_sub(1)
    };
    // Sacrifices in order until the table fits: long notes are cut to NOTES_START, the least
    // important columns go, notes are cut further, the next columns go, and last notes and names
    // are cut to their minimum.
    let mut dropped: Vec<&str> = Vec::new();
    let ranks_then_cut: [(&[u8], usize); 3] = [
        (&[], NOTES_START),
        (&[10, 9, 8], NOTES_MIDDLE),
        (&[7, 6, 5, 4], 0),
    ];
    for (ranks, notes_cap) in ranks_then_cut {
        for rank in ranks {
            for (i, c) in CELL_COLUMNS.iter().enumerate() {
                if c.drop_rank == *rank && shown[i] && total(&widths, &shown) > width {
                    shown[i] = false;
                    dropped.push(c.head);
                }
            }
        }
        if notes_cap > 0 && total(&widths, &shown) > width {
            widths[NOTES] = widths[NOTES].min(notes_cap.max(len(CELL_COLUMNS[NOTES].head)));
        }
    }
    for i in [NOTES, 0] {
        let over = total(&widths, &shown).saturating_sub(width);
        if over > 0 && shown[i] {
            let floor = CELL_COLUMNS[i].min_cut.max(len(CELL_COLUMNS[i].head));
            widths[i] = widths[i].saturating_sub(over).max(floor.min(widths[i]));
        }
    }
    let visible: Vec<usize> = (0..CELL_COLUMNS.len()).filter(|i| shown[*i]).collect();
    let line = |values: &[String]| {
        let mut s = String::new();
        for (k, &i) in visible.iter().enumerate() {
            let v = cut(&values[i], widths[i]);
            let pad = widths[i].saturating_sub(len(&v));
            if k > 0 {
                s.push_str("  ");
            }
            if CELL_COLUMNS[i].right {
                s.push_str(&" ".repeat(pad));
                s.push_str(&v);
            } else {
                s.push_str(&v);
                if k + 1 < visible.len() {
                    s.push_str(&" ".repeat(pad));
                }
            }
        }
        s.truncate(s.trim_end().len());
        s
    };
    let mut o = String::new();
    let head: Vec<String> = CELL_COLUMNS.iter().map(|c| c.head.to_string()).collect();
    let _ = writeln!(o, "{}", line(&head));
    for r in &rows {
        let _ = writeln!(o, "{}", line(r));
    }
    if !dropped.is_empty() {
        let names: Vec<&str> = CELL_COLUMNS
            .iter()
            .map(|c| c.head)
            .filter(|h| dropped.contains(h))
            .collect();
        let note = format!(
            "(not shown at {width} columns: {}; report.md has every column)",
            names.join(", ")
        );
        for l in wrap(&note, width) {
            let _ = writeln!(o, "{l}");
        }
    }
    o
}

/// Breaks `text` into lines of at most `width` characters at spaces (a longer word is cut).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(10);
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split(' ') {
        let needed =
            current.chars().count() + usize::from(!current.is_empty()) + word.chars().count();
        if !current.is_empty() && needed > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(&cut(word, width));
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// One line on the verdicts: `4 cells in both runs: 1 faster, 1 slower, 1 within noise, …`.
pub(crate) fn comparison_summary(c: &Comparison) -> String {
    let counts = c.counts();
    let parts: Vec<String> = [
        Verdict::Faster,
        Verdict::Slower,
        Verdict::WithinNoise,
        Verdict::NotComparable,
    ]
    .iter()
    .filter_map(|v| counts.get(v.as_str()).map(|n| format!("{n} {v}")))
    .collect();
    format!(
        "{} cells in both runs: {}.",
        c.cells.len(),
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        }
    )
}

/// A comparison's table as text: subject, workload, scenario, A and B req/s, the three ratios
/// and the verdict.
pub(crate) fn comparison_rows(c: &Comparison) -> Vec<[String; 9]> {
    c.cells
        .iter()
        .map(|c| {
            let opt = |v: Option<f64>, f: fn(f64) -> String| v.map_or("–".to_string(), f);
            [
                c.key.label(),
                c.key.workload.clone(),
                c.key.scenario.clone(),
                opt(c.a_rps, thousands),
                opt(c.b_rps, thousands),
                opt(c.rps_ratio, ratio),
                opt(c.p99_ratio, ratio),
                opt(c.cpu_us_per_req_ratio, ratio),
                c.verdict.to_string(),
            ]
        })
        .collect()
}

/// Where each run came from, and a warning when the machines differ.
pub(crate) fn comparison_heading(c: &Comparison) -> Vec<String> {
    let l = |x: &RunLabel| {
        format!(
            "{} started {} on {} ({} cores{})",
            x.kind,
            x.started_at,
            x.cpu_model,
            x.cores,
            if x.hostname.is_empty() {
                String::new()
            } else {
                format!(", {}", x.hostname)
            }
        )
    };
    let mut v = vec![format!("A: {}", l(&c.a)), format!("B: {}", l(&c.b))];
    if c.different_machines {
        v.push(
            "The runs come from different machines: ratios mix machine and software differences."
                .into(),
        );
    }
    v
}

/// One load run for a comparison's heading: `GET http://… — 2 threads, 10 connections, 10 s;
/// measured 10.00 s`.
pub(crate) fn load_label(l: &LoadLabel) -> String {
    format!(
        "{} {} — {} threads, {} connections, {}; measured {:.2} s",
        l.method, l.url, l.threads, l.connections, l.shape, l.duration_s
    )
}

/// A metric's value for reading.
pub(crate) fn metric_value(m: &LoadMetric, v: f64) -> String {
    match m.unit {
        Unit::PerSecond => thousands(v),
        Unit::Micros => micros_short(v),
        Unit::Count => thousands(v),
        Unit::Percent => format!("{v:.2}%"),
        Unit::BytesPerSecond => format!("{}/s", bytes_short(v)),
    }
}

/// The sentence under a load comparison: the verdict and how to read the ratios.
pub(crate) fn load_verdict_line(c: &LoadComparison) -> String {
    format!(
        "req/s: {} (per-second variation A {:.1} %, B {:.1} %). Ratios are B ÷ A; for latency and \
         errors below 1 is better.",
        match c.verdict {
            Verdict::Faster => "B is faster beyond the noise",
            Verdict::Slower => "B is slower beyond the noise",
            Verdict::WithinNoise => "within noise",
            Verdict::NotComparable => "not comparable (a run answered nothing)",
        },
        c.a_cv * 100.0,
        c.b_cv * 100.0
    )
}

impl LoadComparison {
    /// Plain text for a terminal, with aligned columns.
    pub fn to_text(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "A: {}", load_label(&self.a));
        let _ = writeln!(o, "B: {}", load_label(&self.b));
        if !self.differences.is_empty() {
            let _ = writeln!(
                o,
                "The loads differ ({}): the ratios mix the server's change with the load's.",
                self.differences.join(", ")
            );
        }
        o.push('\n');
        let rows: Vec<[String; 4]> = self
            .metrics
            .iter()
            .map(|m| {
                [
                    m.metric.clone(),
                    metric_value(m, m.a),
                    metric_value(m, m.b),
                    m.ratio.map_or("–".into(), ratio),
                ]
            })
            .collect();
        let head = ["metric", "A", "B", "B÷A"].map(String::from);
        let mut widths = [0usize; 4];
        for r in rows.iter().chain([&head]) {
            for (w, c) in widths.iter_mut().zip(r) {
                *w = (*w).max(c.chars().count());
            }
        }
        for r in [&head].into_iter().chain(&rows) {
            let pad = |i: usize| " ".repeat(widths[i] - r[i].chars().count());
            let _ = writeln!(
                o,
                "{}{}  {}{}  {}{}  {}{}",
                r[0],
                pad(0),
                pad(1),
                r[1],
                pad(2),
                r[2],
                pad(3),
                r[3]
            );
        }
        let _ = writeln!(o, "\n{}", load_verdict_line(self));
        o
    }
}

impl Comparison {
    /// Plain text for a terminal, with aligned columns.
    pub fn to_text(&self) -> String {
        let mut o = String::new();
        for line in comparison_heading(self) {
            let _ = writeln!(o, "{line}");
        }
        let _ = writeln!(o, "{}\n", comparison_summary(self));
        let header = [
            "subject",
            "workload",
            "scenario",
            "A req/s",
            "B req/s",
            "req/s B÷A",
            "p99 B÷A",
            "CPU/req B÷A",
            "verdict",
        ];
        let rows = comparison_rows(self);
        let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
        for r in &rows {
            for (w, cell) in widths.iter_mut().zip(r.iter()) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut s = String::new();
            for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
                let pad = w - c.chars().count();
                let right = (3..8).contains(&i);
                if i > 0 {
                    s.push_str("  ");
                }
                if right {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                } else {
                    s.push_str(c);
                    if i + 1 < cells.len() {
                        s.push_str(&" ".repeat(pad));
                    }
                }
            }
            s
        };
        let head: Vec<String> = header.iter().map(|h| h.to_string()).collect();
        let _ = writeln!(o, "{}", line(&head));
        for (r, c) in rows.iter().zip(&self.cells) {
            let mut l = line(r);
            if let Some(n) = &c.note {
                let _ = write!(l, "  ({n})");
            }
            let _ = writeln!(o, "{l}");
        }
        let open = crate::capacity_text::comparison_open_loop_lines(self);
        if !open.is_empty() {
            let _ = writeln!(o, "\nopen loop:");
            for l in open {
                let _ = writeln!(o, "  {l}");
            }
        }
        for (title, list) in [
            ("only in A", &self.only_in_a),
            ("only in B", &self.only_in_b),
        ] {
            if !list.is_empty() {
                let _ = writeln!(o, "\n{title}:");
                for k in list {
                    let _ = writeln!(o, "  {} / {} / {}", k.label(), k.workload, k.scenario);
                }
            }
        }
        o.push_str(
            "\nratios are B ÷ A; for p99 and CPU µs/req below 1 is better; \
             verdicts weigh req/s against the noise of both runs\n",
        );
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::cell;

    fn cells() -> Vec<Cell> {
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

    #[test]
    fn an_interrupted_load_says_so_and_when() {
        let mut r = crate::test_support::load_result();
        assert!(!load_report(&r, false).contains("interrupted"));
        r.interrupted = true;
        r.interrupted_after_s = Some(1.23);
        let text = load_report(&r, false);
        assert!(
            text.contains("Run interrupted after 1.2 s (Ctrl-C)"),
            "{text}"
        );
    }

    #[test]
    fn the_cell_table_fits_every_width_it_is_given() {
        let cells = cells();
        let refs: Vec<&Cell> = cells.iter().collect();
        for width in [80, 100, 120, 200] {
            let t = cell_table(&refs, width);
            for l in t.lines() {
                assert!(l.chars().count() <= width, "{width}: {l:?}\n{t}");
            }
            // The essentials stay at any width.
            for needed in ["req/s", "p99", "120,345", "failed", "java-spring"] {
                assert!(t.contains(needed), "{width}: {needed}\n{t}");
            }
        }
        // Too narrow for the essentials: they stay, the rest goes.
        let t = cell_table(&refs, 40);
        let head = t.lines().next().unwrap();
        assert!(
            t.contains("1.83 ms") && t.contains("failed") && !head.contains("p50"),
            "{t}"
        );
        let wide = cell_table(&refs, 200);
        assert!(
            wide.contains("req/s/MB") && !wide.contains("not shown"),
            "{wide}"
        );
        let narrow = cell_table(&refs, 80);
        assert!(
            !narrow.lines().next().unwrap().contains("req/s/MB"),
            "{narrow}"
        );
        assert!(narrow.contains("(not shown at 80 columns: "), "{narrow}");
    }

    #[test]
    fn the_cell_table_reads_as_people_write() {
        let cells = cells();
        let refs: Vec<&Cell> = cells.iter().collect();
        let t = cell_table(&refs, 200);
        assert!(t.contains("442 µs") && t.contains("1.83 ms"), "{t}");
        assert!(!t.contains("442.00us") && !t.contains('|'), "{t}");
        assert!(t.lines().all(|l| l == l.trim_end()), "{t}");
        let spring = t.lines().find(|l| l.contains("java-spring")).unwrap();
        assert!(spring.contains('–') && !spring.contains("0.0%"), "{spring}");
        let axum = t.lines().find(|l| l.contains("rust-axum")).unwrap();
        assert!(axum.contains("0.5%"), "{axum}");
        // Columns are aligned: every row's p99 ends where the header's does.
        let head = t.lines().next().unwrap();
        let end = |l: &str, needle: &str| {
            l.find(needle)
                .map(|i| l[..i].chars().count() + needle.chars().count())
        };
        assert_eq!(end(head, "p99"), end(axum, "1.83 ms"), "{t}");
    }

    #[test]
    fn a_load_comparison_aligns_its_figures() {
        let t = crate::load_compare::tests::sample().to_text();
        assert!(t.contains("connections 10 → 64"), "{t}");
        let p99 = t.lines().find(|l| l.starts_with("p99 ")).unwrap();
        assert!(
            p99.contains("1.83 ms") && p99.contains("915 µs") && p99.ends_with("0.50×"),
            "{t}"
        );
        let rps = t.lines().find(|l| l.starts_with("req/s")).unwrap();
        assert_eq!(rps.chars().count(), p99.chars().count(), "{t}");
        assert!(t.contains("B is faster beyond the noise"), "{t}");
    }

    #[test]
    fn the_width_comes_from_columns_then_the_terminal_then_a_default() {
        assert_eq!(table_width(Some("132"), Some(80)), 132);
        assert_eq!(table_width(Some("junk"), Some(80)), 80);
        assert_eq!(table_width(Some("0"), None), DEFAULT_WIDTH);
        assert_eq!(table_width(None, None), DEFAULT_WIDTH);
    }

    #[test]
    fn a_comparison_aligns_its_columns() {
        let text = crate::compare::tests::sample().to_text();
        let lines: Vec<&str> = text.lines().filter(|l| l.contains("  echo  ")).collect();
        assert_eq!(lines.len(), 4, "{text}");
        let lines: Vec<&str> = lines.into_iter().filter(|l| l.contains('×')).collect();
        // Aligned: the ratio column ends at the same character in every row.
        let ends: Vec<usize> = lines
            .iter()
            .map(|l| {
                let i = l.find('×').unwrap_or(0);
                l[..i].chars().count()
            })
            .collect();
        assert!(ends.windows(2).all(|w| w[0] == w[1]), "{text}");
        assert!(text.contains("only in A:") && text.contains("rust-iron"));
    }
}
