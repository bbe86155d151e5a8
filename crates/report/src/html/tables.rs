//! The tables of a run: one summary row per cell, the reasons of failed cells, the verifier's
//! findings.

use std::fmt::Write;

use restbench_model::{Cell, CellStatus, FindingLevel, RunResults};

use crate::cells::{
    CellLabel, FIRST_LINE_CHARS, between_cv_text, first_line, open_loop_only, per_cpu_second,
    per_mb, single_repeat, status_word,
};
use crate::escape::html as escape;
use crate::open_loop::{capacity_rows, equal_load_rows};
use crate::units::{bytes_short, compact, micros_short, thousands, trimmed as trim};

use super::markup::{flag_badge, swatch};

/// The summary table of one workload × scenario: throughput, latency, server resources,
/// efficiency; failed and skipped cells say why in one line.
pub fn cells_table(
    o: &mut String,
    cells: &[&Cell],
    labels: &[CellLabel],
    color: &dyn Fn(&CellLabel) -> usize,
    closed_loop: &str,
) {
    cells_head(o, closed_loop);
    for (c, l) in cells.iter().zip(labels) {
        let name = subject_cell(c, l, color(l));
        if c.status == CellStatus::Ok && open_loop_only(c) {
            let _ = write!(
                o,
                "<tr><td>{name}</td><td colspan=\"13\" class=\"wrap muted sep\">measured open loop only: see the capacity and equal-load tables</td></tr>"
            );
        } else if c.status == CellStatus::Ok {
            measured_row(o, c, &name);
        } else {
            let _ = write!(
                o,
                "<tr class=\"notok\"><td>{name}</td><td class=\"sep\"><span class=\"badge bad\">{}</span></td><td colspan=\"12\" class=\"wrap\">{}</td></tr>",
                status_word(c.status),
                escape(&first_line(
                    c.reason.as_deref().unwrap_or("no reason recorded")
                ))
            );
        }
    }
    o.push_str("</tbody></table></div>");
}

/// The two heading rows: the groups (req/s, latency, server, efficiency), then the columns.
fn cells_head(o: &mut String, closed_loop: &str) {
    let _ = write!(
        o,
        "<div class=\"tablewrap\"><table class=\"cells\"><thead><tr class=\"group\">\
        <th></th><th colspan=\"4\" class=\"sep\">req/s</th>\
        <th colspan=\"4\" class=\"sep\">latency {}</th>",
        escape(closed_loop)
    );
    o.push_str("<th colspan=\"3\" class=\"sep\">server</th>\
        <th colspan=\"2\" class=\"sep\">efficiency</th></tr><tr><th>subject</th>\
        <th class=\"num sep\">median</th><th class=\"num\">CI95</th><th class=\"num\">min–max</th>\
        <th class=\"num\">cv</th><th class=\"num sep\">p50</th><th class=\"num\">p90</th>\
        <th class=\"num\">p99</th><th class=\"num\">p99.9</th><th class=\"num sep\">CPU cores</th>\
        <th class=\"num\">CPU µs/req</th><th class=\"num\">RSS peak</th>\
        <th class=\"num sep\" title=\"requests served per second of server CPU time\">req/CPU-s</th>\
        <th class=\"num\" title=\"req/s per MB of peak RSS\">req/s/MB</th>\
        </tr></thead><tbody>");
}

