//! Terminal output of a capacity search (`restbench load --slo`): one line per step and the
//! verdict, with a floor said to be a floor. A renderer: it reads the model's [`Capacity`] only.

use std::fmt::Write;

use restbench_model::{BoundBy, Capacity, RateStep};

use crate::cells::key_label;
use crate::compare::Comparison;
use crate::units::{micros, ratio, thousands};

/// The open-loop lines of a comparison (capacity and equal load per cell), for its text and
/// Markdown; empty when neither run measured open loop.
pub fn comparison_open_loop_lines(c: &Comparison) -> Vec<String> {
    let mut out = Vec::new();
    let rate = |r: Option<f64>, b: BoundBy| match (r, b) {
        (None, _) => "none met".to_string(),
        (Some(v), BoundBy::Server) => thousands(v),
        (Some(v), _) => format!("≥ {}", thousands(v)),
    };
    for cell in &c.cells {
        let who = format!(
            "{} / {} / {}",
            key_label(&cell.key),
            cell.key.workload,
            cell.key.scenario
        );
        if let Some(k) = &cell.capacity {
            out.push(format!(
                "capacity {who} under {}: A {} ({}), B {} ({}){}{}",
                k.slo_a,
                rate(k.a_rate, k.a_bound_by),
                k.a_bound_by.name(),
                rate(k.b_rate, k.b_bound_by),
                k.b_bound_by.name(),
                k.ratio
                    .map_or(String::new(), |r| format!(", B÷A {}", ratio(r))),
                k.note.as_ref().map_or(String::new(), |n| format!(" ({n})"))
            ));
        }
        for r in &cell.at_rate {
            let side = |held: bool, achieved: f64, cpu: Option<f64>| {
                if held {
                    cpu.map_or("held".to_string(), |v| format!("{v:.1} µs/req"))
                } else {
                    format!("not held ({} req/s)", thousands(achieved))
                }
            };
            out.push(format!(
                "equal load {who} at {} req/s: A {}, B {}{}",
                thousands(r.target),
                side(r.a_held, r.a_achieved, r.a_cpu_us_per_req),
                side(r.b_held, r.b_achieved, r.b_cpu_us_per_req),
                r.cpu_ratio.map_or(String::new(), |x| format!(
                    ", server CPU/req B÷A {}",
                    ratio(x)
                ))
            ));
        }
    }
    out
}

/// The aligned header of a step line.
pub fn step_header() -> String {
    format!(
        "{:>4} {:>10} {:>10} {:>6} {:>9} {:>9} {:>9} {:>9} {:>8} {:>6}  {}",
        "step",
        "target/s",
        "achieved/s",
        "held",
        "p50",
        "p90",
        "p99",
        "p99.9",
        "errors",
        "gen",
        "verdict"
    )
}

/// One step as an aligned line (also printed live while the search runs).
pub fn step_line(i: usize, s: &RateStep) -> String {
    let l = &s.latency_us;
    let verdict = if s.pass {
        "pass".to_string()
    } else {
        format!("FAIL: {}", s.failed.join("; "))
    };
    format!(
        "{:>4} {:>10} {:>10} {:>5.1}% {:>9} {:>9} {:>9} {:>9} {:>7.3}% {:>6.2}{} {verdict}",
        i,
        thousands(s.target_rps),
        thousands(s.achieved_rps),
        s.held_fraction() * 100.0,
        micros(l.p50 as f64),
        micros(l.p90 as f64),
        micros(l.p99 as f64),
        micros(l.p999 as f64),
        s.errors_percent,
        s.loadgen_cpu_cores,
        if s.generator_saturated { "*" } else { " " },
    )
}

