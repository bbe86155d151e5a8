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
         part of the figures above; its rate is shown beside the measured one.\n\n",
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
    }
    o
}