/// A measured cell's row: req/s with its spread, latency percentiles, server resources and
/// efficiency.
fn measured_row(o: &mut String, c: &Cell, name: &str) {
    // A run measured in rounds: the interval over its rounds; before rounds, the bootstrap one.
    let ci = match &c.intervals {
        Some(i) => format!(
            "<span title=\"95 % interval over {} rounds\">{}–{}</span>",
            i.rounds,
            compact(i.rps.low),
            compact(i.rps.high)
        ),
        None => c.rps.ci95.map_or("–".into(), |[a, b]| {
            format!("{}–{}", compact(a), compact(b))
        }),
    };
    let limit = c.server.cpu_limit_cores.map_or(String::new(), |l| {
        format!(" <span class=\"muted\">/ {}</span>", trim(l))
    });
    let flags = flags(c);
    // With --restarts: the spread between server processes, under the cv within them.
    let between = between_cv_text(c).map_or(String::new(), |t| {
        format!(
            "<br><span class=\"muted small\" title=\"cv of the per-process medians\">between processes {}</span>",
            escape(&t)
        )
    });
    // One repeat has no spread to show: `–`, not a range of one value and a cv of 0 %.
    let (range, cv) = if single_repeat(c) {
        ("–".to_string(), "–".to_string())
    } else {
        (
            format!("{}–{}", compact(c.rps.min), compact(c.rps.max)),
            format!("{:.1} %", c.rps.cv * 100.0),
        )
    };
    let l = &c.latency_us;
    let _ = write!(
        o,
        "<tr><td>{name}{flags}</td><td class=\"num sep\"><b>{}</b></td>\
            <td class=\"num\">{ci}</td><td class=\"num\">{range}</td>\
            <td class=\"num\">{cv}{between}</td><td class=\"num sep\">{}</td>\
            <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
            <td class=\"num sep\">{:.2}{limit}</td><td class=\"num\">{}</td>\
            <td class=\"num\">{}</td><td class=\"num sep\">{}</td>\
            <td class=\"num\">{}</td></tr>",
        thousands(c.rps.median),
        micros_short(l.p50 as f64),
        micros_short(l.p90 as f64),
        micros_short(l.p99 as f64),
        micros_short(l.p999 as f64),
        c.server.cpu_cores,
        if c.server.cpu_us_per_req > 0.0 {
            format!("{:.1}", c.server.cpu_us_per_req)
        } else {
            "–".into()
        },
        if c.server.rss_peak_bytes > 0 {
            bytes_short(c.server.rss_peak_bytes as f64)
        } else {
            "–".into()
        },
        per_cpu_second(c).map_or("–".into(), thousands),
        per_mb(c).map_or("–".into(), thousands),
    );
}

/// The cell's flags as badges, and its error count, under its name.
fn flags(c: &Cell) -> String {
    let mut flags: Vec<String> = c.flags.iter().map(|f| flag_badge(f)).collect();
    if c.errors.total() > 0 {
        flags.push(format!(
            "<span class=\"muted small\">{} errors</span>",
            thousands(c.errors.total() as f64)
        ));
    }
    if flags.is_empty() {
        String::new()
    } else {
        format!("<span class=\"flags\">{}</span>", flags.join(" "))
    }
}

/// The capacity table of a group: capacity (a floor shown as `≥`), bound by, server CPU µs/req
/// and p99 at capacity.
pub fn capacity_table(o: &mut String, cells: &[&Cell]) {
    let rows = capacity_rows(cells);
    if rows.is_empty() {
        return;
    }
    o.push_str("<div class=\"tablewrap\"><table class=\"capacity\"><caption>Capacity under the SLO \
        (open loop; ≥ marks a floor, not the server's capacity)</caption><thead><tr><th>subject</th>\
        <th>SLO</th><th class=\"num\">capacity req/s</th><th>bound by</th>\
        <th class=\"num\">server µs/req at capacity</th><th class=\"num\">p99 at capacity</th>\
        <th class=\"num\">steps</th></tr></thead><tbody>");
    for r in rows {
        let bound = if r.bound_by.is_server() {
            escape(r.bound_by.name())
        } else {
            format!(
                "<span class=\"badge warn\">{}</span>",
                escape(r.bound_by.name())
            )
        };
        let _ = write!(
            o,
            "<tr><td>{}</td><td><code>{}</code></td><td class=\"num\"><b>{}</b></td>\
             <td title=\"{}\">{bound}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td></tr>",
            escape(&r.label),
            escape(&r.slo),
            escape(&r.rate_text(thousands)),
            escape(&r.reason),
            r.cpu_us_per_req.map_or("–".into(), |v| format!("{v:.1}")),
            r.p99_us.map_or("–".into(), |v| micros_short(v as f64)),
            r.steps
        );
    }
    o.push_str("</tbody></table></div>");
}

