//! The plain lines a comparison says the same way in text and in Markdown: where each run came
//! from, the verdict counts, the table's values, the load verdict. Text and Markdown both build
//! on these and never on each other. Document strings enter them through
//! [`crate::escape::terminal`] (no control characters); Markdown escapes the whole line again.

use restbench_model::Interval;
use restbench_model::documents::comparison::{
    Comparison, LoadComparison, LoadLabel, LoadMetric, RunLabel, Unit, Verdict,
};

use restbench_model::vocabulary::flag::Flag;

use crate::cells::key_label;
use crate::escape::terminal;
use crate::units::{bytes_short, micros_short, ratio, thousands};

/// One line on the verdicts: `18 cells in both runs: 2 faster, 1 slower, 15 same, 0 without
/// interval` (and the cells not comparable, when there are some).
pub fn comparison_summary(c: &Comparison) -> String {
    let counts = c.counts();
    let n = |v: Verdict| counts.get(v.as_str()).copied().unwrap_or(0);
    let mut parts: Vec<String> = vec![
        format!("{} faster", n(Verdict::Faster)),
        format!("{} slower", n(Verdict::Slower)),
        format!("{} same", n(Verdict::Same)),
        format!("{} without interval", n(Verdict::NoInterval)),
    ];
    if n(Verdict::NotComparable) > 0 {
        parts.push(format!("{} not comparable", n(Verdict::NotComparable)));
    }
    let apart = c
        .cells
        .iter()
        .filter(|cell| {
            cell.note
                .as_deref()
                .is_some_and(|n| n.contains(Flag::Nonconformant.name()))
        })
        .count();
    let apart = if apart == 0 {
        String::new()
    } else {
        format!(
            " {apart} with a nonconformant side listed last: a figure from a server that reads \
             HTTP wrongly is no ranking."
        )
    };
    format!(
        "{} cells in both runs: {}.{apart}",
        c.cells.len(),
        parts.join(", ")
    )
}

/// A ratio's interval for a table: `[0.97×, 1.08×]`.
pub fn ratio_interval(i: &Interval) -> String {
    format!("[{}, {}]", ratio(i.low), ratio(i.high))
}

/// True when some compared cell has a req/s interval: tables then show the column.
pub fn any_interval(c: &Comparison) -> bool {
    c.cells.iter().any(|x| x.rps_interval.is_some())
}

/// A comparison's table as text: subject, workload, scenario, A and B req/s, the req/s ratio and
/// its 95 % interval (empty when none), the p99 and CPU ratios, and the verdict.
pub fn comparison_rows(c: &Comparison) -> Vec<[String; 10]> {
    c.cells
        .iter()
        .map(|c| {
            let opt = |v: Option<f64>, f: fn(f64) -> String| v.map_or("–".to_string(), f);
            [
                terminal(&key_label(&c.key)),
                terminal(&c.key.workload),
                terminal(&c.key.scenario),
                opt(c.a_rps, thousands),
                opt(c.b_rps, thousands),
                opt(c.rps_ratio, ratio),
                c.rps_interval
                    .as_ref()
                    .map_or(String::new(), ratio_interval),
                opt(c.p99_ratio, ratio),
                opt(c.cpu_us_per_req_ratio, ratio),
                c.verdict.to_string(),
            ]
        })
        .collect()
}

/// Where each run came from, and a warning when the machines differ.
pub fn comparison_heading(c: &Comparison) -> Vec<String> {
    let l = |x: &RunLabel| {
        format!(
            "{} started {} on {} ({}{})",
            terminal(&x.kind),
            terminal(&x.started_at),
            terminal(&x.cpu_model),
            crate::units::plural(x.cores, "core"),
            if x.hostname.is_empty() {
                String::new()
            } else {
                format!(", {}", terminal(&x.hostname))
            }
        )
    };
    let mut v = vec![
        format!("A: {}", l(&c.a)),
        format!("B: {}", l(&c.b)),
        "Each cell's own figures (its slices alone) compared across the runs, unpaired and \
         Holm-corrected over the cells; duet ratios pair cells within one run only."
            .into(),
    ];
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
pub fn load_label(l: &LoadLabel) -> String {
    format!(
        "{} {} — {}, {}, {}; measured {:.2} s",
        terminal(&l.method),
        terminal(&l.url),
        crate::units::plural(l.threads, "thread"),
        crate::units::plural(l.connections, "connection"),
        terminal(&l.shape),
        l.duration_s
    )
}

/// A metric's value for reading.
pub fn metric_value(m: &LoadMetric, v: f64) -> String {
    match m.unit {
        Unit::PerSecond => thousands(v),
        Unit::Micros => micros_short(v),
        Unit::Count => thousands(v),
        Unit::Percent => format!("{v:.2}%"),
        Unit::BytesPerSecond => format!("{}/s", bytes_short(v)),
    }
}

/// The sentence under a load comparison: the verdict, the interval it came from, and how to
/// read the ratios.
pub fn load_verdict_line(c: &LoadComparison) -> String {
    let interval = c.rps_interval.as_ref().map_or(String::new(), |i| {
        format!(
            "B ÷ A {} {}{}, ",
            ratio(i.estimate),
            ratio_interval(i),
            c.noise.map_or(String::new(), |n| format!(
                " against a noise of {:.1} %",
                n * 100.0
            ))
        )
    });
    format!(
        "req/s: {} ({interval}per-second variation A {:.1} %, B {:.1} %). Ratios are B ÷ A; for \
         latency and errors below 1 is better.",
        match c.verdict {
            Verdict::Faster => "B is faster beyond the noise",
            Verdict::Slower => "B is slower beyond the noise",
            Verdict::Same => "same (the interval does not clear the noise)",
            Verdict::NoInterval => "no interval (under two whole seconds on a side), no verdict",
            Verdict::NotComparable => "not comparable (a run answered nothing)",
        },
        c.a_cv * 100.0,
        c.b_cv * 100.0
    )
}