/// The verdict in a sentence: `capacity 1,950 req/s under p99<=10ms (bound by the server)`.
pub fn verdict(c: &Capacity) -> String {
    match c.rate {
        None => format!(
            "no rate tried met {} (lowest tried {} req/s): {}",
            c.slo,
            thousands(
                c.steps
                    .iter()
                    .map(|s| s.target_rps)
                    .fold(f64::INFINITY, f64::min)
            ),
            c.reason
        ),
        Some(rate) => match c.bound_by {
            BoundBy::Server => format!(
                "capacity {} req/s under {} (bound by the server: {})",
                thousands(rate),
                c.slo,
                c.reason
            ),
            BoundBy::Generator => format!(
                "at least {} req/s under {} — bound by the GENERATOR, not the server's capacity \
                 ({})",
                thousands(rate),
                c.slo,
                c.reason
            ),
            BoundBy::Search => format!(
                "at least {} req/s under {} — the search ended before a rate failed ({})",
                thousands(rate),
                c.slo,
                c.reason
            ),
        },
    }
}

/// The whole search: the probe, the steps, the verdict.
pub fn capacity_report(c: &Capacity) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "Capacity under {} (open loop, latency from intended send times; {}s steps after {}s \
         warm-up each, resolution {}%)",
        c.slo,
        c.step_duration_s,
        c.step_warmup_s,
        c.resolution * 100.0
    );
    let _ = writeln!(
        o,
        "  probe: {} req/s at saturation, closed loop, {} ({:.2} generator cores{})",
        thousands(c.probe.rps),
        crate::units::plural(c.probe.connections, "connection"),
        c.probe.loadgen_cpu_cores,
        if c.probe.generator_saturated {
            ", saturated"
        } else {
            ""
        }
    );
    let _ = writeln!(o, "{}", step_header());
    for (i, s) in c.steps.iter().enumerate() {
        let _ = writeln!(o, "{}", step_line(i + 1, s));
    }
    if c.steps.iter().any(|s| s.generator_saturated) {
        let _ = writeln!(
            o,
            "  * the generator used at least 85 % of its {} cores",
            c.generator_cores.map_or("?".into(), |g| format!("{g}"))
        );
    }
    if c.interrupted {
        let _ = writeln!(o, "  interrupted: the steps so far");
    }
    let _ = writeln!(o, "{}", verdict(c));
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_model::{CapacityProbe, LatencySummary, Slo};

    fn step(target: f64, achieved: f64, pass: bool) -> RateStep {
        RateStep {
            target_rps: target,
            achieved_rps: achieved,
            duration_s: 1.0,
            sent: 100,
            requests: 100,
            errors: Default::default(),
            errors_percent: 0.0,
            latency_us: LatencySummary {
                p99: 1_500,
                ..Default::default()
            },
            pass,
            failed: if pass {
                vec![]
            } else {
                vec!["p99<=1ms".into()]
            },
            loadgen_cpu_cores: 0.2,
            generator_saturated: !pass,
            max_schedule_lag_us: 0,
            histogram: String::new(),
            server: None,
        }
    }

    #[test]
    fn a_floor_is_never_called_a_capacity() {
        let mut c = Capacity {
            slo: Slo::parse_all(&["p99<=1ms"]).unwrap(),
            rate: Some(1_000.0),
            bound_by: BoundBy::Server,
            reason: "at 1,500 req/s the server failed".into(),
            probe: CapacityProbe {
                rps: 1_200.0,
                connections: 10,
                ..Default::default()
            },
            resolution: 0.02,
            hold_fraction: 0.97,
            step_duration_s: 1.0,
            step_warmup_s: 0.5,
            generator_cores: Some(1.0),
            steps: vec![step(1_000.0, 1_000.0, true), step(1_500.0, 1_200.0, false)],
            interrupted: false,
        };
        let text = capacity_report(&c);
        assert!(
            text.contains("capacity 1,000 req/s under p99<=1ms"),
            "{text}"
        );
        assert!(text.contains("closed loop, 10 connections"), "{text}");
        assert!(text.contains("FAIL: p99<=1ms"), "{text}");
        c.bound_by = BoundBy::Generator;
        let text = capacity_report(&c);
        assert!(text.contains("at least 1,000 req/s"), "{text}");
        assert!(text.contains("GENERATOR"), "{text}");
        assert!(!text.contains("capacity 1,000"), "{text}");
        c.rate = None;
        assert!(verdict(&c).starts_with("no rate tried met p99<=1ms"));
    }
}
