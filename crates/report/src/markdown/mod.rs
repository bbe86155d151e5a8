//! Markdown: the summary table printed at the end of a run, `report.md` with its [`mod@study`]
//! section and its conformance section ([`mod@conformance`], also `restbench conformance
//! --markdown`), the rankings of groups measured in rounds ([`mod@rankings`]), its profiles'
//! split tables ([`mod@profile`]), `restbench compare --markdown` ([`mod@comparison`]), and
//! `restbench ab --markdown` with the gate's CI summary ([`mod@ab`]); `study tfb`'s section, one
//! table per TechEmpower test type, is [`mod@tfb`]. A sibling of `text`: the lines
//! both say alike are in `lines`.

pub mod ab;
pub mod comparison;
pub mod conformance;
pub mod profile;
pub mod rankings;
pub mod study;
pub mod tfb;

use std::fmt::Write;

use restbench_model::{Cell, CellStatus, Environment, FindingLevel, RunProtocol, RunResults};

use crate::cells::{
    any_restarts, between_cv_text, cell_labels, cv_text, database_place, first_line,
    open_loop_only, per_cpu_second, per_mb, status_word,
};
use crate::conformance::{conformant_first, nonconformant_subjects, ranked_apart};
pub use crate::escape::markdown as escape;
use crate::open_loop::{capacity_rows, equal_load_rows};
use crate::rankings::{GroupView, group_views, policy_line, views_of};
use crate::units::{bytes, micros_short, thousands};
use crate::vocabulary::{closed_loop_latency, markdown_flag_legend};

