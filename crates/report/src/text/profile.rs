//! A profile as `restbench profile` prints it: the CPU split, the per-request counts and the
//! top symbols.

use std::fmt::Write;

use restbench_model::CellProfile;

use super::{Column, TextTable};

const SYMBOL_COLUMNS: [Column; 3] = [
    Column::right("self"),
    Column::left("part"),
    Column::left("symbol"),
];

/// The profile of `label` in a few lines; `measured_rps` (the cell's own median, when known)
/// is set beside the slice's rate.
pub fn summary(label: &str, profile: &CellProfile, measured_rps: Option<f64>) -> String {
    let mut o = String::new();
    let beside = measured_rps.map_or(String::new(), |m| format!(" (measured {m:.0} req/s)"));
    let _ = writeln!(
        o,
        "{label}: {} samples over {:.1}s at {:.0} req/s{beside}",
        profile.samples, profile.duration_s, profile.rps
    );
    if let Some(m) = measured_rps.filter(|m| *m > 0.0) {
        let _ = writeln!(
            o,
            "profiled slice against measured: {:.2}× (perf's overhead, as the unprofiled rate measures it)",
            profile.rps / m
        );
    }
    if let Some(jit) = crate::profile_pairs::jit_caveat(profile) {
        let _ = writeln!(o, "{jit}");
    }
    let split: Vec<String> = profile
        .split
        .parts()
        .iter()
        .filter(|(_, share)| *share > 0.0)
        .map(|(name, share)| format!("{name} {:.1}%", share * 100.0))
        .collect();
    let _ = writeln!(o, "CPU: {}", split.join(", "));
    let per = [
        ("system calls", profile.syscalls_per_request),
        ("voluntary switches", profile.voluntary_switches_per_request),
        (
            "involuntary switches",
            profile.involuntary_switches_per_request,
        ),
        ("minor faults", profile.minor_faults_per_request),
    ];
    let per: Vec<String> = per
        .iter()
        .filter_map(|(name, v)| Some(format!("{name} {:.3}", (*v)?)))
        .collect();
    if !per.is_empty() {
        let _ = writeln!(o, "per request: {}", per.join(", "));
    }
    let rows: Vec<Vec<String>> = profile
        .top_symbols
        .iter()
        .map(|s| {
            vec![
                format!("{:.1}%", s.share * 100.0),
                s.part.clone(),
                s.symbol.clone(),
            ]
        })
        .collect();
    for line in TextTable::new(&SYMBOL_COLUMNS, rows).lines() {
        let _ = writeln!(o, "{line}");
    }
    for note in &profile.notes {
        let _ = writeln!(o, "note: {note}");
    }
    o
}
