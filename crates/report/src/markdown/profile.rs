//! report.md's profiles: per workload, the CPU split of every profiled cell, its system calls
//! and context switches per request, and the slice's rate beside the measured one.

use std::fmt::Write;

use restbench_model::RunResults;

use crate::escape::markdown as escape;
use crate::profiles::{by_workload, slice_ratio};

/// The profiles section, empty when no cell was profiled.
pub fn section(r: &RunResults) -> String {
    let groups = by_workload(r);
    if groups.is_empty() {
        return String::new();
    }
    let mut o = String::from(
        "## Profiles\n\nWhere each server's CPU went in a profiling slice after its measured \
         repeats (perf `cpu-clock` samples, classified by the frame on CPU). The slice is not \
         part of the figures above; its rate is shown beside the measured one, and that ratio \
         is the measure of perf's overhead (the measured rate is unprofiled).\n\n",
    );
    for (workload, cells) in groups {
        let _ = writeln!(o, "### {}\n", escape(&workload));
        o.push_str(
            "| cell | kernel net | kernel other | own | runtime | libc/alloc | unknown | syscalls/req | ctx sw/req | slice req/s | measured req/s |\n\
             |---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
        );
        for c in &cells {
            let p = c.profile;
            let share = |v: f64| format!("{:.1}%", v * 100.0);
            let per = |v: Option<f64>| v.map_or("–".into(), |v| format!("{v:.2}"));
            let switches = match (
                p.voluntary_switches_per_request,
                p.involuntary_switches_per_request,
            ) {
                (Some(a), Some(b)) => Some(a + b),
                _ => None,
            };
            let ratio = slice_ratio(c.cell, p).map_or(String::new(), |x| format!(" ({x:.2}×)"));
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.0}{ratio} | {:.0} |",
                escape(&c.label),
                share(p.split.kernel_network),
                share(p.split.kernel_other),
                share(p.split.own),
                share(p.split.runtime),
                share(p.split.libc),
                share(p.split.unknown),
                per(p.syscalls_per_request),
                per(switches),
                p.rps,
                c.cell.rps.median,
            );
        }
        o.push('\n');
        for c in &cells {
            if let Some(jit) = crate::profile_pairs::jit_caveat(c.profile) {
                let _ = writeln!(o, "- {}: {}", escape(&c.label), escape(&jit));
            }
        }
        o.push('\n');
    }
    o
}

/// `run --explain`'s section: for each group, each pair of neighbours in its ranking (by
/// measured rate) compared profile to profile; empty unless the run asked for it.
pub fn explained(r: &RunResults) -> String {
    if !r.protocol.explain {
        return String::new();
    }
    let groups = crate::profile_pairs::neighbour_pairs(r);
    if groups.is_empty() {
        return "## Profiles compared\n\nNo group has two profiled cells to compare.\n\n".into();
    }
    let mut o = String::from(
        "## Profiles compared\n\nEach pair of neighbours in a ranking, profile beside profile, \
         per request of each profiling slice. The slice's rate against the measured \
         (unprofiled) one is the measure of perf's overhead.\n\n",
    );
    for (title, pairs) in groups {
        let _ = writeln!(o, "### {}\n", escape(&title));
        for (a, b) in pairs {
            if let Some(p) = crate::profile_pairs::pair_of(a, b) {
                pair(&mut o, &p, "####");
            }
        }
    }
    o
}

/// One pair: its sentence, the per-request table, the top symbols side by side, the caveats.
pub fn pair(o: &mut String, p: &crate::profile_pairs::CellPair<'_>, heading: &str) {
    let (a, b) = (&p.paired.faster.label, &p.paired.slower.label);
    let _ = writeln!(o, "{heading} {} beside {}\n", escape(a), escape(b));
    let _ = writeln!(o, "{}\n", escape(&p.paired.sentence()));
    let _ = writeln!(
        o,
        "| per request | {} | {} |\n|---|--:|--:|",
        escape(a),
        escape(b)
    );
    for (name, x, y) in p.paired.rows() {
        let _ = writeln!(o, "| {} | {} | {} |", escape(&name), escape(&x), escape(&y));
    }
    o.push('\n');
    let symbols = crate::profile_pairs::top_symbols_side_by_side(p.faster.1, p.slower.1, 8);
    if !symbols.is_empty() {
        let _ = writeln!(
            o,
            "| top symbol (self) | {} | {} |\n|---|--:|--:|",
            escape(a),
            escape(b)
        );
        for (symbol, x, y) in symbols {
            let _ = writeln!(
                o,
                "| `{}` | {:.1}% | {:.1}% |",
                symbol.replace('`', "'").replace('|', "\\|"),
                x * 100.0,
                y * 100.0
            );
        }
        o.push('\n');
    }
    for caveat in p.caveats() {
        let _ = writeln!(o, "- {}", escape(&caveat));
    }
    o.push_str(
        "\nThe differential flame graph (per request; red where the second spends more) is in \
         report.html.\n\n",
    );
}
