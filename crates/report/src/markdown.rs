//! Markdown: the summary table printed at the end of a run, `report.md` with its study section,
//! and `restbench compare --markdown`.

use std::fmt::Write;

use restbench_model::{Cell, CellStatus, FindingLevel, RunResults, StudyInfo};

use crate::cells::{
    any_restarts, between_cv_text, cell_labels, cv_text, database_place, first_line,
    open_loop_only, per_cpu_second, per_mb, status_word,
};
use crate::compare::{Comparison, Verdict};
pub use crate::escape::markdown as escape;
use crate::load_compare::LoadComparison;
use crate::open_loop::{capacity_rows, equal_load_rows};
use crate::ratios::{self, row_label};
use crate::text::{
    comparison_heading, comparison_rows, comparison_summary, load_label, load_verdict_line,
    metric_value,
};
use crate::units::{bytes, micros_short, ratio, thousands};
use crate::vocabulary::{closed_loop_latency, markdown_flag_legend};

/// The summary table, one row per cell.
pub fn cell_table(cells: &[&Cell]) -> String {
    let mut o = String::new();
    // The between-process column only when some cell ran over several processes (`--restarts`).
    let restarts = any_restarts(cells);
    let (between_head, between_rule) = if restarts {
        (" cv between processes |", "---:|")
    } else {
        ("", "")
    };
    let _ = writeln!(
        o,
        "| subject | workload | scenario | status | req/s (median) | cv |{between_head} p50 closed loop | p99 closed loop | \
        errors | server CPU | server µs/req | RSS peak | req per CPU-s | req/s per MB | flags |",
    );
    let _ = writeln!(
        o,
        "|---|---|---|---|---:|---:|{between_rule}---:|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    let between = |c: &Cell| {
        if restarts {
            format!(" {} |", between_cv_text(c).unwrap_or_else(|| "–".into()))
        } else {
            String::new()
        }
    };
    let dash = if restarts { " – |" } else { "" };
    let labels = cell_labels(cells);
    for (c, l) in cells.iter().zip(&labels) {
        let subject = escape(&l.label);
        if c.status == CellStatus::Ok && open_loop_only(c) {
            let _ = writeln!(
                o,
                "| {} | {} | {} | ok | – | – |{dash} – | – | – | – | – | – | – | – | open loop only: see capacity / equal load |",
                subject, c.workload, c.scenario
            );
        } else if c.status == CellStatus::Ok {
            let _ = writeln!(
                o,
                "| {} | {} | {} | ok | {} | {} |{} {} | {} | {} | {:.2} cores | {:.1} | {} | {} | {} | {} |",
                subject,
                c.workload,
                c.scenario,
                thousands(c.rps.median),
                cv_text(c),
                between(c),
                micros_short(c.latency_us.p50 as f64),
                micros_short(c.latency_us.p99 as f64),
                c.errors.total(),
                c.server.cpu_cores,
                c.server.cpu_us_per_req,
                bytes(c.server.rss_peak_bytes as f64),
                per_cpu_second(c).map_or("–".into(), thousands),
                per_mb(c).map_or("–".into(), thousands),
                c.flags.join(", ")
            );
        } else {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | – | – |{dash} – | – | – | – | – | – | – | – | {} |",
                subject,
                c.workload,
                c.scenario,
                status_word(c.status),
                escape(&first_line(c.reason.as_deref().unwrap_or("")))
            );
        }
    }
    o
}