pub use comparison::{comparison, load_comparison};
pub use conformance::conformance;
pub use study::study;

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
    let between = |c: &Cell| {
        if restarts {
            format!(" {} |", between_cv_text(c).unwrap_or_else(|| "–".into()))
        } else {
            String::new()
        }
    };
    let dash = if restarts { " – |" } else { "" };
    // The interval column only when some cell was measured in rounds.
    let intervals = cells.iter().any(|c| c.intervals.is_some());
    let (interval_head, interval_rule, interval_dash) = if intervals {
        (" req/s 95 % |", "---:|", " – |")
    } else {
        ("", "", "")
    };
    let interval = |c: &Cell| match (&c.intervals, intervals) {
        (Some(i), _) => format!(" ±{:.1} % |", i.rps.relative_half_width() * 100.0),
        (None, true) => " – |".to_string(),
        (None, false) => String::new(),
    };
    let _ = writeln!(
        o,
        "| subject | workload | scenario | status | req/s (median) | cv |{between_head}{interval_head} p50 closed loop | p99 closed loop | \
        errors | server CPU | server µs/req | RSS peak | req per CPU-s | req/s per MB | flags |",
    );
    let _ = writeln!(
        o,
        "|---|---|---|---|---:|---:|{between_rule}{interval_rule}---:|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    let labels = cell_labels(cells);
    for (c, l) in cells.iter().zip(&labels) {
        let subject = escape(&l.label);
        if c.status == CellStatus::Ok && open_loop_only(c) {
            let _ = writeln!(
                o,
                "| {} | {} | {} | ok | – | – |{dash}{interval_dash} – | – | – | – | – | – | – | – | open loop only: see capacity / equal load |",
                subject,
                escape(&c.workload),
                escape(&c.scenario)
            );
        } else if c.status == CellStatus::Ok {
            let _ = writeln!(
                o,
                "| {} | {} | {} | ok | {} | {} |{}{} {} | {} | {} | {:.2} cores | {:.1} | {} | {} | {} | {} |",
                subject,
                escape(&c.workload),
                escape(&c.scenario),
                thousands(c.rps.median),
                cv_text(c),
                between(c),
                interval(c),
                micros_short(c.latency_us.p50 as f64),
                crate::cells::p99_text(c),
                c.errors.total(),
                c.server.cpu_cores,
                c.server.cpu_us_per_req,
                bytes(c.server.rss_peak_bytes as f64),
                per_cpu_second(c).map_or("–".into(), thousands),
                per_mb(c).map_or("–".into(), thousands),
                escape(&c.flags.join(", "))
            );
        } else {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | – | – |{dash}{interval_dash} – | – | – | – | – | – | – | – | {} |",
                subject,
                escape(&c.workload),
                escape(&c.scenario),
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
                escape(&r.scenario),
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
                escape(&r.scenario),
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

/// The whole `report.md`: the run's heading, the study section, one section per workload, the
/// toolchains, the verification findings and the flags' legend.
pub fn report(r: &RunResults) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# restbench {}\n", r.kind);
    machine(&mut o, r);
    load_shape(&mut o, &r.protocol);
    if let Some(db) = database_place(&r.cells) {
        let _ = writeln!(o, "PostgreSQL (users workload): {}.\n", escape(db));
    }
    if let Some(info) = &r.study {
        match crate::tfb_ratios::for_run(r) {
            Some(tables) => o.push_str(&tfb::tfb(info, &tables)),
            None => o.push_str(&study(info, r)),
        }
    }
    workloads(&mut o, r);
    o.push_str(&profile::section(r));
    o.push_str(&profile::explained(r));
    o.push_str(&conformance::section(&r.conformance));
    toolchains(&mut o, &r.environment);
    findings(&mut o, &r.cells);
    o.push_str(&markdown_flag_legend());
    o.push_str(
        " Efficiency: requests per second of server CPU time, and req/s per MB of peak RSS.\n",
    );
    o
}

/// When the run started, on what machine, and whether that machine was noisy.
fn machine(o: &mut String, r: &RunResults) {
    let e = &r.environment;
    let _ = writeln!(
        o,
        "Started {}{}. {} ({}), Linux {}, restbench {}. {}.\n",
        escape(&r.started_at),
        if r.interrupted {
            " — **interrupted**: only finished cells are shown"
        } else {
            ""
        },
        escape(&e.cpu_model),
        crate::units::plural(e.cores, "core"),
        escape(&e.kernel),
        escape(&e.restbench_version),
        escape(&e.backend_reason)
    );
    if let Some(why) = &r.noisy_machine {
        let _ = writeln!(
            o,
            "**Noisy machine** (`noisy_machine`): {}; read every figure with that noise in mind.\n",
            escape(why)
        );
    }
}

/// The closed-loop load every cell got, its note, and the restarts between repeats.
fn load_shape(o: &mut String, p: &RunProtocol) {
    let shape = match (p.duration_s, p.requests) {
        (Some(d), _) => format!("{d}s per repeat"),
        (None, Some(n)) => format!("{n} requests per repeat"),
        _ => String::new(),
    };
    let _ = writeln!(
        o,
        "Load: {}, {}, {shape}, {}, warm-up {}s, HTTP/{}{}, timeout {}s; database pool {} connections in total.\n",
        crate::units::plural(p.connections, "connection"),
        crate::units::plural(p.threads, "thread"),
        crate::units::plural(p.repeats, "repeat"),
        p.warmup_s,
        escape(&p.http_version),
        if p.keepalive {
            " keep-alive"
        } else {
            ", a new connection per request"
        },
        p.timeout_s,
        p.db_pool_total
    );
    if let Some(note) = &p.note {
        let _ = writeln!(o, "{}\n", escape(note));
    }
    if let Some(n) = p.restarts {
        let _ = writeln!(
            o,
            "Each cell's repeats ran in {n} fresh server processes: `cv between processes` is the spread of their medians.\n"
        );
    }
    if let Some(line) = policy_line(p.rounds.as_ref()) {
        let _ = writeln!(o, "{line}\n");
    }
}

/// One section per workload, in name order: its cells by scenario, fastest first (nonconformant
/// cells after the conformant ones, with a sentence why), then its open-loop tables.
fn workloads(o: &mut String, r: &RunResults) {
    let views: Vec<GroupView> = group_views(r);
    let mut explained = false;
    let mut workloads: Vec<&str> = r.cells.iter().map(|c| c.workload.as_str()).collect();
    workloads.sort();
    workloads.dedup();
    for w in workloads {
        let mut cells: Vec<&Cell> = r.cells.iter().filter(|c| c.workload == w).collect();
        cells.sort_by(|a, b| {
            a.scenario
                .cmp(&b.scenario)
                .then(conformant_first(a, b))
                .then(b.rps.median.total_cmp(&a.rps.median))
        });
        let _ = writeln!(o, "## {}\n", escape(w));
        let _ = writeln!(
            o,
            "Latency in this table: {}.\n",
            // A workload that holds its own count (`delay`) says it, not the run's.
            closed_loop_latency(
                cells
                    .iter()
                    .find_map(|c| c.connections)
                    .unwrap_or(r.protocol.connections)
            )
        );
        o.push_str(&cell_table(&cells));
        o.push('\n');
        if let Some(line) = crate::cells::bytes_per_answer_line(w, &cells) {
            let _ = writeln!(o, "{}\n", escape(&line));
        }
        if let Some(why) = ranked_apart(&nonconformant_subjects(cells.iter().copied())) {
            let _ = writeln!(o, "{}\n", escape(&why));
        }
        o.push_str(&open_loop_tables(&cells));
        for v in views_of(&views, w, None) {
            o.push_str(&rankings::ranking(v));
            if !explained {
                o.push_str(rankings::HOW_TO_READ);
                explained = true;
            }
        }
    }
}

fn toolchains(o: &mut String, e: &Environment) {
    if !e.toolchains.is_empty() {
        o.push_str("## Toolchains\n\n");
        for (k, v) in &e.toolchains {
            let _ = writeln!(o, "- {}: {}", escape(k), escape(v));
        }
        o.push('\n');
    }
}

/// Every finding that did not pass, cell by cell.
fn findings(o: &mut String, cells: &[Cell]) {
    let warnings: Vec<&Cell> = cells
        .iter()
        .filter(|c| c.findings.iter().any(|f| f.level != FindingLevel::Pass))
        .collect();
    if warnings.is_empty() {
        return;
    }
    o.push_str("## Verification findings\n\n");
    for c in warnings {
        for f in c.findings.iter().filter(|f| f.level != FindingLevel::Pass) {
            let _ = writeln!(
                o,
                "- {} / {} / {}: {:?} {}: {}",
                escape(&c.subject),
                escape(&c.workload),
                escape(&c.scenario),
                f.level,
                escape(&f.check),
                escape(&f.message)
            );
        }
    }
    o.push('\n');
}
