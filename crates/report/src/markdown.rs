//! Markdown: the summary table printed at the end of a run and written to `report.md`.

use std::fmt::Write;

use restbench_model::{Cell, CellStatus, RunResults};

use crate::units::{bytes, micros, thousands};
use crate::{cell_labels, per_cpu_second, per_mb};

/// The summary table, one row per cell.
pub fn cell_table(cells: &[&Cell]) -> String {
    let mut o = String::new();
    o.push_str("| subject | workload | scenario | status | req/s (median) | cv | p50 | p99 | errors | server CPU | server µs/req | RSS peak | req per CPU-s | req/s per MB | flags |\n");
    o.push_str("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    let labels = cell_labels(cells);
    for (c, l) in cells.iter().zip(&labels) {
        let subject = escape(&l.label);
        if c.status == CellStatus::Ok {
            let _ = writeln!(
                o,
                "| {} | {} | {} | ok | {} | {:.1}% | {} | {} | {} | {:.2} cores | {:.1} | {} | {} | {} | {} |",
                subject,
                c.workload,
                c.scenario,
                thousands(c.rps.median),
                c.rps.cv * 100.0,
                micros(c.latency_us.p50 as f64),
                micros(c.latency_us.p99 as f64),
                c.errors.total(),
                c.server.cpu_cores,
                c.server.cpu_us_per_req,
                bytes(c.server.rss_peak_bytes as f64),
                per_cpu_second(c).map_or("–".into(), thousands),
                per_mb(c).map_or("–".into(), thousands),
                c.flags.join(", ")
            );
        } else {
            let status = if c.status == CellStatus::Failed {
                "failed"
            } else {
                "skipped"
            };
            let _ = writeln!(
                o,
                "| {} | {} | {} | {status} | – | – | – | – | – | – | – | – | – | – | {} |",
                subject,
                c.workload,
                c.scenario,
                escape(&crate::first_line(c.reason.as_deref().unwrap_or("")))
            );
        }
    }
    o
}

/// The whole `report.md`.
pub fn report(r: &RunResults) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# restbench {}\n", r.kind);
    let e = &r.environment;
    let _ = writeln!(
        o,
        "Started {}{}. {} ({} cores), Linux {}, restbench {}. {}.\n",
        r.started_at,
        if r.interrupted {
            " — **interrupted**: only finished cells are shown"
        } else {
            ""
        },
        e.cpu_model,
        e.cores,
        e.kernel,
        e.restbench_version,
        e.backend_reason
    );
    let p = &r.protocol;
    let shape = match (p.duration_s, p.requests) {
        (Some(d), _) => format!("{d}s per repeat"),
        (None, Some(n)) => format!("{n} requests per repeat"),
        _ => String::new(),
    };
    let _ = writeln!(
        o,
        "Load: {} connections, {} threads, {shape}, {} repeats, warm-up {}s, HTTP/{}{}, timeout {}s; database pool {} connections in total.\n",
        p.connections,
        p.threads,
        p.repeats,
        p.warmup_s,
        p.http_version,
        if p.keepalive {
            " keep-alive"
        } else {
            ", a new connection per request"
        },
        p.timeout_s,
        p.db_pool_total
    );
    if let Some(note) = &p.note {
        let _ = writeln!(o, "{note}\n");
    }
    if let Some(info) = &r.study {
        o.push_str(&crate::ratios::markdown(info, r));
    }
    let mut workloads: Vec<&str> = r.cells.iter().map(|c| c.workload.as_str()).collect();
    workloads.dedup();
    workloads.sort();
    workloads.dedup();
    for w in workloads {
        let mut cells: Vec<&Cell> = r.cells.iter().filter(|c| c.workload == w).collect();
        cells.sort_by(|a, b| {
            a.scenario
                .cmp(&b.scenario)
                .then(b.rps.median.total_cmp(&a.rps.median))
        });
        let _ = writeln!(o, "## {w}\n");
        o.push_str(&cell_table(&cells));
        o.push('\n');
    }
    if !e.toolchains.is_empty() {
        o.push_str("## Toolchains\n\n");
        for (k, v) in &e.toolchains {
            let _ = writeln!(o, "- {k}: {v}");
        }
        o.push('\n');
    }
    let warnings: Vec<&Cell> = r
        .cells
        .iter()
        .filter(|c| {
            c.findings
                .iter()
                .any(|f| f.level != restbench_model::FindingLevel::Pass)
        })
        .collect();
    if !warnings.is_empty() {
        o.push_str("## Verification findings\n\n");
        for c in warnings {
            for f in c
                .findings
                .iter()
                .filter(|f| f.level != restbench_model::FindingLevel::Pass)
            {
                let _ = writeln!(
                    o,
                    "- {} / {} / {}: {:?} {}: {}",
                    c.subject,
                    c.workload,
                    c.scenario,
                    f.level,
                    f.check,
                    escape(&f.message)
                );
            }
        }
        o.push('\n');
    }
    o.push_str("Flags: `client_bound` the load generator saturated its CPUs or came within 10 % of its calibrated ceiling, so the figure is a floor for the server; `warmup_unsettled` the rate was still climbing when the warm-up reached its cap; `noisy` the repeats vary by more than 10 %; `limit_not_held` the scenario's CPU limit was not held; `errors` some requests failed; `verification_warnings` see the findings. Efficiency: requests per second of server CPU time, and req/s per MB of peak RSS.\n");
    o
}

/// Escapes text for a Markdown table cell.
/// Escapes text for one line of Markdown (a table cell, a list item): pipes, newlines, and the
/// angle brackets a renderer would take for HTML.
pub fn escape(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('\n', " ")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_escapes_pipes_newlines_and_tags() {
        assert_eq!(escape("a|b\n<script>"), "a\\|b &lt;script&gt;");
    }
}