/// The equal-load table of a group: per rate, each cell's server CPU per request, and whether it
/// held the rate.
pub fn equal_load_table(o: &mut String, cells: &[&Cell]) {
    let rows = equal_load_rows(cells);
    if rows.is_empty() {
        return;
    }
    o.push_str(
        "<div class=\"tablewrap\"><table class=\"equal-load\"><caption>Equal load (open \
        loop): the same constant rate for every cell</caption><thead><tr><th>subject</th>\
        <th class=\"num\">target req/s</th><th class=\"num\">achieved</th><th>held</th>\
        <th class=\"num\">server µs/req</th><th class=\"num\">server CPU</th>\
        <th class=\"num\">p50</th><th class=\"num\">p99</th><th class=\"num\">errors</th>\
        <th class=\"num\">RSS peak</th></tr></thead><tbody>",
    );
    for r in rows {
        let held = if r.held {
            "yes".to_string()
        } else {
            format!(
                "<span class=\"badge bad\" title=\"{}\">not held</span>",
                escape(&r.failed.join("; "))
            )
        };
        let _ = write!(
            o,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{held}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{:.2} %</td><td class=\"num\">{}</td></tr>",
            escape(&r.label),
            thousands(r.target),
            thousands(r.achieved),
            r.cpu_us_per_req.map_or("–".into(), |v| format!("{v:.1}")),
            r.cpu_cores.map_or("–".into(), |v| format!("{v:.2}")),
            micros_short(r.p50_us as f64),
            micros_short(r.p99_us as f64),
            r.errors_percent,
            r.rss_peak_bytes
                .map_or("–".into(), |v| bytes_short(v as f64)),
        );
    }
    o.push_str("</tbody></table></div>");
}

/// Failure reasons too long for a table row, whole, folded away.
pub fn long_reasons(o: &mut String, cells: &[&Cell]) {
    let long: Vec<&&Cell> = cells
        .iter()
        .filter(|c| {
            c.status != CellStatus::Ok
                && c.reason
                    .as_deref()
                    .is_some_and(|r| r.contains('\n') || r.chars().count() > FIRST_LINE_CHARS)
        })
        .collect();
    for c in long {
        let _ = write!(
            o,
            "<details><summary>Why {} {}</summary><pre>{}</pre></details>",
            escape(&c.subject),
            status_word(c.status),
            escape(c.reason.as_deref().unwrap_or(""))
        );
    }
}

fn subject_cell(c: &Cell, l: &CellLabel, color: usize) -> String {
    format!(
        "{}<span class=\"subj\">{}</span><span class=\"fw\">{} {} · {}</span>",
        swatch(color),
        escape(&l.label),
        escape(&c.framework),
        escape(&c.framework_version),
        escape(&c.language)
    )
}

/// Every finding that is not a pass, in one table.
pub fn findings(o: &mut String, r: &RunResults) {
    let rows: Vec<(&Cell, &restbench_model::Finding)> = r
        .cells
        .iter()
        .flat_map(|c| {
            c.findings
                .iter()
                .filter(|f| f.level != FindingLevel::Pass)
                .map(move |f| (c, f))
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    o.push_str(
        "<section id=\"findings\"><h2>Verification findings</h2><div class=\"tablewrap\">\
        <table class=\"findings\"><thead><tr><th>subject</th><th>workload</th><th>scenario</th>\
        <th>level</th><th>check</th><th>message</th></tr></thead><tbody>",
    );
    for (c, f) in rows {
        let (class, word) = match f.level {
            FindingLevel::Fail => ("bad", "fail"),
            FindingLevel::Warn => ("warn", "warn"),
            FindingLevel::Pass => ("good", "pass"),
        };
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td><span class=\"badge {class}\">{word}</span></td><td><code>{}</code></td><td class=\"wrap\">{}</td></tr>",
            escape(&c.subject),
            escape(&c.workload),
            escape(&c.scenario),
            escape(&f.check),
            escape(&f.message)
        );
    }
    o.push_str("</tbody></table></div></section>");
}