/// The capacity and equal-load tables of a workload's cells ("" when none has them).
pub fn open_loop_tables(cells: &[&Cell]) -> String {
    let mut o = String::new();
    let caps = capacity_rows(cells);
    if !caps.is_empty() {
        o.push_str(
            "### Capacity under the SLO (open loop)\n\nThe highest rate whose every step met the \
             SLO, latency from intended send times; `≥` marks a floor (bound by the generator, \
             or the search ended before a rate failed), never the server's capacity.\n\n",
        );
        o.push_str(
            "| subject | scenario | SLO | capacity req/s | bound by | server µs/req at capacity | p99 at capacity | steps |\n",
        );
        o.push_str("|---|---|---|---:|---|---:|---:|---:|\n");
        for r in &caps {
            let _ = writeln!(
                o,
                "| {} | {} | `{}` | {} | {} | {} | {} | {} |",
                escape(&r.label),
                r.scenario,
                r.slo,
                r.rate_text(thousands),
                r.bound_by.name(),
                r.cpu_us_per_req.map_or("–".into(), |v| format!("{v:.1}")),
                r.p99_us.map_or("–".into(), |v| micros_short(v as f64)),
                r.steps
            );
        }
        o.push('\n');
    }
    let eq = equal_load_rows(cells);
    if !eq.is_empty() {
        o.push_str(
            "### Equal load (open loop)\n\nEvery cell at the same constant rate: the server's \
             CPU per request where it held the rate; a rate not held is shown as such.\n\n",
        );
        o.push_str(
            "| subject | scenario | target req/s | achieved req/s | held | server µs/req | server CPU | p50 | p99 | errors | RSS peak |\n",
        );
        o.push_str("|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
        for r in &eq {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2}% | {} |",
                escape(&r.label),
                r.scenario,
                thousands(r.target),
                thousands(r.achieved),
                if r.held {
                    "yes".to_string()
                } else {
                    format!("**no**: {}", escape(&r.failed.join("; ")))
                },
                r.cpu_us_per_req.map_or("–".into(), |v| format!("{v:.1}")),
                r.cpu_cores.map_or("–".into(), |v| format!("{v:.2} cores")),
                micros_short(r.p50_us as f64),
                micros_short(r.p99_us as f64),
                r.errors_percent,
                r.rss_peak_bytes.map_or("–".into(), |v| bytes(v as f64)),
            );
        }
        o.push('\n');
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
    if let Some(why) = &r.noisy_machine {
        let _ = writeln!(
            o,
            "**Noisy machine** (`noisy_machine`): {}; read every figure with that noise in mind.\n",
            escape(why)
        );
    }
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
    if let Some(n) = p.restarts {
        let _ = writeln!(
            o,
            "Each cell's repeats ran in {n} fresh server processes: `cv between processes` is the spread of their medians.\n"
        );
    }
    if let Some(db) = database_place(&r.cells) {
        let _ = writeln!(o, "PostgreSQL (users workload): {}.\n", escape(db));
    }
    if let Some(info) = &r.study {
        o.push_str(&study(info, r));
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
        let _ = writeln!(
            o,
            "Latency in this table: {}.\n",
            closed_loop_latency(p.connections)
        );
        o.push_str(&cell_table(&cells));
        o.push('\n');
        o.push_str(&open_loop_tables(&cells));
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
        .filter(|c| c.findings.iter().any(|f| f.level != FindingLevel::Pass))
        .collect();
    if !warnings.is_empty() {
        o.push_str("## Verification findings\n\n");
        for c in warnings {
            for f in c.findings.iter().filter(|f| f.level != FindingLevel::Pass) {
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
    o.push_str(&markdown_flag_legend());
    o.push_str(
        " Efficiency: requests per second of server CPU time, and req/s per MB of peak RSS.\n",
    );
    o
}

/// The "Study" section of `report.md`.
pub fn study(info: &StudyInfo, r: &RunResults) -> String {
    let mut o = String::new();
    let Some(st) = ratios::for_run(r) else {
        let _ = writeln!(
            o,
            "## Study {}\n\nNo published figures are known for study id `{}`.\n",
            escape(&info.id),
            escape(&info.id)
        );
        return o;
    };
    let s = &st.study;
    let _ = writeln!(
        o,
        "## Study {}: {} (seed {})\n",
        s.id,
        escape(&s.title),
        s.seed
    );
    let _ = writeln!(o, "- Published: {}", escape(&s.load_shape));
    let _ = writeln!(o, "- Their machine: {}", escape(&s.machine));
    let _ = writeln!(o, "- Source: {}", escape(&s.source));
    let _ = writeln!(
        o,
        "- This run: {}{}\n",
        if info.shortened {
            "**shortened** — "
        } else {
            ""
        },
        escape(if info.note.is_empty() {
            "the seed's load shape"
        } else {
            &info.note
        })
    );
    o.push_str(
        "Ratios are req/s ÷ the baseline's req/s in the same scenario (published on their \
        machine, measured on this one). ⇅ marks a system whose order against another differs \
        between published and measured.\n\n",
    );
    for t in &st.tables {
        let _ = writeln!(o, "### {} · {}\n", s.workload, t.scenario);
        if let Some(n) = &t.baseline_note {
            let _ = writeln!(o, "{}\n", escape(n));
        }
        o.push_str("| system (as published) | subject | published req/s | published ratio | measured req/s | measured ratio | order | note |\n");
        o.push_str("|---|---|---:|---:|---:|---:|:---:|---|\n");
        for row in &t.rows {
            let mut note: Vec<String> = Vec::new();
            if row.baseline {
                note.push("baseline".into());
            }
            if let Some(n) = &row.not_measured {
                note.push(n.clone());
            }
            if !row.flags.is_empty() {
                note.push(format!("flags: {}", row.flags.join(", ")));
            }
            if let Some(n) = &row.note {
                note.push(n.clone());
            }
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                escape(&row.system),
                row.subject
                    .as_ref()
                    .map(|_| escape(&row_label(row)))
                    .unwrap_or_else(|| "–".into()),
                row.published_rps.map_or("–".into(), thousands),
                row.published_ratio.map_or("–".into(), ratio),
                row.measured_rps().map_or("–".into(), thousands),
                row.measured_ratio.map_or("–".into(), ratio),
                if row.reversed { "⇅" } else { "" },
                escape(&note.join("; "))
            );
        }
        o.push('\n');
        if t.reversals.is_empty() {
            if t.rows
                .iter()
                .filter(|r| r.published_ratio.is_some() && r.measured_ratio.is_some())
                .count()
                >= 2
            {
                o.push_str("The measured order matches the published one.\n\n");
            }
        } else {
            o.push_str("Reversed pairs (published order → measured order):\n\n");
            for rev in &t.reversals {
                let _ = writeln!(o, "- {}", escape(&ratios::reversal_text(t, rev)));
            }
            o.push('\n');
        }
    }
    if !s.unavailable.is_empty() {
        o.push_str("Not run here:\n\n");
        for u in &s.unavailable {
            let _ = writeln!(o, "- {}: {}", escape(&u.system), escape(&u.reason));
        }
        o.push('\n');
    }
    if !s.notes.is_empty() {
        o.push_str("About the seed:\n\n");
        for n in &s.notes {
            let _ = writeln!(o, "- {}", escape(n));
        }
        o.push('\n');
    }
    o
}

impl Comparison {
    /// Markdown: a table of ratios (B ÷ A) with verdicts, then the cells found in only one run.
    pub fn to_markdown(&self) -> String {
        let mut o = String::from("# restbench compare\n\n");
        for line in comparison_heading(self) {
            let _ = writeln!(o, "- {}", escape(&line));
        }
        let _ = writeln!(o, "\n{}\n", comparison_summary(self));
        o.push_str("| subject | workload | scenario | A req/s | B req/s | req/s B÷A | p99 B÷A | CPU µs/req B÷A | verdict | note |\n");
        o.push_str("|---|---|---|---:|---:|---:|---:|---:|---|---|\n");
        for (row, c) in comparison_rows(self).iter().zip(&self.cells) {
            let verdict = match c.verdict {
                Verdict::Faster | Verdict::Slower => format!("**{}**", row[8]),
                _ => row[8].clone(),
            };
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {verdict} | {} |",
                escape(&row[0]),
                row[1],
                row[2],
                row[3],
                row[4],
                row[5],
                row[6],
                row[7],
                escape(c.note.as_deref().unwrap_or(""))
            );
        }
        let open = crate::capacity_text::comparison_open_loop_lines(self);
        if !open.is_empty() {
            o.push_str("\n## Open loop\n\n");
            for l in open {
                let _ = writeln!(o, "- {}", escape(&l));
            }
        }
        for (title, list) in [
            ("Only in A", &self.only_in_a),
            ("Only in B", &self.only_in_b),
        ] {
            if !list.is_empty() {
                let _ = writeln!(o, "\n## {title}\n");
                for k in list {
                    let _ = writeln!(
                        o,
                        "- {} / {} / {}",
                        escape(&k.label()),
                        k.workload,
                        k.scenario
                    );
                }
            }
        }
        o.push_str(
            "\nVerdicts: *faster*/*slower* when the 95 % confidence intervals of req/s do \
            not overlap (or, without intervals, when the change exceeds twice either run's \
            coefficient of variation and 5 %); otherwise *within noise*. p99 and CPU µs/req ratios \
            below 1 are improvements.\n",
        );
        o
    }
}

impl LoadComparison {
    /// Markdown: the two loads, a table of figures with B ÷ A, the verdict on req/s.
    pub fn to_markdown(&self) -> String {
        let mut o = String::from("# restbench compare (load results)\n\n");
        let _ = writeln!(o, "- A: {}", escape(&load_label(&self.a)));
        let _ = writeln!(o, "- B: {}", escape(&load_label(&self.b)));
        if !self.differences.is_empty() {
            let _ = writeln!(
                o,
                "- The loads differ ({}): the ratios mix the server's change with the load's.",
                escape(&self.differences.join(", "))
            );
        }
        o.push_str("\n| metric | A | B | B÷A |\n|---|---:|---:|---:|\n");
        for m in &self.metrics {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} |",
                m.metric,
                metric_value(m, m.a),
                metric_value(m, m.b),
                m.ratio.map_or("–".into(), ratio)
            );
        }
        let _ = writeln!(o, "\n{}", escape(&load_verdict_line(self)));
        o
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_load_comparison_as_markdown() {
        let md = crate::load_compare::tests::sample().to_markdown();
        assert!(md.contains("| p99 | 1.83 ms | 915 µs | 0.50× |"), "{md}");
        assert!(md.contains("| errors | 0 | 4 | – |"), "{md}");
    }

    #[test]
    fn a_comparison_as_markdown() {
        let md = crate::compare::tests::sample().to_markdown();
        assert!(md.contains("| rust-axum | echo | all-cores | 100,000 | 90,000 | 0.90× |"));
        assert!(md.contains("**slower**"));
        assert!(md.contains("## Only in B"));
    }
}
