//! Markdown: the summary table printed at the end of a run and written to `report.md`.

use std::fmt::Write;

use restbench_model::{Cell, CellStatus, RunResults};

use crate::units::{bytes, micros, thousands};

/// The summary table, one row per cell.
pub fn cell_table(cells: &[&Cell]) -> String {
    let mut o = String::new();
    o.push_str("| subject | workload | scenario | status | req/s (median) | cv | p50 | p99 | errors | server CPU | server µs/req | RSS peak | flags |\n");
    o.push_str("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for c in cells {
        if c.status == CellStatus::Ok {
            let _ = writeln!(
                o,
                "| {} | {} | {} | ok | {} | {:.1}% | {} | {} | {} | {:.2} cores | {:.1} | {} | {} |",
                c.subject,
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
                "| {} | {} | {} | {status} | – | – | – | – | – | – | – | – | {} |",
                c.subject,
                c.workload,
                c.scenario,
                escape(&first_line(c.reason.as_deref().unwrap_or("")))
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
    o.push_str("Flags: `client_bound` the load generator saturated its CPUs, so the figure is a floor for the server; `noisy` the repeats vary by more than 10 %; `errors` some requests failed; `verification_warnings` see the findings.\n");
    o
}

fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.chars().count() > 160 {
        format!("{}…", line.chars().take(160).collect::<String>())
    } else {
        line.to_string()
    }
}

fn escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}
